// DRUM's buckets: keys waiting for the next merge. Each key goes to the RAM
// buffer of the bucket named by its top bits; a full buffer spills to that
// bucket's disk file. In a store with values each key carries one more
// word, its seed (IRLbot's value in the <key, value> bucket: what the
// values pass needs of the record, e.g. a URL's host check), so a round
// holds nothing per record in RAM beyond its bucket buffer. At merge time a bucket's keys (spilled + in RAM, in
// arrival order) are loaded into sort arrays, whole or one key slice at a
// time (key-range.ts plans the slices; countChildren feeds it; a bucket cut
// into several slices is split into per-slice files in one pass first,
// slice-partition.ts). Does not sort, merge or hold URL text (the aux log does).
// REQUIRES: ordinals handed in ascending order.

import { join } from 'node:path';
import type { DrumFs } from '../io/fs.js';
import { digitOf, inPrefix, inSlice, rangeWords, type PrefixRange, type Slice } from './key-range.js';
import { SlicePartition } from './slice-partition.js';
import { SpillFile, spillName, unpackRecords, type RecordWords } from './spill-file.js';

export class PendingBuckets {
  readonly count: number;
  private readonly shift: number;
  private readonly buffers: Uint32Array[];
  private readonly used: Uint32Array;
  private readonly spills: SpillFile[];
  /** Entries per bucket this round (spilled + in RAM). */
  readonly totals: Float64Array;
  /** Entries in all buckets this round. */
  total = 0;
  /** Spill writes this round, and since the store was opened. */
  spillsThisRound = 0;
  spillWrites = 0;
  /** The largest bucket total this round. */
  largest = 0;

  /** Words per record: 3 (hi, lo, ordinal), 4 when `seeded` (and the seed). */
  readonly words: RecordWords;

  constructor(
    private readonly fs: DrumFs,
    private readonly workDir: string,
    bucketBits: number,
    readonly bufferEntries: number,
    readonly seeded = false,
  ) {
    this.count = 1 << bucketBits;
    this.shift = 32 - bucketBits;
    this.words = seeded ? 4 : 3;
    this.buffers = [];
    this.spills = [];
    for (let b = 0; b < this.count; b++) {
      this.buffers.push(new Uint32Array(bufferEntries * this.words));
      this.spills.push(new SpillFile(fs, join(workDir, spillName(b)), this.words));
    }
    this.used = new Uint32Array(this.count);
    this.totals = new Float64Array(this.count);
  }

  /** RAM held by the bucket buffers. */
  get bytes(): number {
    return this.count * this.bufferEntries * 4 * this.words;
  }

  /** Bucket bits: the bucket is the key's top `bits` bits. */
  get bits(): number {
    return 32 - this.shift;
  }

  bucketOf(hi: number): number {
    return this.shift === 32 ? 0 : hi >>> this.shift;
  }

  /** Adds a key with its ordinal and, in a seeded store, its seed (ignored otherwise). */
  add(hi: number, lo: number, ordinal: number, seed = 0): void {
    const b = this.shift === 32 ? 0 : hi >>> this.shift;
    const buf = this.buffers[b]!;
    let u = this.used[b]!;
    if (u === this.bufferEntries) {
      this.spills[b]!.append(buf, u);
      this.spillsThisRound++;
      this.spillWrites++;
      u = 0;
    }
    const at = u * this.words;
    buf[at] = hi;
    buf[at + 1] = lo;
    buf[at + 2] = ordinal;
    if (this.seeded) buf[at + 3] = seed;
    this.used[b] = u + 1;
    const t = ++this.totals[b]!;
    if (t > this.largest) this.largest = t;
    this.total++;
  }

  /**
   * Loads bucket b's entries (spilled first, then RAM) into hi/lo/ord (and
   * seed, in a seeded store) from index 0, in arrival order. Returns the
   * number loaded.
   */
  load(b: number, hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, seed: Uint32Array | null, scratch: Uint8Array): number {
    const n = this.spills[b]!.readAll(hi, lo, ord, seed, scratch);
    return unpackRecords(this.buffers[b]!, this.used[b]!, this.words, hi, lo, ord, seed, n);
  }

  /**
   * Bucket b's entries (spilled, then RAM) as interleaved records of
   * `words` words, a block at a time, in arrival order.
   */
  private forEachBlock(b: number, scratch: Uint8Array, visit: (words: Uint32Array, n: number) => void): void {
    this.spills[b]!.forEachBlock(scratch, visit);
    visit(this.buffers[b]!, this.used[b]!);
  }

  /** Counts bucket b's entries in prefix range r by their next `width` key bits into out (zeroed first). */
  countChildren(b: number, r: PrefixRange, width: number, out: Float64Array, scratch: Uint8Array): void {
    out.fill(0);
    const { baseHi, baseLo } = rangeWords(r);
    const p = r.bits;
    const k = this.words;
    this.forEachBlock(b, scratch, (w, n) => {
      for (let i = 0; i < n; i++) {
        const h = w[k * i]!, l = w[k * i + 1]!;
        if (inPrefix(r, baseHi, baseLo, h, l)) out[digitOf(h, l, p, width)]!++;
      }
    });
  }

  /**
   * Loads bucket b's entries inside slice s into hi/lo/ord (and seed) from
   * index 0, in arrival order (a `single` slice: its first entry only).
   * Returns how many entries the slice holds and how many were loaded.
   */
  loadSlice(
    b: number, s: Slice, hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, seed: Uint32Array | null, scratch: Uint8Array,
  ): { seen: number; loaded: number } {
    let seen = 0;
    let n = 0;
    const cap = s.single ? 1 : hi.length;
    const k = this.words;
    this.forEachBlock(b, scratch, (w, m) => {
      for (let i = 0; i < m; i++) {
        const h = w[k * i]!, l = w[k * i + 1]!;
        if (!inSlice(s, h, l)) continue;
        seen++;
        if (n === cap) continue;
        hi[n] = h;
        lo[n] = l;
        ord[n] = w[k * i + 2]!;
        if (k === 4) seed![n] = w[k * i + 3]!;
        n++;
      }
    });
    if (seen !== s.count || (!s.single && n !== seen)) {
      throw new Error(`bucket ${b}: slice holds ${seen} entries (${n} loaded), ${s.count} planned`);
    }
    return { seen, loaded: n };
  }

  /**
   * Splits bucket b's entries by slice into per-slice work files in one pass
   * (slice-partition.ts; `ramBytes` for its buffers). The caller loads each
   * slice from it and discards it.
   */
  partition(b: number, slices: readonly Slice[], scratch: Uint8Array, ramBytes: number): SlicePartition {
    const part = new SlicePartition(this.fs, this.workDir, b, slices, ramBytes, this.words);
    try {
      this.forEachBlock(b, scratch, (w, n) => part.add(w, n));
    } catch (e) {
      part.discard();
      throw e;
    }
    return part;
  }

  /** Empties every bucket and deletes spill files, ready for the next round. */
  reset(): void {
    for (let b = 0; b < this.count; b++) {
      this.spills[b]!.discard();
      this.used[b] = 0;
      this.totals[b] = 0;
    }
    this.total = 0;
    this.largest = 0;
    this.spillsThisRound = 0;
  }
}
