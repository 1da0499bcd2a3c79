// One fold's pending host counts, cut by name range in ONE pass over the
// deltas: every (host, count) entry is summed by name in bounded RAM
// (name-sums.ts; the deltas repeat each host once per round) and each
// distinct name is appended, bytes copied and never decoded, to the spill
// file of the range its name falls in; the fold then reads one range's file
// at a time, sums it by name again and sorts the distinct names by their
// bytes (sortedSums), with no Map and no string per record. Without it
// the fold decoded every delta once per range, so its cost grew with the
// square of the pending bytes (a 10^7-link slice leaves ~110 MiB of deltas:
// ~55 ranges, ~6 GB of names decoded). Spill files are work files of the
// fold, never committed: `hosts/fold-NNNNNN-RRRR.tmp` (NNNNNN the table
// sequence being written, RRRR the range), removed when the fold ends and,
// after a crash, by the next fold (host-fold.ts removeOldFiles). A range's
// file is created at its first flush and opened for each flush after,
// at most MAX_OPEN_SPILLS of them kept open at once (the least recently
// flushed closed first): a fold of a GiB of deltas has hundreds of ranges,
// and holding each file open took one descriptor a range (512 at most),
// which a low `ulimit -n` (macOS's 256) refused with EMFILE at every open
// that folded.
// Record: name length u16 | count f64 | name bytes (latin1), little-endian:
// SPILL_RECORD_FIXED_BYTES = 2 + 8.
// Does not read LevelDB or decide the ranges (host-fold.ts does).
// REQUIRES: bounds sorted ascending as latin1 strings; names at most
// MAX_NAME_BYTES bytes (the deltas' own limit).

import { join } from 'node:path';
import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import { NameSums, NAME_RECORD_FIXED_BYTES } from './name-sums.js';

export const SPILL_RECORD_FIXED_BYTES = NAME_RECORD_FIXED_BYTES; // name length, count
/** All ranges' write buffers together stay about this size. */
const SPILL_BUFFERS_BYTES = 4 << 20;
const MIN_BUFFER_BYTES = 16 << 10;
/** The RAM that sums repeated names before they are spilled: distinct names and record bytes it holds. */
const COMBINE_NAMES = 1 << 17;
const COMBINE_BYTES = 4 << 20;
/**
 * Entries per distinct name below which the summing RAM is not worth its
 * hashing and copying: when a full RAM drains with fewer, the rest of the
 * fold spills every entry at once. Deltas that repeat hosts (a 10^7-URL
 * ingest's: ~80 entries a name) sum in RAM; those of millions of hosts
 * seen once or twice (a crawl's long tail) go straight to the files.
 */
const COMBINE_MIN_REPEATS = 2;
/** Spill files open at once while the fold writes them (the rest are closed between flushes). */
export const MAX_OPEN_SPILLS = 16;

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

/**
 * Byte-wise compare of the names of the spill records at a and b, four
 * bytes at a time (big-endian words order as their bytes do); `dv` views v.
 */
function compareRecords(dv: DataView, v: Buffer, a: number, b: number): number {
  const la = v.readUInt16LE(a);
  const lb = v.readUInt16LE(b);
  const n = Math.min(la, lb);
  a += SPILL_RECORD_FIXED_BYTES;
  b += SPILL_RECORD_FIXED_BYTES;
  let i = 0;
  for (; i + 4 <= n; i += 4) {
    const x = dv.getUint32(a + i);
    const y = dv.getUint32(b + i);
    if (x !== y) return x < y ? -1 : 1;
  }
  for (; i < n; i++) {
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
  /** Open spill files: range -> descriptor, least recently flushed first; at most MAX_OPEN_SPILLS. */
  private readonly open = new Map<number, number>();
  /** Whether range r's file exists (made at its first flush). */
  private readonly made: boolean[] = [];
  private readonly bufs: Buffer[] = [];
  private readonly used: number[] = [];
  /** Bytes and records written to each range's file. */
  private readonly bytes: number[] = [];
  private readonly records: number[] = [];
  /** The buffer a range's file is read into (grown to the largest range). */
  private read = Buffer.alloc(0);
  /** Entries summed by name before they are spilled. */
  private readonly combine: NameSums;
  /** Entries summed into `combine` since it was last drained. */
  private combined = 0;
  /** False once a drain found too few repeats (COMBINE_MIN_REPEATS). */
  private combining = true;

  /**
   * Range r holds names in [bounds[r-1], bounds[r]) (open at both ends of
   * the list). `combine` sizes the RAM that sums names before the spill
   * (default COMBINE_NAMES names in COMBINE_BYTES; small in tests).
   */
  constructor(private readonly fs: DrumFs, dir: string, seq: number, bounds: readonly string[], combine = { names: COMBINE_NAMES, bytes: COMBINE_BYTES }) {
    this.combine = new NameSums(combine.names, combine.bytes);
    this.bounds = bounds.map((b) => Buffer.from(b, 'latin1'));
    const ranges = bounds.length + 1;
    const bufBytes = Math.max(MIN_BUFFER_BYTES, Math.floor(SPILL_BUFFERS_BYTES / ranges));
    for (let r = 0; r < ranges; r++) {
      const path = join(dir, spillFileName(seq, r));
      this.paths.push(path);
      this.made.push(false);
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

  /**
   * Takes one entry (name v[s, e), count). Entries are summed by name in
   * RAM first (a fold's deltas repeat each host once per round) and each
   * distinct name goes to its range's file when that RAM fills or the
   * writing ends; a name too long for the RAM goes there at once.
   */
  add(v: Buffer, s: number, e: number, count: number): void {
    if (this.combining) {
      this.combined++;
      if (this.combine.add(v, s, e, count)) return;
      this.combined--;
      this.drainCombined();
      if (this.combining) {
        this.combined++;
        if (this.combine.add(v, s, e, count)) return;
        this.combined--;
      }
    }
    this.spill(v, s, e, count);
  }

  /** Spills every name summed in RAM, then forgets them; stops the summing when it saved too little. */
  private drainCombined(): void {
    const c = this.combine;
    if (this.combined < COMBINE_MIN_REPEATS * c.size) this.combining = false;
    for (let u = 0; u < c.size; u++) this.spill(c.buf, c.nameStart(u), c.nameEnd(u), c.count(u));
    c.clear();
    this.combined = 0;
  }

  /** Appends one record (name v[s, e), count) to its range's file. */
  private spill(v: Buffer, s: number, e: number, count: number): void {
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
    if (this.used[r]! > 0) this.fs.write(this.fileOf(r), this.bufs[r]!, 0, this.used[r]!);
    this.used[r] = 0;
  }

  /** Range r's file, open for appending: created at the first call; the least recently flushed file is closed to keep MAX_OPEN_SPILLS. */
  private fileOf(r: number): number {
    const fd = this.open.get(r);
    if (fd !== undefined) {
      this.open.delete(r);
      this.open.set(r, fd);
      return fd;
    }
    if (this.open.size >= MAX_OPEN_SPILLS) {
      const [oldest, ofd] = this.open.entries().next().value as [number, number];
      this.open.delete(oldest);
      this.fs.close(ofd);
    }
    const nfd = this.fs.open(this.paths[r]!, this.made[r] ? 'a' : 'w');
    this.made[r] = true;
    this.open.set(r, nfd);
    return nfd;
  }

  private closeAll(): void {
    for (const fd of this.open.values()) this.fs.close(fd);
    this.open.clear();
  }

  /** Ends the writing: every buffer flushed, every file closed (not synced: a crash makes the fold start again). */
  finishWriting(): void {
    this.drainCombined();
    for (let r = 0; r < this.ranges; r++) this.flush(r);
    this.closeAll();
    this.bufs.length = 0;
  }

  /**
   * Range r's pending hosts, each once with its summed count, in name (byte)
   * order: the range's file is read whole into one buffer, its records
   * summed by name in place (NameSums) and the distinct names sorted by
   * their bytes, so no Map or string per record is made (a name becomes a
   * string only when asked for). The answer lives until the next call.
   */
  sortedSums(r: number): RangeSums {
    const size = this.bytes[r]!;
    if (size === 0) return { size: 0, name: () => '', count: () => 0 };
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
    const sums = new NameSums(this.records[r]!, v);
    for (let i = 0, p = 0; i < this.records[r]!; i++) {
      sums.addRecord(p);
      p += SPILL_RECORD_FIXED_BYTES + v.readUInt16LE(p);
    }
    // The distinct records' offsets, sorted in place: the table is not asked again.
    const order = sums.at.subarray(0, sums.size);
    const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
    order.sort((a, b) => compareRecords(dv, v, a, b));
    const b = v;
    return {
      size: order.length,
      name: (i) => b.toString('latin1', order[i]! + SPILL_RECORD_FIXED_BYTES, order[i]! + SPILL_RECORD_FIXED_BYTES + b.readUInt16LE(order[i]!)),
      count: (i) => b.readDoubleLE(order[i]! + 2),
    };
  }

  /** Closes what is open and removes every spill file. */
  remove(): void {
    this.closeAll();
    for (let r = 0; r < this.ranges; r++) if (this.made[r]) this.fs.unlink(this.paths[r]!);
  }
}
