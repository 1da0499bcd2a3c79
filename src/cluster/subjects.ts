// The wire contract of drum on NATS JetStream (docs/cluster.md): stream and
// subject names, headers, message ids, which shard a URL belongs to, and the
// one place that connects and creates the streams. Does not publish, consume
// or run rounds (publish.ts, shard.ts and follow.ts do).
// REQUIRES: a nats-server with JetStream enabled (-js) at the given URLs.

import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { DrumError } from '../errors.js';

/** The link log: `drum.links.<shard>`, work-queue retention (a message goes once its shard acked it). */
export const LINKS_STREAM = 'DRUM_LINKS';
/** The new-URL feed: `drum.new.<shard>`, kept (limits retention) for any number of readers. */
export const NEW_STREAM = 'DRUM_NEW';
export const linksSubject = (shard: number): string => `drum.links.${shard}`;
export const newSubject = (shard: number): string => `drum.new.${shard}`;
/** The durable pull consumer a shard reads its links with. */
export const shardConsumer = (shard: number): string => `drum-shard-${shard}`;

/** Headers on every message drum publishes. */
export const H_SHARD = 'Drum-Shard';
export const H_SHARDS = 'Drum-Shards';
/** drum.new only: ordinal of the message's first URL in its shard's sequence of new URLs (0-based). */
export const H_ORDINAL = 'Drum-Ordinal';
export const H_COUNT = 'Drum-Count';

/** Message id of a new-URL message: JetStream drops a republish with the same id in its duplicate window. */
export const newMsgId = (shard: number, ordinal: number): string => `drum.new.${shard}.${ordinal}`;

/** Payload bound of one message (nats-server's default max_payload is 1 MiB). */
export const LINKS_BATCH_BYTES = 256 * 1024;
export const NEW_BATCH_URLS = 1000;
/** …and at most this payload (1,000 URLs of 2 KiB would pass max_payload); a longer URL goes alone. */
export const NEW_BATCH_BYTES = 256 * 1024;

/** Most shards: the shard comes from the key's top 16 bits (the host's fingerprint bits). */
export const MAX_SHARDS = 1 << 16;

/**
 * The shard of a URL whose host fingerprint is `host` (fingerprint/key.ts
 * hostHash): its top 16 bits modulo the shard count. Those are the top bits
 * of every key of the host in a store with hostBits >= 16 (default 24), so
 * one host always lands on one shard.
 */
export function shardOfHost(host: number, shards: number): number {
  return (host >>> 16) % shards;
}

/** Splits `--nats a,b,c` into server URLs. */
export function natsServers(list: string): string[] {
  const s = list.split(',').map((x) => x.trim()).filter((x) => x.length > 0);
  if (s.length === 0) throw new DrumError('DRUM_BAD_OPTION', '--nats needs at least one server URL, e.g. nats://127.0.0.1:4222');
  return s;
}

/** Connects to the cluster; a refused connection is DRUM_IO naming the servers. */
export async function connectNats(servers: string[], name: string): Promise<NatsConnection> {
  try {
    return await connect({ servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  } catch (e) {
    throw new DrumError('DRUM_IO', `cannot connect to NATS at ${servers.join(',')}: ${(e as Error).message}`, { cause: e });
  }
}

/** JetStream API attempts while a cluster elects a leader (a node just died, or the cluster is starting). */
const JS_READY_ATTEMPTS = 20;
const JS_READY_WAIT_MS = 500;

/**
 * The JetStream manager, retried while JetStream's API times out (no meta
 * leader yet after a node died or while a cluster starts); still timing out
 * after JS_READY_ATTEMPTS is DRUM_IO.
 */
async function jetStreamReady(nc: NatsConnection): Promise<JetStreamManager> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await jetstreamManager(nc);
    } catch (e) {
      if ((e as Error).name !== 'TimeoutError') throw e;
      if (attempt >= JS_READY_ATTEMPTS) {
        throw new DrumError('DRUM_IO', `NATS JetStream did not answer after ${attempt} attempts: ${(e as Error).message}`, { cause: e });
      }
      await new Promise((r) => setTimeout(r, JS_READY_WAIT_MS));
    }
  }
}

/**
 * Creates DRUM_LINKS and DRUM_NEW when missing, with `replicas` copies each.
 * An existing DRUM_LINKS made for another shard count is DRUM_BAD_OPTION
 * (the count is kept in the stream's description).
 */
export async function ensureStreams(nc: NatsConnection, shards: number, replicas: number): Promise<JetStreamManager> {
  const jsm = await jetStreamReady(nc);
  const links = await addIfMissing(jsm, {
    name: LINKS_STREAM, subjects: ['drum.links.>'], retention: RetentionPolicy.Workqueue,
    storage: StorageType.File, num_replicas: replicas, description: `drum link log, shards=${shards}`,
  });
  if (links !== `drum link log, shards=${shards}`) {
    throw new DrumError('DRUM_BAD_OPTION', `stream ${LINKS_STREAM} exists for another shard count (${links ?? 'no description'}); not --shards ${shards}`);
  }
  await addIfMissing(jsm, {
    name: NEW_STREAM, subjects: ['drum.new.>'], retention: RetentionPolicy.Limits,
    storage: StorageType.File, num_replicas: replicas, description: `drum new URLs, shards=${shards}`,
  });
  return jsm;
}

type StreamSpec = Parameters<JetStreamManager['streams']['add']>[0];

/** Adds the stream unless it exists (another process may add it at the same moment); returns its description. */
async function addIfMissing(jsm: JetStreamManager, spec: StreamSpec): Promise<string | undefined> {
  for (let attempt = 0; ; attempt++) {
    const info = await jsm.streams.info(spec.name!).catch(() => null);
    if (info !== null) return info.config.description;
    try {
      return (await jsm.streams.add(spec)).config.description;
    } catch (e) {
      if (attempt >= 20) throw new DrumError('DRUM_IO', `cannot create stream ${spec.name}: ${(e as Error).message}`, { cause: e });
      await new Promise((r) => setTimeout(r, 250)); // a cluster still electing its meta leader, or a concurrent add
    }
  }
}
