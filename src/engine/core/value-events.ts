// A round's value events: the (position in the new key file, ordinal) pairs
// the key merges record for each bucket (store/merge.ts ValueEventSink), kept
// until the values pass reads them back bucket by bucket. The first
// EVENTS_RAM_PAIRS pairs stay in RAM; later ones are appended to a work file
// (`work/values-events.dat`, transient, no checksum: a crash redoes the
// round). Does not interpret the pairs.
// REQUIRES: begin/end around each bucket's pairs, buckets not repeated in a
// round; reset() before the next round.

import type { DrumFs } from '../../io/fs.js';
import type { ValueEventSink } from '../../store/merge.js';

/** Pairs held in RAM before the log spills to its work file (8 MiB). */
export const EVENTS_RAM_PAIRS = 1 << 20;
/** Pairs read back from the work file per read. */
const READ_PAIRS = 1 << 16;

export class ValueEvents implements ValueEventSink {
  hits = false;
  private readonly ram = new Uint32Array(2 * EVENTS_RAM_PAIRS);
  private used = 0; // pairs in ram
  private spilled = 0; // pairs in the file (they come before the RAM ones)
  private fd = -1;
  private readonly ranges = new Map<number, { from: number; to: number }>();
  private bucket = -1;
  private from = 0;
  private readBuf: Uint32Array | null = null;

  constructor(private readonly dfs: DrumFs, private readonly path: string) {}

  /** Pairs recorded this round. */
  get total(): number {
    return this.spilled + this.used;
  }

  begin(b: number): void {
    this.bucket = b;
    this.from = this.total;
  }

  end(): void {
    if (this.bucket >= 0 && this.total > this.from) this.ranges.set(this.bucket, { from: this.from, to: this.total });
    this.bucket = -1;
  }

  add(pos: number, ordinal: number): void {
    if (this.used === EVENTS_RAM_PAIRS) this.spill();
    const at = 2 * this.used++;
    this.ram[at] = pos;
    this.ram[at + 1] = ordinal;
  }

  /** Pairs recorded for bucket b (0 if none). */
  count(b: number): number {
    const r = this.ranges.get(b);
    return r === undefined ? 0 : r.to - r.from;
  }

  /**
   * Hands bucket b's pairs to fn in the order recorded, a run at a time:
   * fn(pairs, n) with pairs[2k] = position, pairs[2k + 1] = ordinal.
   */
  forEachRun(b: number, fn: (pairs: Uint32Array, n: number) => void): void {
    const r = this.ranges.get(b);
    if (r === undefined) return;
    let i = r.from;
    if (i < this.spilled) {
      const buf = (this.readBuf ??= new Uint32Array(2 * READ_PAIRS));
      const bytes = new Uint8Array(buf.buffer);
      const end = Math.min(r.to, this.spilled);
      while (i < end) {
        const n = Math.min(READ_PAIRS, end - i);
        this.dfs.readFully(this.fd, bytes, 0, 8 * n, 8 * i);
        fn(buf, n);
        i += n;
      }
    }
    if (i < r.to) fn(this.ram.subarray(2 * (i - this.spilled), 2 * (r.to - this.spilled)), r.to - i);
  }

  private spill(): void {
    if (this.fd < 0) this.fd = this.dfs.open(this.path, 'w+');
    this.dfs.write(this.fd, new Uint8Array(this.ram.buffer, 0, 8 * this.used), 0, 8 * this.used, 8 * this.spilled);
    this.spilled += this.used;
    this.used = 0;
  }

  /** Empties the log for the next round (the work file is removed). */
  reset(): void {
    this.used = this.spilled = 0;
    this.ranges.clear();
    this.bucket = -1;
    if (this.fd >= 0) {
      const fd = this.fd;
      this.fd = -1;
      try {
        this.dfs.close(fd);
      } finally {
        this.dfs.unlink(this.path);
      }
    }
  }
}
