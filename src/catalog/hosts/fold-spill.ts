// One fold's pending host counts, cut by name range in ONE pass over the
// deltas: every (host, count) entry is appended, bytes copied and never
// decoded, to the spill file of the range its name falls in; the fold then
// reads one range's file at a time, sorts its records by name bytes and sums
// equal names (sortedSums), with no Map and no string per record. Without it
// the fold decoded every delta once per range, so its cost grew with the
// square of the pending bytes (a 10^7-link slice leaves ~110 MiB of deltas:
// ~55 ranges, ~6 GB of names decoded). Spill files are work files of the
// fold, never committed: `hosts/fold-NNNNNN-RRRR.tmp` (NNNNNN the table
// sequence being written, RRRR the range), removed when the fold ends and,
// after a crash, by the next fold (host-fold.ts removeOldFiles).
// Record: name length u16 | count f64 | name bytes (latin1), little-endian:
// SPILL_RECORD_FIXED_BYTES = 2 + 8.
// Does not read LevelDB or decide the ranges (host-fold.ts does).
// REQUIRES: bounds sorted ascending as latin1 strings; names at most
// MAX_NAME_BYTES bytes (the deltas' own limit).

import { join } from 'node:path';
import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';

export const SPILL_RECORD_FIXED_BYTES = 2 + 8; // name length, count
/** All ranges' write buffers together stay about this size. */
const SPILL_BUFFERS_BYTES = 4 << 20;
const MIN_BUFFER_BYTES = 16 << 10;

export function spillFileName(seq: number, range: number): string {
  return `fold-${String(seq).padStart(6, '0')}-${String(range).padStart(4, '0')}.tmp`;
}

/** One range's hosts, each once, in name order (FoldSpill.sortedSums). */
export interface RangeSums {
  readonly size: number;
  /** Name i as a latin1 string (made on each call). */
  name(i: number): string;
  /** Summed count of name i. */
  count(i: number): number;
}

/** Byte-wise compare of the names of the spill records at a and b. */
function compareRecords(v: Buffer, a: number, b: number): number {
  const la = v.readUInt16LE(a);
  const lb = v.readUInt16LE(b);
  const n = Math.min(la, lb);
  a += SPILL_RECORD_FIXED_BYTES;
  b += SPILL_RECORD_FIXED_BYTES;
  for (let i = 0; i < n; i++) {
    const d = v[a + i]! - v[b + i]!;
    if (d !== 0) return d;
  }
  return la - lb;
}

/** Byte-wise compare of v[s, e) with b (latin1 order equals byte order). */
function compareName(v: Uint8Array, s: number, e: number, b: Uint8Array): number {
  const n = Math.min(e - s, b.length);
  for (let i = 0; i < n; i++) {
    const d = v[s + i]! - b[i]!;
    if (d !== 0) return d;
  }
  return e - s - b.length;
}

export class FoldSpill {
  private readonly bounds: Buffer[];
  private readonly paths: string[] = [];
  private readonly fds: number[] = [];
  private readonly bufs: Buffer[] = [];
  private readonly used: number[] = [];
  /** Bytes and records written to each range's file. */
  private readonly bytes: number[] = [];
  private readonly records: number[] = [];
  /** The buffer a range's file is read into (grown to the largest range). */
  private read = Buffer.alloc(0);

  /** Range r holds names in [bounds[r-1], bounds[r]) (open at both ends of the list). */
  constructor(private readonly fs: DrumFs, dir: string, seq: number, bounds: readonly string[]) {
    this.bounds = bounds.map((b) => Buffer.from(b, 'latin1'));
    const ranges = bounds.length + 1;
    const bufBytes = Math.max(MIN_BUFFER_BYTES, Math.floor(SPILL_BUFFERS_BYTES / ranges));
    for (let r = 0; r < ranges; r++) {
      const path = join(dir, spillFileName(seq, r));
      this.paths.push(path);
      this.fds.push(fs.open(path, 'w'));
      this.bufs.push(Buffer.allocUnsafe(bufBytes));
      this.used.push(0);
      this.bytes.push(0);
      this.records.push(0);
    }
  }

  get ranges(): number { return this.paths.length; }

  /** The range of the name v[s, e): the number of bounds at or below it. */
  private rangeOf(v: Uint8Array, s: number, e: number): number {
    let lo = 0, hi = this.bounds.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareName(v, s, e, this.bounds[mid]!) >= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Appends one entry (name v[s, e), count) to its range's file. */
  add(v: Buffer, s: number, e: number, count: number): void {
    const r = this.rangeOf(v, s, e);
    const need = SPILL_RECORD_FIXED_BYTES + (e - s);
    let buf = this.bufs[r]!;
    if (this.used[r]! + need > buf.length) {
      this.flush(r);
      if (need > buf.length) { buf = Buffer.allocUnsafe(need); this.bufs[r] = buf; }
    }
    let at = this.used[r]!;
    at = buf.writeUInt16LE(e - s, at);
    at = buf.writeDoubleLE(count, at);
    at += v.copy(buf, at, s, e);
    this.used[r] = at;
    this.bytes[r] += need;
    this.records[r]++;
  }

  private flush(r: number): void {
    if (this.used[r]! > 0) this.fs.write(this.fds[r]!, this.bufs[r]!, 0, this.used[r]!);
    this.used[r] = 0;
  }

  /** Ends the writing: every buffer flushed, every file closed (not synced: a crash makes the fold start again). */
  finishWriting(): void {
    for (let r = 0; r < this.ranges; r++) {
      this.flush(r);
      this.fs.close(this.fds[r]!);
      this.fds[r] = -1;
    }
    this.bufs.length = 0;
  }

  /**
   * Range r's pending hosts, each once with its summed count, in name (byte)
   * order: the range's file is read whole into one buffer and its records'
   * offsets sorted by name bytes, so the names stay bytes and no Map or
   * string per record is made (a name becomes a string only when asked for).
   * The answer lives until the next call.
   */
  sortedSums(r: number): RangeSums {
    const size = this.bytes[r]!;
    if (this.read.length < size) this.read = Buffer.allocUnsafe(size);
    const v = this.read;
    const fd = this.fs.open(this.paths[r]!, 'r');
    try {
      for (let got = 0; got < size;) {
        const n = this.fs.read(fd, v, got, size - got, got);
        if (n === 0) throw new DrumError('DRUM_IO', `${this.paths[r]!}: spill file shorter than written`, { file: this.paths[r]! });
        got += n;
      }
    } finally {
      this.fs.close(fd);
    }
    const at = new Uint32Array(this.records[r]!);
    for (let i = 0, p = 0; i < at.length; i++) {
      at[i] = p;
      p += SPILL_RECORD_FIXED_BYTES + v.readUInt16LE(p);
    }
    at.sort((a, b) => compareRecords(v, a, b));
    const counts = new Float64Array(at.length);
    let m = 0;
    for (let i = 0; i < at.length;) {
      const p = at[i]!;
      let c = v.readDoubleLE(p + 2);
      let j = i + 1;
      for (; j < at.length && compareRecords(v, p, at[j]!) === 0; j++) c += v.readDoubleLE(at[j]! + 2);
      at[m] = p;
      counts[m++] = c;
      i = j;
    }
    return {
      size: m,
      name: (i) => v.toString('latin1', at[i]! + SPILL_RECORD_FIXED_BYTES, at[i]! + SPILL_RECORD_FIXED_BYTES + v.readUInt16LE(at[i]!)),
      count: (i) => counts[i]!,
    };
  }

  /** Closes what is open and removes every spill file. */
  remove(): void {
    for (let r = 0; r < this.ranges; r++) {
      if (this.fds[r]! >= 0) { this.fs.close(this.fds[r]!); this.fds[r] = -1; }
      this.fs.unlink(this.paths[r]!);
    }
  }
}
