// One merge round, DRUM's "check+update" over everything pending: every
// bucket's pending keys are sorted, deduplicated and merged sequentially
// with its sorted key file (sort-stage.ts: a bucket bigger than a sort slot
// goes one key slice at a time, and with a worker the sort of the next unit
// overlaps this thread's merge), then the aux log is streamed once and the
// new URLs dispatched in exact arrival order. With a worker and a block
// sink, the aux log is streamed on the worker while this thread writes
// (dispatch.ts). Optionally rebuilds the Bloom filter from every stored key
// as it streams past. Does not commit (the caller names the new files in a
// manifest) and does not read inputs.

import type { AuxLog } from '../../bucket/aux-log.js';
import type { PendingBuckets } from '../../bucket/pending.js';
import type { RunCounters } from '../../stats/counters.js';
import type { WrittenFile } from '../../store/key-writer.js';
import type { DrumFs } from '../../io/fs.js';
import { BlockedBloom } from '../../tiers/bloom.js';
import type { Front } from './front.js';
import { countBoth, dispatchOnWorker, type BlockSink } from '../workers/dispatch.js';
import type { ParsePool } from '../workers/parse-pool.js';
import { mergeBuckets, type BucketFiles, type SortArea } from './sort-stage.js';

/** Rounds with fewer aux records sort and dispatch on this thread: worker round trips would cost more. */
export const WORKER_DISPATCH_MIN_RECORDS = 1 << 16;

export interface RoundResult {
  /** Merged files written, by bucket. */
  written: Map<number, { path: string; file: WrittenFile }>;
  newUrls: number;
  /** Rebuilt Bloom filter (ingest with a Bloom mode), else null. */
  bloom: BlockedBloom | null;
}

export interface RoundParams {
  dfs: DrumFs;
  pending: PendingBuckets;
  aux: AuxLog;
  front: Front;
  counters: RunCounters;
  files: BucketFiles;
  fsync: boolean;
  /** Rebuild the Bloom filter for this many keys at most (0 = no Bloom). */
  bloomKeys: number;
  bloomBitsPerKey: number;
  /** Receives each new URL, in arrival order (when the round dispatches on this thread). */
  emit: (buf: Buffer, start: number, end: number) => void;
  /**
   * The pool whose worker the round uses when it has one and the round holds
   * at least `minRecords` records (default WORKER_DISPATCH_MIN_RECORDS): it
   * sorts the units (overlapping this thread's merge) and, given a `sink`,
   * dispatches; smaller rounds do both on this thread.
   */
  worker?: { pool: ParsePool; minRecords?: number };
  /** With the worker: the new URLs go to `sink` in whole blocks of lines; else to `emit` per URL. */
  sink?: BlockSink;
  /** False (a check): store hits are not promoted into the hot cache, whose keys a later job trusts. Default true. */
  learn?: boolean;
  /**
   * Adds wall time per sub-stage: 'sort' (load + radix sort + dedupe; with a
   * worker sorting, only this thread's load and wait), 'merge-store', 'dispatch'.
   */
  time?: (stage: string, ms: number, items: number) => void;
}

export async function mergeRound(p: RoundParams, area: SortArea): Promise<RoundResult> {
  const { pending, aux, front, counters: c, files } = p;
  aux.flush();
  const entries = aux.records;
  // Shared, so a worker can read it without a copy.
  const newBits = new Uint8Array(new SharedArrayBuffer((entries >>> 3) + 1));
  const cache = front.cache;
  const onHit = p.learn === false ? null : (hi: number, lo: number): void => cache.insert(hi, lo);
  let bloom: BlockedBloom | null = null;
  if (p.bloomKeys > 0) {
    let expected = pending.total;
    for (let b = 0; b < pending.count; b++) expected += files.keysIn(b);
    bloom = BlockedBloom.forKeys(Math.min(p.bloomKeys, Math.max(1024, Math.ceil(expected * 1.5))), p.bloomBitsPerKey);
  }
  const keySink = bloom === null ? null : (keys: Uint32Array, n: number): void => bloom!.addPairs(keys, n);
  const w = p.worker;
  const worker = w !== undefined && w.pool.size > 0 && entries > 0 && entries >= (w.minRecords ?? WORKER_DISPATCH_MIN_RECORDS) ? w.pool : null;
  const written = await mergeBuckets({
    dfs: p.dfs, pending, files, fsync: p.fsync, counters: c, newBits, onHit, keySink, worker, time: p.time,
  }, area);
  let newUrls = 0;
  const td = performance.now();
  const maybe = front.bloomMode === 'gate' ? front.maybeSeen : null;
  if (worker !== null && p.sink !== undefined) {
    newUrls = await dispatchOnWorker(worker, aux, newBits, p.sink, p.dfs);
    if (maybe !== null) c.bloomFalsePositives += countBoth(newBits, maybe, (entries >>> 3) + 1);
  } else {
    aux.forEachWanted(newBits, 4 << 20, (ordinal, buf, start, end) => {
      p.emit(buf, start, end);
      newUrls++;
      if (maybe !== null && (maybe[ordinal >>> 3]! >>> (ordinal & 7)) & 1) c.bloomFalsePositives++;
    });
  }
  p.time?.('dispatch', performance.now() - td, newUrls);
  c.uniqueUrls += newUrls;
  c.merges++;
  c.spills += pending.spillsThisRound;
  return { written, newUrls, bloom };
}
