// The actions behind `drum publish`, `drum serve` and `drum follow` (drum on
// NATS JetStream, docs/cluster.md): turn parsed options into the cluster
// roles of src/cluster/ and print their outcome. SIGTERM and SIGINT stop
// serve and follow cleanly. Does not parse argv (main.ts does).

import { resolvePolicy } from '../../canonicalize/policy.js';
import { Drum } from '../../engine/drum.js';
import { DrumError } from '../../errors.js';
import { Follower } from '../../cluster/follow.js';
import { publishLinks } from '../../cluster/publish.js';
import { Shard } from '../../cluster/shard.js';
import { connectNats, ensureStreams, MAX_SHARDS, natsServers, SetUpStopped } from '../../cluster/subjects.js';
import type { NatsConnection } from '@nats-io/transport-node';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MANIFEST_NAME } from '../../store/manifest.js';
import { Writable } from 'node:stream';
import type { CliIo, OutStream } from '../command-io.js';
import { canonicalFrom, drumOptionsFrom, inputsFrom, parseCount, readOptionsFrom, stateDirFrom, type RawOptions } from '../options.js';

/** Options of the cluster commands, as commander hands them over. */
export interface ClusterRaw extends RawOptions {
  nats?: string;
  shard?: string;
  shards?: string;
  replicas?: string;
  maxDelay?: string;
  roundLinks?: string;
  ackWait?: string;
  durable?: string;
  idleExit?: string;
  rejects?: string;
}

function seconds(flag: string, text: string | undefined, dflt: number): number {
  if (text === undefined) return dflt * 1000;
  const v = Number(text);
  if (!Number.isFinite(v) || v < 0 || text.trim() === '') throw new DrumError('DRUM_BAD_OPTION', `${flag} wants seconds (a number >= 0), got "${text}"`);
  return v * 1000;
}

function required(flag: string, v: string | undefined): string {
  if (v === undefined) throw new DrumError('DRUM_BAD_OPTION', `${flag} is required`);
  return v;
}

/** Drains the connection (flushes pending acks) for at most DRAIN_MS, then closes it: a cluster that is down must not hang a stop. */
async function closeNats(nc: NatsConnection): Promise<void> {
  let t: NodeJS.Timeout | undefined;
  await Promise.race([nc.drain().catch(() => undefined), new Promise((r) => (t = setTimeout(r, DRAIN_MS)))]);
  clearTimeout(t);
  await nc.close().catch(() => undefined);
}

const DRAIN_MS = 5000;
/** Run records a shard keeps: its newest rounds (each a library run of its store), about 8 MB of catalog. */
const SHARD_RUN_RECORDS = 10_000;

/** Runs `fn` until it settles; the first SIGTERM or SIGINT calls `stop`, a second one of either kills the process (Node's default). */
async function untilSignal<T>(fn: () => Promise<T>, stop: () => void): Promise<T> {
  const on = (): void => {
    process.off('SIGTERM', on);
    process.off('SIGINT', on);
    stop();
  };
  process.once('SIGTERM', on);
  process.once('SIGINT', on);
  try {
    return await fn();
  } finally {
    process.off('SIGTERM', on);
    process.off('SIGINT', on);
  }
}

export async function publishCommand(inputs: string[], raw: ClusterRaw, io: CliIo): Promise<number> {
  const servers = natsServers(required('--nats', raw.nats));
  const shards = parseCount('--shards', required('--shards', raw.shards), 1, MAX_SHARDS);
  const replicas = parseCount('--replicas', raw.replicas ?? '1', 1, 5);
  const files = inputsFrom(inputs.length === 0 ? ['-'] : inputs, io.cwd);
  const nc = await connectNats(servers, 'drum-publish');
  try {
    const canonical = canonicalFrom(raw) ?? {};
    await ensureStreams(nc, shards, replicas, { policy: resolvePolicy(canonical).id, onRetry: (m) => io.stderr.write(`drum: ${m}\n`) });
    const r = await publishLinks(nc, {
      ...readOptionsFrom(raw), inputs: files, shards, canonical,
      rejectsFile: raw.rejects === undefined ? null : inputsFrom([raw.rejects], io.cwd)[0]!,
    });
    if (raw.json) io.stdout.write(JSON.stringify(r) + '\n');
    else if (!raw.quiet) {
      io.stderr.write(`drum: published ${r.urlsPublished} URLs in ${r.messages} messages to ${shards} shards (${r.rejectedLines} rejected lines) in ${(r.elapsedMs / 1000).toFixed(2)} s\n`);
    }
  } finally {
    await closeNats(nc);
  }
  return 0;
}

export async function serveCommand(raw: ClusterRaw, io: CliIo): Promise<number> {
  const servers = natsServers(required('--nats', raw.nats));
  const shards = parseCount('--shards', required('--shards', raw.shards), 1, MAX_SHARDS);
  const shard = parseCount('--shard', required('--shard', raw.shard), 0, shards - 1);
  const replicas = parseCount('--replicas', raw.replicas ?? '1', 1, 5);
  const stateDir = stateDirFrom(raw, io.env, io.cwd);
  const opts = {
    stateDir, shard, shards, replicas,
    maxDelayMs: seconds('--max-delay', raw.maxDelay, 1),
    roundLinks: parseCount('--round-links', raw.roundLinks ?? '200000', 1),
    ackWaitMs: Math.max(1000, seconds('--ack-wait', raw.ackWait, 30)),
    onReady: () => io.stderr.write(`drum: shard ${shard} of ${shards} serving ${stateDir}\n`),
    onNotice: (m: string) => io.stderr.write(`drum: shard ${shard}: ${m}\n`),
    onRound: raw.quiet ? undefined : (r: { links: number; newUrls: number; ms: number }) =>
      io.stderr.write(`drum: shard ${shard}: round of ${r.links} links, ${r.newUrls} new, ${r.ms.toFixed(0)} ms\n`),
  };
  // A round is a run: at one a second, the catalog would keep a record of every one forever.
  const drumOptions = { ...drumOptionsFrom(raw), libraryRunRecords: SHARD_RUN_RECORDS };
  const halt = new AbortController();
  let s: Shard | null = null;
  const nc = await connectNats(servers, `drum-shard-${shard}`, opts.onNotice);
  try {
    await untilSignal(async () => {
      await streamsBeforeNewState(nc, stateDir, shards, replicas, raw, opts.onNotice, halt.signal);
      const drum = await Drum.open(stateDir, drumOptions);
      try {
        s = new Shard(nc, drum, opts);
        if (!halt.signal.aborted) await s.run();
      } finally {
        await drum.close();
      }
    }, () => {
      halt.abort();
      s?.stop();
    });
  } catch (e) {
    if (!(e instanceof SetUpStopped)) throw e; // stopped while the cluster did not answer: nothing was fetched
  } finally {
    await closeNats(nc);
  }
  return 0;
}

/**
 * Before a shard makes a new state directory (none with a MANIFEST there):
 * the streams, made now or checked against its shard count and canonical
 * policy, so that a start refused for either (or for a cluster it cannot
 * reach) leaves no store bound to the wrong policy. An existing state is
 * checked by the shard itself, after it is opened.
 */
async function streamsBeforeNewState(nc: NatsConnection, stateDir: string, shards: number, replicas: number, raw: ClusterRaw, onRetry: (m: string) => void, stop: AbortSignal): Promise<void> {
  if (existsSync(join(stateDir, MANIFEST_NAME))) return;
  await ensureStreams(nc, shards, replicas, { policy: resolvePolicy(canonicalFrom(raw) ?? {}).id, onRetry, stop });
}

/**
 * Writes `text` to stdout; resolves once the write is done, rejects when it
 * failed (a reader gone: EPIPE), so `follow --durable` acks only what it
 * printed. A stream without write callbacks (a test's fake) counts as done.
 */
function printed(out: OutStream, text: string): Promise<void> {
  if (!(out instanceof Writable)) {
    out.write(text);
    return Promise.resolve();
  }
  return new Promise((done, fail) => out.write(text, (e) => (e ? fail(e) : done())));
}

export async function followCommand(raw: ClusterRaw, io: CliIo): Promise<number> {
  const servers = natsServers(required('--nats', raw.nats));
  const idle = raw.idleExit === undefined ? null : seconds('--idle-exit', raw.idleExit, 0);
  const onNotice = (m: string): void => void io.stderr.write(`drum: ${m}\n`);
  const nc = await connectNats(servers, 'drum-follow', onNotice);
  try {
    const f = new Follower(nc);
    await untilSignal(() => f.run({ durable: raw.durable ?? null, idleExitMs: idle, onBatch: (text) => printed(io.stdout, text), onNotice }), () => f.stop());
  } finally {
    await closeNats(nc);
  }
  return 0;
}
