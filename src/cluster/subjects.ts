// The wire contract of drum on NATS JetStream (docs/cluster.md): stream and
// subject names, headers, message ids, which shard a URL belongs to, and the
// one place that connects and creates the streams and the durable consumers
// (a shard's, a follower's), each call made again while the cluster cannot
// answer yet. Does not publish, consume or run rounds (publish.ts, shard.ts
// and follow.ts do).
// REQUIRES: a nats-server with JetStream enabled (-js) at the given URLs.

import { connect, type NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, JetStreamApiError, jetstreamManager, RetentionPolicy, StorageType, type Consumer, type JetStreamManager } from '@nats-io/jetstream';
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

/** JetStream API codes of a consumer, or a stream, that does not exist. */
export const JS_CONSUMER_NOT_FOUND = 10014;
export const JS_STREAM_NOT_FOUND = 10059;
/** …and of a stream with replicas on a server that is not clustered. */
const JS_REPLICAS_NOT_CLUSTERED = 10074;

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

/**
 * Connects to the cluster; a refused connection is DRUM_IO naming the
 * servers. The client reconnects for ever; each server lost and each
 * reconnection is told to `onNotice` when given (a service says why it
 * waits).
 */
export async function connectNats(servers: string[], name: string, onNotice?: (message: string) => void): Promise<NatsConnection> {
  let nc: NatsConnection;
  try {
    nc = await connect({ servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 250 });
  } catch (e) {
    throw new DrumError('DRUM_IO', `cannot connect to NATS at ${servers.join(',')}: ${(e as Error).message}`, { cause: e });
  }
  if (onNotice !== undefined) void tellReconnects(nc, onNotice);
  return nc;
}

async function tellReconnects(nc: NatsConnection, onNotice: (message: string) => void): Promise<void> {
  for await (const s of nc.status()) {
    if (s.type === 'disconnect') onNotice(`lost NATS server ${s.server}; reconnecting`);
    else if (s.type === 'reconnect') onNotice(`reconnected to NATS server ${s.server}`);
  }
}

/**
 * How long a JetStream API call is tried again while the cluster cannot
 * answer it, and the wait between tries. A cluster that lost its quorum
 * took over 10 s after its nodes were back to elect a stream leader
 * (nats-server 2.9), and "no responders" fails at once: the limit is time,
 * not a count of tries.
 */
const JS_ANSWER_MS = 60_000;
const JS_ANSWER_WAIT_MS = 500;

/**
 * What untilAnswered throws when its `stop` signal fires: the caller was
 * asked to stop (SIGTERM, SIGINT) while the cluster did not answer. Not a
 * failure: a shard or a follower catches it and returns, nothing having
 * been fetched yet.
 */
export class SetUpStopped extends Error {
  constructor(what: string) {
    super(`stopped while waiting for NATS JetStream to answer ${what}`);
    this.name = 'SetUpStopped';
  }
}

/**
 * Runs a JetStream API call until the cluster answers it: any failure but a
 * DrumError is taken for a cluster that cannot answer yet (no meta or stream
 * leader after a node died, a node still starting: a timeout, "jetstream is
 * not enabled", "temporarily unavailable", a concurrent create) and the call
 * is made again after JS_ANSWER_WAIT_MS, telling `onRetry` at the first
 * retry; still failing after JS_ANSWER_MS is DRUM_IO naming `what`. Once
 * `stop` fires, the wait and the call under way are given up: SetUpStopped.
 */
export async function untilAnswered<T>(what: string, call: () => Promise<T>, onRetry?: (message: string) => void, stop?: AbortSignal): Promise<T> {
  const until = performance.now() + JS_ANSWER_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return await unlessStopped(what, call(), stop);
    } catch (e) {
      if (e instanceof DrumError || e instanceof SetUpStopped) throw e;
      const why = e instanceof Error ? e.message : String(e);
      if (performance.now() >= until) {
        throw new DrumError('DRUM_IO', `NATS JetStream did not answer ${what} in ${JS_ANSWER_MS / 1000} s (${attempt} tries): ${why}`, { cause: e });
      }
      if (attempt === 1) onRetry?.(`NATS JetStream did not answer ${what} (${why}); trying again`);
      await unlessStopped(what, new Promise((r) => setTimeout(r, JS_ANSWER_WAIT_MS)), stop);
    }
  }
}

/** `p`, or SetUpStopped as soon as `stop` fires (p's own outcome is then ignored). */
function unlessStopped<T>(what: string, p: Promise<T>, stop: AbortSignal | undefined): Promise<T> {
  if (stop === undefined) return p;
  if (stop.aborted) {
    p.catch(() => undefined);
    return Promise.reject(new SetUpStopped(what));
  }
  return new Promise<T>((done, fail) => {
    const onStop = (): void => fail(new SetUpStopped(what));
    stop.addEventListener('abort', onStop, { once: true });
    p.then(done, fail).finally(() => stop.removeEventListener('abort', onStop));
  });
}

/** What ensureStreams is told besides the shard count and replicas. */
export interface StreamChecks {
  /**
   * The canonical policy id (CanonicalPolicy.id) of the caller's URLs: a
   * DRUM_LINKS made now records it, and one that records another is
   * DRUM_POLICY_MISMATCH. Absent: not checked (tests, tools).
   */
  policy?: string;
  /** Told when the cluster does not answer yet (untilAnswered). */
  onRetry?: (message: string) => void;
  /** Ends the wait for a cluster that does not answer (SetUpStopped). */
  stop?: AbortSignal;
}

/** DRUM_LINKS's description: the shard count, and the policy its links are canonicalized under. */
export function linksDescription(shards: number, policy: string | undefined): string {
  return policy === undefined ? `drum link log, shards=${shards}` : `drum link log, shards=${shards}, policy=${policy}`;
}

/**
 * Creates DRUM_LINKS and DRUM_NEW when missing, with `replicas` copies each.
 * An existing DRUM_LINKS made for another shard count is DRUM_BAD_OPTION,
 * one made under another canonical policy DRUM_POLICY_MISMATCH (both are
 * kept in the stream's description; one made by a drum that did not record
 * the policy is not checked for it). Publishers and shards must agree on
 * the policy: a publisher routes each URL by its canonical host, and a
 * shard whose policy changed the host further (--strip-www on the shards
 * only) would store one host's URLs on two shards, answering a URL new on
 * each.
 */
export async function ensureStreams(nc: NatsConnection, shards: number, replicas: number, o: StreamChecks = {}): Promise<JetStreamManager> {
  const { onRetry, stop } = o;
  const jsm = await untilAnswered('its first request', () => jetstreamManager(nc), onRetry, stop);
  const links = await untilAnswered(`for stream ${LINKS_STREAM}`, () => addIfMissing(jsm, {
    name: LINKS_STREAM, subjects: ['drum.links.>'], retention: RetentionPolicy.Workqueue,
    storage: StorageType.File, num_replicas: replicas, description: linksDescription(shards, o.policy),
  }), onRetry, stop);
  const made = /^drum link log, shards=(\d+)(?:, policy=(\S+))?$/.exec(links ?? '');
  if (made === null || Number(made[1]) !== shards) {
    throw new DrumError('DRUM_BAD_OPTION', `stream ${LINKS_STREAM} exists for another shard count (${links ?? 'no description'}); not --shards ${shards}`);
  }
  if (o.policy !== undefined && made[2] !== undefined && made[2] !== o.policy) {
    throw new DrumError('DRUM_POLICY_MISMATCH', `stream ${LINKS_STREAM} holds links canonicalized under policy ${made[2]}, not ${o.policy}: publishers and shards take the same policy options (a host split between shards would have URLs answered new twice)`);
  }
  await untilAnswered(`for stream ${NEW_STREAM}`, () => addIfMissing(jsm, {
    name: NEW_STREAM, subjects: ['drum.new.>'], retention: RetentionPolicy.Limits,
    storage: StorageType.File, num_replicas: replicas, description: `drum new URLs, shards=${shards}`,
  }), onRetry, stop);
  return jsm;
}

/** The shard's durable pull consumer on its links subject, created when missing (ack wait `ackWaitMs`, explicit acks, from the stream's start). */
export function ensureShardConsumer(nc: NatsConnection, jsm: JetStreamManager, shard: number, ackWaitMs: number, onRetry?: (message: string) => void, stop?: AbortSignal): Promise<Consumer> {
  return ensureDurable(nc, jsm, LINKS_STREAM, {
    durable_name: shardConsumer(shard), ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All,
    filter_subject: linksSubject(shard), ack_wait: ackWaitMs * 1e6, max_ack_pending: MAX_ACK_PENDING,
  }, onRetry, stop);
}

type ConsumerSpec = Parameters<JetStreamManager['consumers']['add']>[1] & { durable_name: string };

/**
 * The durable consumer `spec.durable_name` of `stream`, created from `spec`
 * when missing (a shard's, a `drum follow --durable`'s). Look-up, create
 * and get are tried again as one: a cluster regaining its quorum can answer
 * a create with success and then not know the consumer (nats-server 2.9),
 * and only a second create makes it.
 */
export async function ensureDurable(nc: NatsConnection, jsm: JetStreamManager, stream: string, spec: ConsumerSpec, onRetry?: (message: string) => void, stop?: AbortSignal): Promise<Consumer> {
  const name = spec.durable_name;
  return untilAnswered(`for consumer ${name}`, async () => {
    if ((await jsm.consumers.info(stream, name).catch(() => null)) === null) await jsm.consumers.add(stream, spec);
    return jetstream(nc).consumers.get(stream, name);
  }, onRetry, stop);
}

/** Messages a shard's consumer hands out before acks: far more than a round holds (a round fetches ~2 MiB at a time). */
const MAX_ACK_PENDING = 20_000;

type StreamSpec = Parameters<JetStreamManager['streams']['add']>[0];

/**
 * Adds the stream unless it exists (another process may add it at the same
 * moment: the caller tries again); returns its description. Replicas a
 * server that is not clustered cannot keep are DRUM_BAD_OPTION, not a
 * cluster that cannot answer yet.
 */
async function addIfMissing(jsm: JetStreamManager, spec: StreamSpec): Promise<string | undefined> {
  const info = await jsm.streams.info(spec.name!).catch(() => null);
  if (info !== null) return info.config.description;
  try {
    return (await jsm.streams.add(spec)).config.description;
  } catch (e) {
    if (e instanceof JetStreamApiError && e.code === JS_REPLICAS_NOT_CLUSTERED) {
      throw new DrumError('DRUM_BAD_OPTION', `--replicas ${spec.num_replicas}: this NATS server is not part of a cluster (${e.message}); use --replicas 1, or a cluster of at least ${spec.num_replicas} nodes`, { cause: e });
    }
    throw e;
  }
}
