// One merge round of URL-seen, the DRUM core's first client: DRUM's
// "check+update" (or "check") over everything pending, through DrumCore
// (drum-core.ts: sort, merge with the key files, dispatch the new URLs in
// arrival order, on the worker when the round is large). Around the core it
// does what belongs to the tiers: a store hit warms the hot cache, the Bloom
// filter is rebuilt from every stored key as it streams past, and the gate's
// false positives are counted from the round's verdicts. Does not commit
// (the caller names the new files in a manifest) and does not read inputs.

import type { RunCounters } from '../../stats/counters.js';
import { BlockedBloom } from '../../tiers/bloom.js';
import type { Front } from './front.js';
import { countBoth, type BlockSink } from '../workers/dispatch.js';
import type { ParsePool } from '../workers/parse-pool.js';
import type { BucketFiles } from '../core/sort-stage.js';
import type { CoreOp, CoreValues, DrumCore, WrittenBucket } from '../core/drum-core.js';

export { WORKER_DISPATCH_MIN_RECORDS } from '../core/drum-core.js';

export interface RoundResult {
  /** Merged files written, by bucket. */
  written: Map<number, WrittenBucket>;
  newUrls: number;
  /** Bit o set when ordinal o's key was new (DrumCore's verdicts; valid until the next round). */
  newBits: Uint8Array;
  /** Rebuilt Bloom filter (ingest with a Bloom mode), else null. */
  bloom: BlockedBloom | null;
}

export interface RoundParams {
  core: DrumCore;
  /** 'check+update' (default) writes the union to `files`; 'check' writes nothing. Both dispatch. */
  op?: Exclude<CoreOp, 'update'>;
  front: Front;
  counters: RunCounters;
  files: BucketFiles;
  fsync: boolean;
  /** Rebuild the Bloom filter for this many keys at most (0 = no Bloom). */
  bloomKeys: number;
  bloomBitsPerKey: number;
  /** Receives each new URL with its arrival ordinal, in arrival order (when the round dispatches on this thread). */
  emit: (buf: Buffer, start: number, end: number, ordinal: number) => void;
  /** See CoreRound.worker. */
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
  /** Stores with values: the values files and hooks (see DrumCore). */
  values?: CoreValues;
}

export async function mergeRound(p: RoundParams): Promise<RoundResult> {
  const { core, front, counters: c, files } = p;
  const pending = core.pending;
  const cache = front.cache;
  const onHit = p.learn === false ? null : (hi: number, lo: number): void => cache.insert(hi, lo);
  let bloom: BlockedBloom | null = null;
  if (p.bloomKeys > 0) {
    let expected = pending.total;
    for (let b = 0; b < pending.count; b++) expected += files.keysIn(b);
    bloom = BlockedBloom.forStore(expected, p.bloomBitsPerKey, p.bloomKeys);
  }
  const keySink = bloom === null ? null : (keys: Uint32Array, n: number): void => bloom!.addPairs(keys, n);
  const v = await core.merge(p.op ?? 'check+update', {
    files, fsync: p.fsync, counters: c, onHit, keySink, emit: p.emit, sink: p.sink, worker: p.worker, time: p.time, values: p.values,
  });
  // New URLs the Bloom gate had called "maybe seen": its false positives.
  if (front.bloomMode === 'gate') c.bloomFalsePositives += countBoth(v.newBits, front.maybeSeen, (v.records >>> 3) + 1);
  c.uniqueUrls += v.newKeys;
  c.merges++;
  c.spills += pending.spillsThisRound;
  return { written: v.written, newUrls: v.newKeys, newBits: v.newBits, bloom };
}
