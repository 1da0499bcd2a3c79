// The bucket half of a merge round: for each bucket with pending keys, load
// them (spill file + RAM buffer), sort and deduplicate them, and merge them
// sequentially with the bucket's sorted key file (store/merge.ts), writing
// the union when asked. A bucket larger than a sort slot is loaded, sorted
// and merged one key slice at a time (bucket/key-range.ts; split into
// per-slice files in one pass first when there are several,
// bucket/slice-partition.ts). The work is cut
// into units (a bucket or a slice) and pipelined over two slots: while this
// thread merges unit i from one slot, the parse pool's worker sorts unit
// i + 1 in the other (shared memory, no copy), so a round's sort and its
// store merge use both cores. Without a worker the sort runs here.
// Does not dispatch URLs or commit; reads and writes files only through the
// BucketFiles and DrumFs it is given (on this thread).
// REQUIRES: units' keys are disjoint and ascending from one unit to the next
// (buckets in order, slices in key order), so one BucketMerge per bucket
// works; nothing else uses the SortArea or the pool's worker 0 while
// mergeBuckets runs (it returns or throws only once no sort is in flight).

import type { PendingBuckets } from '../../bucket/pending.js';
import { bucketRange, planSlices, type Slice } from '../../bucket/key-range.js';
import { MAX_PARTS, type SlicePartition } from '../../bucket/slice-partition.js';
import { sortUnique } from '../../bucket/radix-sort.js';
import type { DrumFs } from '../../io/fs.js';
import type { RunCounters } from '../../stats/counters.js';
import type { KeyReader } from '../../store/key-reader.js';
import { KeyWriter, type WrittenFile } from '../../store/key-writer.js';
import { BucketMerge } from '../../store/merge.js';
import type { ParsePool } from '../workers/parse-pool.js';
import type { ValueEvents } from './value-events.js';
import type { SortArea, SortSlot } from './sort-area.js';

/** Where a round reads each bucket's keys and where it writes the merged file. */
export interface BucketFiles {
  /** `buffer`, when given, is lent to the reader (see READ_BUFFER_BYTES). */
  openReader(b: number, buffer?: Uint8Array): KeyReader | null;
  /** Path for bucket b's merged file in a round that writes, or null to merge without writing. */
  outputPath(b: number): string | null;
  /** Keys currently stored in bucket b (before this round). */
  keysIn(b: number): number;
  /**
   * Block first keys of the file `reader` reads (KeyReader.firstKeys, maybe
   * cached): given, a merge that writes nothing skips the blocks no pending
   * key can be in when the bucket has fewer pending keys than blocks/SKIP_RATIO.
   */
  firstKeys?(b: number, reader: KeyReader): Uint32Array;
}

/**
 * A merge without output skips blocks when pending keys x SKIP_RATIO < blocks.
 * Each key reads at most two blocks: the one it lands on, and the next when
 * the key falls in the gap after it (the unchecked first keys cannot settle that).
 */
const SKIP_RATIO = 2;

export interface BucketRoundParams {
  dfs: DrumFs;
  pending: PendingBuckets;
  files: BucketFiles;
  /** False: merge without writing (DRUM's check); true: write each merged bucket to files.outputPath. */
  write: boolean;
  /** Delete: pending keys found in a file are left out of the written file (BucketMerge's drop). */
  drop?: boolean;
  fsync: boolean;
  counters: Pick<RunCounters, 'diskLookups' | 'inRoundRepeats' | 'diskHits' | 'duplicateUrls' | 'storeHits'>;
  /** Bit o set for each new ordinal o. */
  newBits: Uint8Array;
  /** Each pending key found in the store (warms the hot cache). */
  onHit: ((hi: number, lo: number) => void) | null;
  /** Receives every key written to the new files (Bloom rebuild), or null. */
  keySink: ((keys: Uint32Array, n: number) => void) | null;
  /** Sorts on this pool's worker when given (and it has one); else on this thread. */
  worker: ParsePool | null;
  /** Stores with values: records where merged keys land, per bucket (a check: where its hits are in the file). */
  events?: ValueEvents | null;
  time?: (stage: string, ms: number, items: number) => void;
}

/**
 * A unit to sort and merge: bucket b whole (slice null) or one key slice of
 * it, loaded with its own pass over the bucket or, when the bucket was
 * partitioned, from slice `k` of `part`.
 */
interface Unit {
  b: number;
  slice: Slice | null;
  part: SlicePartition | null;
  k: number;
  first: boolean;
  last: boolean;
}

/** A bucket cut into at least this many slices is partitioned first (below, a pass per slice costs about the same). */
const PARTITION_MIN_SLICES = 3;
/** RAM for a partition's per-slice buffers together. */
const PARTITION_RAM_BYTES = 1 << 20;

/** A unit loaded into a slot, its sort under way or done. */
interface Loaded extends Unit {
  slot: SortSlot;
  seen: number;
  sorted: Promise<number> | number;
  loadMs: number;
}

/** Merges every bucket's pending keys with its store file; returns the files written, by bucket. */
export async function mergeBuckets(p: BucketRoundParams, area: SortArea): Promise<Map<number, { path: string; file: WrittenFile }>> {
  const { pending, files, counters: c } = p;
  const written = new Map<number, { path: string; file: WrittenFile }>();
  const pool = p.worker !== null && p.worker.running > 0 ? p.worker : null;
  area.ensure(pending.largest, pool === null ? 1 : 2);
  if (p.keySink !== null) {
    // Buckets with nothing pending keep their files; the rebuilt Bloom filter still needs their keys.
    for (let b = 0; b < pending.count; b++) if (pending.totals[b] === 0) addStoredKeys(files.openReader(b, area.readBuffer), p.keySink);
  }
  const parts: SlicePartition[] = [];
  const units = unitsOf(pending, area, parts);
  let turn = 0;
  const load = (): Loaded | null => {
    const u = units.next();
    if (u.done === true) return null;
    const t0 = performance.now();
    const slot = area.slots[turn]!;
    turn = (turn + 1) % area.slots.length;
    let seen: number;
    let loaded: number;
    const { b, slice, part, k } = u.value;
    if (slice === null) seen = loaded = pending.load(b, slot.hi, slot.lo, slot.ord, slot.seed, area.scratch);
    else if (part !== null) ({ seen, loaded } = part.load(k, slot.hi, slot.lo, slot.ord, slot.seed, area.scratch));
    else ({ seen, loaded } = pending.loadSlice(b, slice, slot.hi, slot.lo, slot.ord, slot.seed, area.scratch));
    const job = { hi: slot.hi, lo: slot.lo, ord: slot.ord, tHi: area.tHi, tLo: area.tLo, tOrd: area.tOrd, seed: slot.seed, tSeed: area.tSeed, n: loaded };
    const sorted = pool === null ? sortUnique(job.hi, job.lo, job.ord, loaded, job.tHi, job.tLo, job.tOrd, job.seed, job.tSeed) : pool.sortKeys(job);
    return { ...u.value, slot, seen, sorted, loadMs: performance.now() - t0 };
  };
  let next: Loaded | null = null;
  let reader: KeyReader | null = null;
  let writer: KeyWriter | null = null;
  let outPath: string | null = null;
  let merge: BucketMerge | null = null;
  const finishing: { writer: KeyWriter; done: Promise<void> }[] = [];
  try {
    next = load();
    while (next !== null) {
      const cur: Loaded = next;
      const tw = performance.now();
      const u = await cur.sorted;
      next = null;
      // The worker is free: hand it the next unit (the other slot) before merging this one.
      if (pool !== null) next = load();
      const t1 = performance.now();
      p.time?.('sort', cur.loadMs + (t1 - tw) - (next?.loadMs ?? 0), cur.seen);
      if (cur.first) {
        reader = files.openReader(cur.b, area.readBuffer);
        outPath = p.write ? files.outputPath(cur.b) : null;
        writer = outPath === null ? null : new KeyWriter(p.dfs, outPath, cur.b, p.keySink, p.fsync, area.writeBuffers);
        const skip = writer === null && reader !== null && files.firstKeys !== undefined && pending.totals[cur.b]! * SKIP_RATIO < reader.blocks;
        // A round that writes records where merged keys land; a check (events given) where its hits are in the file.
        const events = p.drop === true && writer === null ? null : p.events ?? null;
        events?.begin(cur.b);
        merge = new BucketMerge(reader, writer, p.newBits, p.onHit, skip ? files.firstKeys!(cur.b, reader!) : null, p.drop === true, events);
      }
      merge!.add({ hi: cur.slot.hi, lo: cur.slot.lo, ord: cur.slot.ord, seed: cur.slot.seed, n: u });
      c.diskLookups += cur.seen;
      c.inRoundRepeats += cur.seen - u;
      c.diskHits += cur.seen - u;
      c.duplicateUrls += cur.seen - u;
      let items = u;
      if (cur.last) {
        const r = merge!.finish();
        c.storeHits += r.hits;
        c.diskHits += r.hits;
        c.duplicateUrls += r.hits;
        p.events?.end();
        if (writer !== null) {
          const f = writer.finishLater();
          f.done.catch(() => undefined); // settled below (a failure there is what the round throws)
          finishing.push({ writer, done: f.done });
          written.set(cur.b, { path: outPath!, file: f.file });
        }
        items += r.storeKeys;
        writer = null;
        merge = null;
        reader?.close();
        reader = null;
      }
      p.time?.('merge-store', performance.now() - t1, items);
      // One slot: the next unit loads only once this one is merged.
      if (pool === null) next = load();
    }
    // Every written bucket file durable and renamed (fsyncs overlapping on the thread pool) before the caller commits.
    const tf = performance.now();
    const results = await Promise.allSettled(finishing.map((f) => f.done));
    const failed = results.find((r) => r.status === 'rejected');
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
    p.time?.('merge-store', performance.now() - tf, 0);
  } catch (e) {
    // First of all: a sort still running on the worker writes into a slot and the scratch; wait for it
    // before anything here can throw, so nobody reuses them under it.
    if (next !== null) await Promise.resolve(next.sorted).catch(() => undefined);
    // Then clean up, each step on its own: the first error (the one that stopped the round) is what surfaces.
    // A finishing file not yet renamed: its tmp goes (abort); the renamed ones are unlinked by their final path.
    await Promise.allSettled(finishing.map((f) => f.done));
    const steps: (() => void)[] = [() => writer?.abort(), () => reader?.close(), ...finishing.map((f) => () => f.writer.abort()),
      ...[...written.values()].map((w) => () => p.dfs.unlink(w.path))];
    for (const step of steps) {
      try {
        step();
      } catch {
        // best effort: work files are removed at the next open anyway
      }
    }
    throw e;
  } finally {
    // Slices never loaded (after an error) leave work files: remove them now rather than at the next open.
    for (const part of parts) {
      try {
        part.discard();
      } catch {
        // as above
      }
    }
  }
  return written;
}

/**
 * Units in key order: each bucket with pending keys whole, or its slices
 * when it is bigger than a slot (partitioned first when there are several;
 * each partition made is pushed to `parts`, for cleanup).
 */
function* unitsOf(pending: PendingBuckets, area: SortArea, parts: SlicePartition[]): Generator<Unit> {
  for (let b = 0; b < pending.count; b++) {
    const total = pending.totals[b]!;
    if (total === 0) continue;
    if (total <= area.capacity) {
      yield { b, slice: null, part: null, k: 0, first: true, last: true };
      continue;
    }
    const slices = planSlices(bucketRange(b, pending.bits), total, area.capacity, (r, width, out) => pending.countChildren(b, r, width, out, area.scratch));
    let part: SlicePartition | null = null;
    if (slices.length >= PARTITION_MIN_SLICES && slices.length <= MAX_PARTS) {
      part = pending.partition(b, slices, area.scratch, PARTITION_RAM_BYTES);
      parts.push(part);
    }
    for (let i = 0; i < slices.length; i++) yield { b, slice: slices[i]!, part, k: i, first: i === 0, last: i === slices.length - 1 };
  }
}

function addStoredKeys(reader: KeyReader | null, sink: (keys: Uint32Array, n: number) => void): void {
  if (reader === null) return;
  try {
    while (reader.nextBlock()) sink(reader.keys, reader.n);
  } finally {
    reader.close();
  }
}
