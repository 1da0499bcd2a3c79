// Append-only spill file of one bucket for the current merge round: records
// of (hi, lo, ordinal) u32 LE, or (hi, lo, ordinal, seed) in a store with
// values (the seed is the word the key carries to the values pass), in
// arrival order (docs/file-format.md). Transient: never part of committed
// state, so no checksum. Does not sort.

import type { DrumFs } from '../io/fs.js';

export const SPILL_RECORD_BYTES = 4 + 4 + 4; // hi, lo, ordinal
export const SEEDED_SPILL_RECORD_BYTES = 4 + 4 + 4 + 4; // hi, lo, ordinal, seed
/** Words of a pending record: 3 (hi, lo, ordinal), or 4 with a seed. */
export type RecordWords = 3 | 4;

/** Name of bucket b's spill file (`spill-bNNNN.dat`), or of its slice k's work file (`spill-bNNNN-sNNNN.dat`). */
export function spillName(b: number, k?: number): string {
  const slice = k === undefined ? '' : `-s${String(k).padStart(4, '0')}`;
  return `spill-b${String(b).padStart(4, '0')}${slice}.dat`;
}

/**
 * Copies n interleaved records of `w` words ((hi, lo, ordinal[, seed]))
 * from words[0, w·n) into hi/lo/ord (and seed, when w is 4) from index
 * `at`; returns at + n. The one de-interleaving loop of spill files, RAM
 * bucket buffers and slice partitions.
 */
export function unpackRecords(
  words: Uint32Array, n: number, w: RecordWords, hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, seed: Uint32Array | null, at: number,
): number {
  if (w === 3) {
    for (let i = 0; i < n; i++) {
      hi[at + i] = words[3 * i]!;
      lo[at + i] = words[3 * i + 1]!;
      ord[at + i] = words[3 * i + 2]!;
    }
  } else {
    for (let i = 0; i < n; i++) {
      hi[at + i] = words[4 * i]!;
      lo[at + i] = words[4 * i + 1]!;
      ord[at + i] = words[4 * i + 2]!;
      seed![at + i] = words[4 * i + 3]!;
    }
  }
  return at + n;
}

export class SpillFile {
  private fd = -1;
  /** Records written so far. */
  records = 0;

  private readonly recordBytes: number;

  constructor(
    private readonly fs: DrumFs,
    readonly path: string,
    readonly words: RecordWords = 3,
  ) {
    this.recordBytes = words === 3 ? SPILL_RECORD_BYTES : SEEDED_SPILL_RECORD_BYTES;
  }

  /** Appends n records taken from interleaved records buf[0, words·n). */
  append(records: Uint32Array, n: number): void {
    if (n === 0) return;
    if (this.fd < 0) this.fd = this.fs.open(this.path, 'w');
    const bytes = new Uint8Array(records.buffer, records.byteOffset, n * this.recordBytes);
    this.fs.write(this.fd, bytes, 0, bytes.length, null);
    this.records += n;
  }

  /**
   * Reads every record back, de-interleaving into hi/lo/ord (and seed) from
   * index 0. `scratch` is a byte buffer used for chunked reads (any size >= 16).
   */
  readAll(hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, seed: Uint32Array | null, scratch: Uint8Array): number {
    let done = 0;
    this.forEachBlock(scratch, (words, n) => {
      done = unpackRecords(words, n, this.words, hi, lo, ord, seed, done);
    });
    return done;
  }

  /**
   * Reads the records in order, a block at a time: visit(words, n) gets n
   * interleaved records in words[0, this.words·n), valid until it returns.
   * `scratch` is the read buffer (any size >= 16 bytes).
   */
  forEachBlock(scratch: Uint8Array, visit: (words: Uint32Array, n: number) => void): void {
    if (this.records === 0) return;
    const fd = this.fs.open(this.path, 'r');
    try {
      const per = Math.floor(scratch.length / this.recordBytes);
      const words = new Uint32Array(scratch.buffer, scratch.byteOffset, per * this.words);
      let done = 0;
      let pos = 0;
      while (done < this.records) {
        const want = Math.min(per, this.records - done);
        const got = this.fs.readFully(fd, scratch, 0, want * this.recordBytes, pos);
        if (got !== want * this.recordBytes) throw new Error(`short spill read in ${this.path}`);
        pos += got;
        visit(words, want);
        done += want;
      }
    } finally {
      this.fs.close(fd);
    }
  }

  /** Closes and deletes the file; the bucket starts the next round empty. */
  discard(): void {
    const fd = this.fd;
    const had = this.records > 0;
    this.fd = -1;
    this.records = 0;
    if (fd >= 0) this.fs.close(fd);
    if (had) this.fs.unlink(this.path);
  }
}
