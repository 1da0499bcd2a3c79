// One merge round, DRUM's "check+update" over everything pending: for each
// bucket with pending keys, load them (spill file + RAM buffer), radix-sort,
// drop in-round repeats, merge sequentially with the bucket's sorted key
// file (writing the union to a new file when asked), then stream the aux log
// once and dispatch the new URLs in exact arrival order. A bucket larger
// than the sort area is loaded, sorted and merged one key slice at a time
// (bucket/key-range.ts), so the sort area bounds the merge's RAM whatever
// the buckets' skew. With a worker and a block sink, the aux log is streamed
// on the worker while this thread writes (dispatch.ts). Optionally rebuilds
// the Bloom filter from every stored key as it streams past. Does not commit
// (the caller names the new files in a manifest) and does not read inputs.

import type { AuxLog } from '../bucket/aux-log.js';
import type { PendingBuckets } from '../bucket/pending.js';
import { bucketRange, planSlices, type Slice } from '../bucket/key-range.js';
import { dedupeSorted, radixSortKeys } from '../bucket/radix-sort.js';
import type { RunCounters } from '../stats/counters.js';
import type { KeyReader } from '../store/key-reader.js';
import { KeyWriter, newWriteBuffers, type WrittenFile } from '../store/key-writer.js';
import { READ_BUFFER_BYTES } from '../store/key-reader.js';
import { BucketMerge } from '../store/merge.js';
import type { DrumFs } from '../io/fs.js';
import { BlockedBloom } from '../tiers/bloom.js';
import type { Front } from './front.js';
import { countBoth, dispatchOnWorker, type BlockSink } from './dispatch.js';
import type { ParsePool } from './parse-pool.js';

/** Rounds with fewer aux records dispatch on this thread: a worker round trip would cost more. */
export const WORKER_DISPATCH_MIN_RECORDS = 1 << 16;

/** Where a round reads each bucket's keys and where it writes the merged file. */
export interface BucketFiles {
  /** `buffer`, when given, is lent to the reader (see READ_BUFFER_BYTES). */
  openReader(b: number, buffer?: Uint8Array): KeyReader | null;
  /** Path for bucket b's merged file, or null to merge without writing (read-only check). */
  outputPath(b: number): string | null;
  /** Keys currently stored in bucket b (before this round). */
  keysIn(b: number): number;
}

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
   * Dispatch through the pool's worker into `sink` (whole blocks of lines) for
   * rounds of at least `minRecords` records (default WORKER_DISPATCH_MIN_RECORDS),
   * when the pool has a worker; else `emit` per URL.
   */
  dispatch?: { pool: ParsePool; sink: BlockSink; minRecords?: number };
  /** Adds wall time per sub-stage: 'sort' (load + radix sort + dedupe), 'merge-store', 'dispatch'. */
  time?: (stage: string, ms: number, items: number) => void;
}

/**
 * Sort arrays reused across rounds; they grow to the largest bucket seen,
 * up to `capacity` entries (then buckets are sorted in slices).
 */
export class SortArea {
  hi = new Uint32Array(0);
  lo = new Uint32Array(0);
  ord = new Uint32Array(0);
  tHi = new Uint32Array(0);
  tLo = new Uint32Array(0);
  tOrd = new Uint32Array(0);
  readonly scratch = new Uint8Array(1 << 20);
  /** Read and write buffers lent to every bucket's key reader and writer in turn. */
  readonly readBuffer = new Uint8Array(READ_BUFFER_BYTES);
  readonly writeBuffers = newWriteBuffers();

  /** `capacity`: most entries one sort holds (the budget's sort area / SORT_BYTES_PER_ENTRY). */
  constructor(readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('SortArea: capacity must be at least 1');
  }

  ensure(n: number): void {
    n = Math.min(n, this.capacity);
    if (this.hi.length >= n) return;
    const cap = Math.max(n, 1024);
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.ord = new Uint32Array(cap);
    this.tHi = new Uint32Array(cap);
    this.tLo = new Uint32Array(cap);
    this.tOrd = new Uint32Array(cap);
  }
}

export async function mergeRound(p: RoundParams, area: SortArea): Promise<RoundResult> {
  const { pending, aux, front, counters: c, files } = p;
  aux.flush();
  const entries = aux.records;
  // Shared, so a worker can read it without a copy.
  const newBits = new Uint8Array(new SharedArrayBuffer((entries >>> 3) + 1));
  const written = new Map<number, { path: string; file: WrittenFile }>();
  const cache = front.cache;
  const onHit = (hi: number, lo: number): void => cache.insert(hi, lo);
  let bloom: BlockedBloom | null = null;
  if (p.bloomKeys > 0) {
    let expected = pending.total;
    for (let b = 0; b < pending.count; b++) expected += files.keysIn(b);
    bloom = BlockedBloom.forKeys(Math.min(p.bloomKeys, Math.max(1024, Math.ceil(expected * 1.5))), p.bloomBitsPerKey);
  }
  const sink = bloom === null ? null : (keys: Uint32Array, n: number): void => bloom!.addPairs(keys, n);
  area.ensure(pending.largest);
  for (let b = 0; b < pending.count; b++) {
    const total = pending.totals[b]!;
    if (total === 0) {
      if (sink !== null) addStoredKeys(files.openReader(b, area.readBuffer), sink);
      continue;
    }
    const reader = files.openReader(b, area.readBuffer);
    const outPath = files.outputPath(b);
    const writer = outPath === null ? null : new KeyWriter(p.dfs, outPath, b, sink, p.fsync, area.writeBuffers);
    try {
      const merge = new BucketMerge(reader, writer, newBits, onHit);
      // Sorts what is loaded in area[0, loaded) and merges it; `seen` counts the entries it stands for.
      const pass = (seen: number, loaded: number, t0: number): void => {
        radixSortKeys(area.hi, area.lo, area.ord, loaded, area.tHi, area.tLo, area.tOrd);
        const u = dedupeSorted(area.hi, area.lo, area.ord, loaded);
        const t1 = performance.now();
        p.time?.('sort', t1 - t0, seen);
        merge.add({ hi: area.hi, lo: area.lo, ord: area.ord, n: u });
        c.diskLookups += seen;
        c.inRoundRepeats += seen - u;
        c.diskHits += seen - u;
        c.duplicateUrls += seen - u;
        p.time?.('merge-store', performance.now() - t1, u);
      };
      if (total <= area.capacity) {
        const t0 = performance.now();
        const n = pending.load(b, area.hi, area.lo, area.ord, area.scratch);
        pass(n, n, t0);
      } else {
        for (const s of planBucket(pending, b, total, area)) {
          const t0 = performance.now();
          const { seen, loaded } = pending.loadSlice(b, s, area.hi, area.lo, area.ord, area.scratch);
          pass(seen, loaded, t0);
        }
      }
      const t2 = performance.now();
      const r = merge.finish();
      c.storeHits += r.hits;
      c.diskHits += r.hits;
      c.duplicateUrls += r.hits;
      if (writer !== null) written.set(b, { path: outPath!, file: writer.finish() });
      p.time?.('merge-store', performance.now() - t2, r.storeKeys);
    } catch (e) {
      writer?.abort();
      for (const w of written.values()) p.dfs.unlink(w.path);
      throw e;
    } finally {
      reader?.close();
    }
  }
  let newUrls = 0;
  const td = performance.now();
  const maybe = front.bloomMode === 'gate' ? front.maybeSeen : null;
  const d = p.dispatch;
  if (d !== undefined && d.pool.size > 0 && entries > 0 && entries >= (d.minRecords ?? WORKER_DISPATCH_MIN_RECORDS)) {
    newUrls = await dispatchOnWorker(d.pool, aux, newBits, d.sink, p.dfs);
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

/** Key slices of bucket b that each fit the sort area, in ascending key order. */
function planBucket(pending: PendingBuckets, b: number, total: number, area: SortArea): Slice[] {
  return planSlices(bucketRange(b, pending.bits), total, area.capacity, (r, width, out) => pending.countChildren(b, r, width, out, area.scratch));
}

function addStoredKeys(reader: KeyReader | null, sink: (keys: Uint32Array, n: number) => void): void {
  if (reader === null) return;
  try {
    while (reader.nextBlock()) sink(reader.keys, reader.n);
  } finally {
    reader.close();
  }
}
