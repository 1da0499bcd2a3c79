// Power-loss trials of a shard (`drum serve`, src/cluster/shard.ts), shared
// by power-loss-serve.test.ts (beside it; a sample) and scripts/torture.ts
// (every operation): a shard served in this process on an empty state
// directory (its Drum opened with the fault seam, as power-loss-run.ts
// opens its store) answers batches of links published one at a time to a
// real nats-server, each once the one before is answered. The reference
// run counts the mutating file operations of the shard's whole life: the
// store's creation, shard.json's, and every round (outbox, merges, commits,
// confirmations). A trial loses power before operation #at: from there on
// every operation throws (nothing more reaches the disk), the shard, its
// NATS connection (so its unacked links are redelivered after the ack
// wait) and its store are torn down, and the state directory is rebuilt
// as power-loss.ts (the kindest loss, or torn from a seed:
// power-loss-torn.ts) leaves it. The NATS server is another machine: its
// streams keep everything. A new shard on the rebuilt directory then
// answers the redelivered links and the batches not yet published, and
// DRUM_NEW must hold exactly the URLs one ingest of the same links calls
// new, in their order, each once, with ordinals 0, 1, 2, … (docs/cluster.md,
// "A shard's round"), and the store must verify. Asserts nothing; callers
// judge `ok`.
// Does not cover a NATS node's own loss, nor run-directory removal
// (rmSync: cleanup, outside the seam; the model keeps a removed directory's
// fsynced files, as a power loss could).
// REQUIRES: a nats-server with JetStream (LinkLog), used by one trial at a
// time.

import * as fs from 'node:fs';
import { join, relative } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { Drum, verifyStateDir } from '../../../src/engine/drum.js';
import { Shard } from '../../../src/cluster/shard.js';
import { isDrumError } from '../../../src/errors.js';
import type { FaultHook, FsOp } from '../../../src/io/fs.js';
import type { DrumOptions } from '../../../src/options.js';
import { writeLinks } from '../harness.js';
import { FAULT_OPTS } from '../faults/io-faults.js';
import { PowerCut, tornOf } from './power-cut.js';
import { Tear } from './power-loss-torn.js';
import type { TrialOutcome } from './power-loss-run.js';
import { LinkLog, newUrlsProblem } from './serve-nats.js';
import { NatsCluster } from '../../helpers/nats-server.js';

/**
 * The store's options: FAULT_OPTS (small buckets, a key journal, a Bloom
 * gate), a merge every 200 URLs past the tiers (so a round is a few merges,
 * each with its own outbox), and the catalog's record cap of `drum serve`.
 */
export const SERVE_OPTS: DrumOptions = { ...FAULT_OPTS, mergeEvery: 200, libraryRunRecords: 10_000 };
/** The consumer's ack wait: a crashed shard's links come back this long after its last in-progress ack. */
const ACK_WAIT_MS = 500;

/**
 * Three batches of links, one message each, rejects among them: 300 links
 * on 25 hosts; every other line of the first among 250 links on 29 hosts;
 * every third line of the second among 250 links on 31 hosts. Each batch
 * brings new URLs and repeats some stored ones (and the hosts differ, so a
 * URL lost from the store is not brought back by a later batch).
 */
export function serveBatches(dir: string): string[] {
  const gen = (n: number, seed: number, hosts: number): string[] => {
    const f = join(dir, `batch-${seed}.txt`);
    writeLinks(f, n, seed, { hosts, rejectEvery: 47 });
    return fs.readFileSync(f, 'latin1').split('\n').filter((l) => l !== '');
  };
  const mix = (fresh: string[], old: string[], every: number): string[] => {
    const again = old.filter((_, i) => i % every === 0);
    return fresh.flatMap((l, i) => (i < again.length ? [l, again[i]!] : [l]));
  };
  const a = gen(300, 11, 25);
  const b = mix(gen(250, 12, 29), a, 2);
  const c = mix(gen(250, 13, 31), b, 3);
  return [a, b, c].map((lines) => lines.map((l) => `${l}\n`).join(''));
}

export interface ServeRef {
  /** Mutating file operations of the shard's life (open, rounds, stop, close), paths relative to the state directory. */
  trace: { op: FsOp; path: string }[];
  /** The URLs one ingest of the batches in order calls new, in order. */
  want: string[];
}

/** How far a shard got: batches published (the next to publish), and what stopped it (null: it served them all and closed). */
interface Served {
  published: number;
  error: unknown;
}

/**
 * Opens the store at `state` and serves it as shard 0 of 1: publishes the
 * batches from #from, each once the link log is empty (the one before
 * answered), then stops the shard and closes the store. Whatever fails
 * first stops it all: the shard, its connection (closed, so JetStream
 * redelivers its unacked links) and the store are torn down.
 */
async function serve(log: LinkLog, state: string, hook: FaultHook | null, batches: readonly string[], from: number, tag: string): Promise<Served> {
  let published = from;
  let error: unknown = null;
  let drum: Drum | null = null;
  const nc = await connect({ servers: [log.url] });
  let shard: Shard | null = null;
  let ran: Promise<void> = Promise.resolve();
  try {
    drum = await Drum.open(state, { ...SERVE_OPTS, faultHook: hook ?? undefined });
    shard = new Shard(nc, drum, { stateDir: state, shard: 0, shards: 1, replicas: 1, maxDelayMs: 20, roundLinks: 1_000_000, ackWaitMs: ACK_WAIT_MS, faultHook: hook });
    let stopped = false;
    let failure: unknown = null;
    ran = shard.run().catch((e: unknown) => void (failure = e)).finally(() => void (stopped = true));
    let more = await log.answered(() => stopped); // what the log holds already: a crashed shard's links
    for (; more && published < batches.length; published++) {
      await log.publish(batches[published]!, `${tag}.${published}`);
      more = await log.answered(() => stopped);
    }
    shard.stop();
    await ran;
    if (failure !== null) throw failure;
  } catch (e) {
    error = e;
  } finally {
    shard?.stop();
    await nc.close().catch(() => undefined);
    await ran;
    const closing = drum?.close();
    if (closing !== undefined) {
      try {
        await closing;
      } catch (e) {
        error ??= e;
      }
    }
  }
  return { published, error };
}

/** The run never interrupted: its operations counted, and what one ingest of the batches calls new. */
export async function serveRef(dir: string, log: LinkLog, batches: readonly string[]): Promise<ServeRef> {
  await log.reset();
  const state = join(dir, 'ref-state');
  const trace: ServeRef['trace'] = [];
  const r = await serve(log, state, (op, path) => void trace.push({ op, path: relative(state, path) }), batches, 0, 'ref');
  if (r.error !== null) throw r.error;
  const want: string[] = [];
  const d = await Drum.open(join(dir, 'ref-ingest'), SERVE_OPTS);
  try {
    for await (const u of d.checkUpdate(batches)) want.push(u);
  } finally {
    await d.close();
  }
  const problem = newUrlsProblem(await log.newUrls(), want);
  if (problem !== '') throw new Error(`the uninterrupted shard: ${problem}`);
  return { trace, want };
}

/**
 * The operations of a shard's first round that hold its promise: the
 * outbox's rename, the store's commit after it (MANIFEST's rename), the
 * confirmation (shard.json's rename) and the outbox's removal. A power loss
 * just before each leaves the round between two of its steps.
 */
export function roundSteps(ref: ServeRef): number[] {
  const steps: number[] = [];
  let i = 0;
  for (const [op, path] of [['rename', 'cluster/outbox.txt'], ['rename', 'MANIFEST'], ['rename', 'cluster/shard.json'], ['unlink', 'cluster/outbox.txt']]) {
    while (i < ref.trace.length && (ref.trace[i]!.op !== op || ref.trace[i]!.path !== path)) i++;
    if (i < ref.trace.length) steps.push(i);
  }
  return steps;
}

export type ServeOutcome = TrialOutcome;

/** Power lost before the shard's operation #at (a seed: a torn disk); a new shard on the rebuilt state answers everything. */
export async function serveLossAt(dir: string, log: LinkLog, batches: readonly string[], ref: ServeRef, at: number, torn?: number): Promise<ServeOutcome> {
  const tear = torn === undefined ? null : new Tear(torn);
  const world = join(dir, `w-${at}`);
  const lost = join(dir, `lost-${at}`);
  fs.mkdirSync(world);
  await log.reset();
  const cut = new PowerCut(world, at);
  const first = await serve(log, join(world, 'state'), cut.hook, batches, 0, `t${at}`);
  // A loss in the store's close may end it without an error (a cache it fails to save is skipped): the disk is what counts.
  let problem = cut.where === null ? `the shard ended before the power loss${first.error === null ? '' : `: ${String(first.error)}`}` : '';
  problem = await cut.rebuild(lost, tear, problem, () => afterLoss(log, join(world, 'state'), batches, ref, first.published, `t${at}`));
  return { at, ...tornOf(tear), ...cut.place, ok: problem === '', problem };
}

/** A shard restarted on the rebuilt state answers the rest; what differs from one ingest, or '' when nothing. */
async function afterLoss(log: LinkLog, state: string, batches: readonly string[], ref: ServeRef, published: number, tag: string): Promise<string> {
  const r = await serve(log, state, null, batches, published, tag);
  if (r.error !== null) return `the restarted shard failed: ${isDrumError(r.error) ? `${r.error.code} ${r.error.message}` : String(r.error)}`;
  const problem = newUrlsProblem(await log.newUrls(), ref.want);
  if (problem !== '') return problem;
  const v = await verifyStateDir(state);
  return v.ok ? '' : `verify: ${v.problems[0]!.code} ${v.problems[0]!.file}`;
}

/** What a sweep measured: operations tried, the trials that went wrong, seconds, and what the torn rebuilds kept. */
export interface ServeSweep {
  ops: number;
  trials: number;
  bad: ServeOutcome[];
  seconds: number;
  kept: Tear['tally'];
}

/**
 * A power loss before every operation of the shard's life, on a
 * nats-server of its own under `dir`: the kindest rebuild, or `seeds` torn
 * ones per operation (seed of operation `at`, number `s`: `seedOf(at, s)`).
 * `onProgress` hears about every 100th operation.
 */
export async function serveSweep(dir: string, seeds: number, seedOf: (at: number, s: number) => number, onProgress?: (at: number, bad: number) => void): Promise<ServeSweep> {
  const t0 = Date.now();
  const nats = await NatsCluster.start(1, join(dir, 'nats'));
  const log = await LinkLog.open(nats.urls);
  try {
    const batches = serveBatches(dir);
    const ref = await serveRef(dir, log, batches);
    const kept = { files: 0, pagesKept: 0, pagesDropped: 0, namesKept: 0, namesDropped: 0 };
    const bad: ServeOutcome[] = [];
    let trials = 0;
    for (let at = 0; at < ref.trace.length; at++) {
      for (let s = 0; s < Math.max(1, seeds); s++) {
        const o = await serveLossAt(dir, log, batches, ref, at, seeds === 0 ? undefined : seedOf(at, s));
        trials++;
        for (const k of Object.keys(kept) as (keyof typeof kept)[]) kept[k] += o.tally?.[k] ?? 0;
        if (!o.ok) bad.push(o);
      }
      if (at % 100 === 99) onProgress?.(at + 1, bad.length);
    }
    return { ops: ref.trace.length, trials, bad, seconds: Math.round((Date.now() - t0) / 1000), kept };
  } finally {
    await log.close();
    nats.kill();
  }
}
