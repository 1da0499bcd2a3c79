// A round's value events: the (position in the new key file, ordinal, seed)
// triples the key merges record for each bucket (store/keys/merge.ts
// ValueEventSink), kept until the values pass reads them back bucket by
// bucket. The first EVENTS_RAM events stay in RAM; later ones are appended to a work file
// (`work/values-events.dat`, transient, no checksum: a crash redoes the
// round). Does not interpret the events.
// REQUIRES: begin/end around each bucket's events, buckets not repeated in a
// round; reset() before the next round.

import type { DrumFs } from '../../io/fs.js';
import type { ValueEventSink } from '../../store/keys/merge.js';

/** Words of an event: position, ordinal, seed. */
export const EVENT_WORDS = 3;
const EVENT_BYTES = 4 * EVENT_WORDS;
/** Events held in RAM before the log spills to its work file (8 MiB). */
export const EVENTS_RAM = Math.floor((8 << 20) / EVENT_BYTES);
/** What the events' RAM takes (the budget plans it). */
export const EVENTS_RAM_BYTES = EVENTS_RAM * EVENT_BYTES;
/** Events read back from the work file per read. */
const READ_EVENTS = 1 << 16;

export class ValueEvents implements ValueEventSink {
  hits = false;
  private readonly ram: Uint32Array;
  private used = 0; // events in ram
  private spilled = 0; // events in the file (they come before the RAM ones)
  private fd = -1;
  private readonly ranges = new Map<number, { from: number; to: number }>();
  private bucket = -1;
  private from = 0;
  private readBuf: Uint32Array | null = null;

  /** `ramEvents`: events held in RAM before the log spills (tests make it small). */
  constructor(private readonly dfs: DrumFs, private readonly path: string, private readonly ramEvents = EVENTS_RAM) {
    this.ram = new Uint32Array(EVENT_WORDS * ramEvents);
  }

  /** Events recorded this round. */
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

  add(pos: number, ordinal: number, seed: number): void {
    if (this.used === this.ramEvents) this.spill();
    const at = EVENT_WORDS * this.used++;
    this.ram[at] = pos;
    this.ram[at + 1] = ordinal;
    this.ram[at + 2] = seed;
  }

  /** Events recorded for bucket b (0 if none). */
  count(b: number): number {
    const r = this.ranges.get(b);
    return r === undefined ? 0 : r.to - r.from;
  }

  /**
   * Hands bucket b's events to fn in the order recorded, a run at a time:
   * fn(events, n) with events[3k] = position, events[3k + 1] = ordinal,
   * events[3k + 2] = seed.
   */
  forEachRun(b: number, fn: (events: Uint32Array, n: number) => void): void {
    const r = this.ranges.get(b);
    if (r === undefined) return;
    let i = r.from;
    if (i < this.spilled) {
      const buf = (this.readBuf ??= new Uint32Array(EVENT_WORDS * READ_EVENTS));
      const bytes = new Uint8Array(buf.buffer);
      const end = Math.min(r.to, this.spilled);
      while (i < end) {
        const n = Math.min(READ_EVENTS, end - i);
        this.dfs.readFully(this.fd, bytes, 0, EVENT_BYTES * n, EVENT_BYTES * i);
        fn(buf, n);
        i += n;
      }
    }
    if (i < r.to) fn(this.ram.subarray(EVENT_WORDS * (i - this.spilled), EVENT_WORDS * (r.to - this.spilled)), r.to - i);
  }

  private spill(): void {
    if (this.fd < 0) this.fd = this.dfs.open(this.path, 'w+');
    this.dfs.write(this.fd, new Uint8Array(this.ram.buffer, 0, EVENT_BYTES * this.used), 0, EVENT_BYTES * this.used, EVENT_BYTES * this.spilled);
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
