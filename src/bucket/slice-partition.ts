// Splits one bucket's pending entries by key slice into per-slice spill
// files in a single pass, so a bucket sorted in S slices is read about
// three times (read, write, read back) instead of once per slice (S + 1
// passes: quadratic in the bucket's size). Within a slice, entries keep
// arrival order; a `single` slice (one key repeated beyond the sort area)
// keeps only its first entry and counts the rest. The work files
// (spill-bNNNN-sNNNN.dat in the work dir, transient, through DrumFs) are
// deleted as each slice is loaded, or by discard(). Does not sort or plan.
// REQUIRES: slices ascending and disjoint, covering every entry added; at
// most MAX_PARTS of them (each keeps a file open from its first spill until
// its slice is loaded or discarded).

import { join } from 'node:path';
import type { DrumFs } from '../io/fs.js';
import type { Slice } from './key-range.js';
import { SpillFile, spillName, unpackRecords, type RecordWords } from './spill-file.js';

const NO_ENTRIES = new Uint32Array(0);

/** Most slices one partition takes; a bucket cut finer loads each slice with its own pass. */
export const MAX_PARTS = 64;

export class SlicePartition {
  private readonly files: SpillFile[] = [];
  private readonly bufs: Uint32Array[] = [];
  private readonly used: Uint32Array;
  private readonly lowerHi: Uint32Array;
  private readonly lowerLo: Uint32Array;
  private readonly single: Uint8Array;
  /** Entries added per slice (a single slice's repeats included). */
  readonly seen: Float64Array;

  /** `ramBytes`: RAM for the per-slice buffers together (each holds at least 16 entries). */
  /** `words`: words per record, the bucket's (3, or 4 with a seed). */
  constructor(fs: DrumFs, workDir: string, bucket: number, private readonly slices: readonly Slice[], ramBytes: number, readonly words: RecordWords = 3) {
    const s = slices.length;
    if (s < 1 || s > MAX_PARTS) throw new RangeError(`SlicePartition: ${s} slices (1..${MAX_PARTS})`);
    const per = Math.max(16, Math.floor(ramBytes / (4 * words * s)));
    for (let k = 0; k < s; k++) {
      this.files.push(new SpillFile(fs, join(workDir, spillName(bucket, k)), words));
      this.bufs.push(new Uint32Array(words * per));
    }
    this.used = new Uint32Array(s);
    this.seen = new Float64Array(s);
    this.lowerHi = Uint32Array.from(slices, (x) => x.lowerHi);
    this.lowerLo = Uint32Array.from(slices, (x) => x.lowerLo);
    this.single = Uint8Array.from(slices, (x) => (x.single ? 1 : 0));
  }

  /** Adds n interleaved records, the bucket's next entries in arrival order. */
  add(words: Uint32Array, n: number): void {
    const { lowerHi, lowerLo, used, bufs, seen, single } = this;
    const last = lowerHi.length - 1;
    const w = this.words;
    for (let i = 0; i < n; i++) {
      const h = words[w * i]!;
      const l = words[w * i + 1]!;
      // The last slice whose lower bound is <= the key.
      let a = 0;
      let z = last;
      while (a < z) {
        const m = (a + z + 1) >>> 1;
        if (lowerHi[m]! < h || (lowerHi[m] === h && lowerLo[m]! <= l)) a = m;
        else z = m - 1;
      }
      if (++seen[a]! > 1 && single[a] === 1) continue;
      const buf = bufs[a]!;
      let u = used[a]!;
      if (w * u === buf.length) {
        this.files[a]!.append(buf, u);
        u = 0;
      }
      buf[w * u] = h;
      buf[w * u + 1] = l;
      buf[w * u + 2] = words[w * i + 2]!;
      if (w === 4) buf[w * u + 3] = words[w * i + 3]!;
      used[a] = u + 1;
    }
  }

  /**
   * Loads slice k's entries into hi/lo/ord (and seed) from index 0
   * (spilled, then RAM) and deletes its file. Returns how many entries the
   * slice holds and how many were loaded; fails if that is not what the
   * plan counted.
   */
  load(k: number, hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, seed: Uint32Array | null, scratch: Uint8Array): { seen: number; loaded: number } {
    const f = this.files[k]!;
    const n = unpackRecords(this.bufs[k]!, this.used[k]!, this.words, hi, lo, ord, seed, f.readAll(hi, lo, ord, seed, scratch));
    f.discard();
    this.used[k] = 0;
    this.bufs[k] = NO_ENTRIES; // its RAM goes as soon as the slice is loaded
    const seen = this.seen[k]!;
    const s = this.slices[k]!;
    if (seen !== s.count || n !== (s.single ? 1 : seen)) throw new Error(`slice ${k}: ${seen} entries (${n} loaded), ${s.count} planned`);
    return { seen, loaded: n };
  }

  /** Deletes every work file still there (after an error, or slices never loaded); throws the first failure after trying all. */
  discard(): void {
    let first: unknown = null;
    for (const f of this.files) {
      try {
        f.discard();
      } catch (e) {
        first ??= e;
      }
    }
    this.used.fill(0);
    if (first !== null) throw first;
  }
}
