// The key journal's keys in RAM: an exact table from a 64-bit key (hi, lo
// u32 words) to its entry, and each entry's value words, in journal order.
// Open addressing with linear probing on typed arrays; it doubles as it
// fills, up to the journal's capacity. Answers "is this key in the journal"
// for the front (a certain duplicate) and a key's value for resolve. Does
// not read or write files (journal-file.ts does).
// REQUIRES: keys added at most once (a journal never holds a key twice);
// hi, lo uint32.

import { DrumError } from '../../errors.js';

const EMPTY = -1;
const MIN_ENTRIES = 1024;

export class JournalTable {
  /** Entries held. */
  count = 0;
  /** Keys by entry, interleaved hi/lo. */
  keys = new Uint32Array(0);
  /** Values by entry, `valueWords` words each. */
  values = new Uint32Array(0);
  /** Entry index per slot, or EMPTY; its length is a power of two at least twice the entries' room. */
  private slots = new Int32Array(0);
  private mask = 0;
  /** Entries the arrays hold at their largest: the capacity rounded up to a power of two. */
  private readonly maxEntries: number;

  constructor(
    readonly valueWords: number,
    /** The most entries it takes (the journal's capacity). */
    readonly capacity: number,
  ) {
    this.maxEntries = entriesFor(capacity);
  }

  /** Room for more entries before the journal must be folded. */
  get room(): number {
    return this.capacity - this.count;
  }

  /** The entry holding key (hi, lo), or -1. */
  find(hi: number, lo: number): number {
    if (this.count === 0) return -1;
    const slots = this.slots, keys = this.keys, mask = this.mask;
    let i = slotOf(hi, lo, mask);
    for (;;) {
      const e = slots[i]!;
      if (e === EMPTY) return -1;
      if (keys[2 * e] === hi && keys[2 * e + 1] === lo) return e;
      i = (i + 1) & mask;
    }
  }

  /** True when the journal holds key (hi, lo). */
  has(hi: number, lo: number): boolean {
    return this.find(hi, lo) >= 0;
  }

  /** Adds key (hi, lo) with the value at v[at .. at + valueWords); returns its entry. */
  add(hi: number, lo: number, v: Uint32Array, at: number): number {
    if (this.count >= this.capacity) throw new DrumError('DRUM_INTERNAL', `key journal full (${this.capacity} keys)`);
    if (this.count >= this.keys.length >>> 1) this.grow();
    const e = this.count++;
    this.keys[2 * e] = hi;
    this.keys[2 * e + 1] = lo;
    const w = this.valueWords;
    for (let k = 0; k < w; k++) this.values[e * w + k] = v[at + k]!;
    this.place(hi, lo, e);
    return e;
  }

  /** Forgets every entry and gives back the arrays (a fold emptied the journal). */
  clear(): void {
    this.count = 0;
    this.keys = new Uint32Array(0);
    this.values = new Uint32Array(0);
    this.slots = new Int32Array(0);
    this.mask = 0;
  }

  /** Bytes of typed-array memory a full table of `capacity` entries uses at most. */
  static bytesFor(capacity: number, valueWords: number): number {
    const entries = entriesFor(capacity);
    return entries * 4 * (2 + valueWords) + 2 * entries * 4;
  }

  private place(hi: number, lo: number, e: number): void {
    const slots = this.slots, mask = this.mask;
    let i = slotOf(hi, lo, mask);
    while (slots[i] !== EMPTY) i = (i + 1) & mask;
    slots[i] = e;
  }

  private grow(): void {
    const entries = Math.min(Math.max(MIN_ENTRIES, this.keys.length), this.maxEntries); // keys.length = 2 × entries now
    const keys = new Uint32Array(2 * entries);
    keys.set(this.keys.subarray(0, 2 * this.count));
    const values = new Uint32Array(entries * this.valueWords);
    values.set(this.values.subarray(0, this.count * this.valueWords));
    this.keys = keys;
    this.values = values;
    this.slots = new Int32Array(2 * entries).fill(EMPTY);
    this.mask = 2 * entries - 1;
    for (let e = 0; e < this.count; e++) this.place(keys[2 * e]!, keys[2 * e + 1]!, e);
  }
}

/** Entries of the arrays for `capacity`: a power of two, at least MIN_ENTRIES. */
function entriesFor(capacity: number): number {
  return Math.max(MIN_ENTRIES, 2 ** Math.ceil(Math.log2(Math.max(1, capacity))));
}

function slotOf(hi: number, lo: number, mask: number): number {
  return (Math.imul(lo ^ Math.imul(hi, 0x85ebca6b), 0x9e3779b1) >>> 7) & mask;
}
