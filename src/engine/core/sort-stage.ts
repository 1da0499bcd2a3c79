// The bucket half of a merge round: for each bucket with pending keys, load
// them (spill file + RAM buffer), sort and deduplicate them, and merge them
// sequentially with the bucket's sorted key file (store/keys/merge.ts), writing
// the union when asked. A bucket larger than a sort slot is loaded, sorted
// and merged one key slice at a time (bucket/key-range.ts; split into
// per-slice files in one pass first when there are several,
// bucket/slice-partition.ts). The work is cut into units (a bucket or a
// slice, sort-units.ts) and pipelined over two slots: while this thread
// merges unit i from one slot, the parse pool's worker sorts unit i + 1 in
// the other (shared memory, no copy), so a round's sort and its store merge
// use both cores. Without a worker the sort runs here. mergeBuckets runs the
// round's stages in turn: units loaded and merged (opening and closing each
// bucket), written files settled, and on a failure the round undone.
// Does not dispatch URLs or commit; reads and writes files only through the
// BucketFiles and DrumFs it is given (on this thread).
// REQUIRES: units' keys are disjoint and ascending from one unit to the next
// (buckets in order, slices in key order), so one BucketMerge per bucket
// works; nothing else uses the SortArea or the pool's worker 0 while
// mergeBuckets runs (it returns or throws only once no sort is in flight).

import { dirname } from 'node:path';
import type { PendingBuckets } from '../../bucket/pending.js';
import type { SlicePartition } from '../../bucket/slice-partition.js';
import { sortUnique } from '../../bucket/radix-sort.js';
import type { DrumFs } from '../../io/fs.js';
import type { RunCounters } from '../../stats/counters.js';
import type { KeyReader } from '../../store/keys/key-reader.js';
import { KeyWriter, type WrittenFile } from '../../store/keys/key-writer.js';
import { FinishingFiles } from '../../store/blocks/tmp-file-writer.js';
import { BucketMerge } from '../../store/keys/merge.js';
import type { ParsePool } from '../workers/parse-pool.js';
import type { ValueEvents } from './value-events.js';
import type { SortArea, SortSlot } from './sort-area.js';
import { unitsOf, type Unit } from './sort-units.js';

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
  /**
   * Runs once every bucket is merged, while the new key files' fsyncs are
   * still under way (the values pass), before mergeBuckets waits for them;
   * a failure undoes the round as a merge's does.
   */
  whileSettling?: (written: Map<number, Written>) => Promise<void>;
}

/** A unit loaded into a slot, its sort under way or done. */
interface Loaded extends Unit {
  slot: SortSlot;
  seen: number;
  sorted: Promise<number> | number;
  loadMs: number;
}

/**
 * A bucket file a round wrote: its final path and what the writer reports of
 * it; and, when the round's values pass (whileSettling) wrote one, its values
 * file, or its values delta (`delta`: its entries) after the committed values.
 */
export type Written = { path: string; file: WrittenFile; values?: { path: string; file: WrittenFile; delta?: number } };

/**
 * One round's state from unit to unit: the unit loaded next, the bucket
 * being merged (its store file, its new file and their merge) and the files
 * written so far. The stages below read and set it in place, so a failure
 * at any step leaves exactly what the cleanup has to undo.
 */
interface Round {
  readonly p: BucketRoundParams;
  readonly area: SortArea;
  /** The worker that sorts (two slots), or null: sorts run on this thread (one slot). */
  readonly pool: ParsePool | null;
  readonly units: Generator<Unit>;
  /** Every partition unitsOf made, discarded when the round ends. */
  readonly parts: SlicePartition[];
  /** The slot the next unit loads into. */
  turn: number;
  /** The unit loaded next, its sort maybe still running on the worker. */
  next: Loaded | null;
  reader: KeyReader | null;
  writer: KeyWriter | null;
  outPath: string | null;
  merge: BucketMerge | null;
  /** Written files still being flushed, fsynced and renamed. */
  readonly finishing: FinishingFiles;
  readonly written: Map<number, Written>;
}

/** Merges every bucket's pending keys with its store file; returns the files written, by bucket. */
export async function mergeBuckets(p: BucketRoundParams, area: SortArea): Promise<Map<number, Written>> {
  const { pending, files } = p;
  const written = new Map<number, Written>();
  const pool = p.worker !== null && p.worker.running > 0 ? p.worker : null;
  area.ensure(pending.largest, pool === null ? 1 : 2);
  if (p.keySink !== null) {
    // Buckets with nothing pending keep their files; the rebuilt Bloom filter still needs their keys.
    for (let b = 0; b < pending.count; b++) if (pending.totals[b] === 0) addStoredKeys(files.openReader(b, area.readBuffer), p.keySink);
  }
  const parts: SlicePartition[] = [];
  const r: Round = {
    p, area, pool, units: unitsOf(pending, area, parts), parts, turn: 0,
    next: null, reader: null, writer: null, outPath: null, merge: null, finishing: new FinishingFiles(), written,
  };
  try {
    await mergeUnits(r);
    await p.whileSettling?.(written);
    await settleWritten(r);
  } catch (e) {
    await abandonRound(r);
    throw e;
  } finally {
    discardPartitions(parts);
  }
  return written;
}

/**
 * Sorts and merges every unit in key order. With the worker, unit i + 1 is
 * handed to it (the other slot) as soon as unit i is sorted, before unit i
 * is merged here; with one slot, the next unit loads once this one is merged.
 */
async function mergeUnits(r: Round): Promise<void> {
  const { p, pool } = r;
  const c = p.counters;
  r.next = loadUnit(r);
  while (r.next !== null) {
    const cur: Loaded = r.next;
    const tw = performance.now();
    const u = await cur.sorted;
    r.next = null;
    // The worker is free: hand it the next unit (the other slot) before merging this one.
    if (pool !== null) r.next = loadUnit(r);
    const t1 = performance.now();
    p.time?.('sort', cur.loadMs + (t1 - tw) - (r.next?.loadMs ?? 0), cur.seen);
    if (cur.first) openBucket(r, cur.b);
    r.merge!.add({ hi: cur.slot.hi, lo: cur.slot.lo, ord: cur.slot.ord, seed: cur.slot.seed, n: u });
    c.diskLookups += cur.seen;
    c.inRoundRepeats += cur.seen - u;
    c.diskHits += cur.seen - u;
    c.duplicateUrls += cur.seen - u;
    let items = u;
    if (cur.last) items += closeBucket(r, cur.b);
    p.time?.('merge-store', performance.now() - t1, items);
    // One slot: the next unit loads only once this one is merged.
    if (pool === null) r.next = loadUnit(r);
  }
}

/** Loads the next unit into the next slot and starts its sort (on the worker, else here); null when none is left. */
function loadUnit(r: Round): Loaded | null {
  const u = r.units.next();
  if (u.done === true) return null;
  const { area, pool } = r;
  const pending = r.p.pending;
  const t0 = performance.now();
  const slot = area.slots[r.turn]!;
  r.turn = (r.turn + 1) % area.slots.length;
  let seen: number;
  let loaded: number;
  const { b, slice, part, k } = u.value;
  if (slice === null) seen = loaded = pending.load(b, slot.hi, slot.lo, slot.ord, slot.seed, area.scratch);
  else if (part !== null) ({ seen, loaded } = part.load(k, slot.hi, slot.lo, slot.ord, slot.seed, area.scratch));
  else ({ seen, loaded } = pending.loadSlice(b, slice, slot.hi, slot.lo, slot.ord, slot.seed, area.scratch));
  const job = { hi: slot.hi, lo: slot.lo, ord: slot.ord, tHi: area.tHi, tLo: area.tLo, tOrd: area.tOrd, seed: slot.seed, tSeed: area.tSeed, n: loaded };
  const sorted = pool === null ? sortUnique(job.hi, job.lo, job.ord, loaded, job.tHi, job.tLo, job.tOrd, job.seed, job.tSeed) : pool.sortKeys(job);
  return { ...u.value, slot, seen, sorted, loadMs: performance.now() - t0 };
}

/** Before bucket b's first unit: opens its store file, its new file when the round writes, and the merge between them. */
function openBucket(r: Round, b: number): void {
  const { p, area } = r;
  const files = p.files;
  r.reader = files.openReader(b, area.readBuffer);
  r.outPath = p.write ? files.outputPath(b) : null;
  r.writer = r.outPath === null ? null : new KeyWriter(p.dfs, r.outPath, b, p.keySink, p.fsync, area.writeBuffers);
  const skip = r.writer === null && r.reader !== null && files.firstKeys !== undefined && p.pending.totals[b]! * SKIP_RATIO < r.reader.blocks;
  // A round that writes records where merged keys land; a check (events given) where its hits are in the file.
  const events = p.drop === true && r.writer === null ? null : p.events ?? null;
  events?.begin(b);
  r.merge = new BucketMerge(r.reader, r.writer, p.newBits, p.onHit, skip ? files.firstKeys!(b, r.reader!) : null, p.drop === true, events);
}

/**
 * After bucket b's last unit: finishes its merge and counts its store hits,
 * starts its new file's flush, fsync and rename (settled by settleWritten),
 * and closes its store file. Returns the stored keys the merge read.
 */
function closeBucket(r: Round, b: number): number {
  const { p, finishing } = r;
  const c = p.counters;
  const res = r.merge!.finish();
  c.storeHits += res.hits;
  c.diskHits += res.hits;
  c.duplicateUrls += res.hits;
  p.events?.end();
  if (r.writer !== null) r.written.set(b, { path: r.outPath!, file: finishing.finish(r.writer) });
  r.writer = null;
  r.merge = null;
  r.reader?.close();
  r.reader = null;
  return res.storeKeys;
}

/**
 * Every written bucket file durable and renamed (fsyncs overlapping on the
 * thread pool), then the directories they were renamed into fsynced, so the
 * names are durable too before the caller's manifest names them (the
 * manifest's own directory fsync covers only the state directory); throws
 * the first failure.
 */
async function settleWritten(r: Round): Promise<void> {
  const tf = performance.now();
  await r.finishing.settle();
  if (r.p.fsync) {
    const dirs = new Set([...r.written.values()].flatMap((w) => (w.values === undefined ? [w.path] : [w.path, w.values.path])).map((f) => dirname(f)));
    for (const d of dirs) r.p.dfs.fsyncDir(d);
  }
  r.p.time?.('merge-store', performance.now() - tf, 0);
}

/** After a failure: waits for a sort still in flight, then undoes what the round wrote, best effort. Never throws. */
async function abandonRound(r: Round): Promise<void> {
  // First of all: a sort still running on the worker writes into a slot and the scratch; wait for it
  // before anything here can throw, so nobody reuses them under it.
  if (r.next !== null) await Promise.resolve(r.next.sorted).catch(() => undefined);
  // Then clean up, each step on its own: the first error (the one that stopped the round) is what surfaces.
  // A finishing file not yet renamed: its tmp goes (abort); the renamed ones, values files too, are unlinked by their final path.
  await r.finishing.abandon();
  const paths = [...r.written.values()].flatMap((w) => (w.values === undefined ? [w.path] : [w.path, w.values.path]));
  const steps: (() => void)[] = [() => r.writer?.abort(), () => r.reader?.close(), ...paths.map((path) => () => r.p.dfs.unlink(path))];
  for (const step of steps) {
    try {
      step();
    } catch {
      // best effort: work files are removed at the next open anyway
    }
  }
}

/** Slices never loaded (after an error) leave work files: removes them now rather than at the next open. */
function discardPartitions(parts: SlicePartition[]): void {
  for (const part of parts) {
    try {
      part.discard();
    } catch {
      // best effort, as abandonRound's steps
    }
  }
}

/** Hands every key of a store file to `sink` (a Bloom rebuild), then closes it. */
function addStoredKeys(reader: KeyReader | null, sink: (keys: Uint32Array, n: number) => void): void {
  if (reader === null) return;
  try {
    while (reader.nextBlock()) sink(reader.keys, reader.n);
  } finally {
    reader.close();
  }
}
