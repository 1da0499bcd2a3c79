// HotCache: a fixed-size set of 64-bit keys known to be in the store (the
// "popular URLs" cache of Mercator, default 2^16 entries). A hit is a certain
// duplicate. Set-associative CLOCK: S sets × W ways (W = 8, so one set's keys
// are 8 × 8 bytes = one 64-byte cache line); a lookup scans one set; a hit sets
// the way's reference bit; an insert fills a free way, else advances the set's
// clock hand clearing reference bits until it finds a clear one, and replaces
// that way (new entries start with the bit clear, so one-off keys go first).
// Does not know about the store: it answers exactly "was this key inserted
// and not yet evicted" (it never invents a key). What an insert vouches for
// (stored, or pending with an earlier ordinal) is the caller's contract, and
// the caller calls clear() if a merge it relied on is abandoned.
// Preconditions: hi, lo are uint32 (`>>> 0`); entries in [0, 2^28].

import { mixKey } from './mix.js';
import { SET_WAYS, SetAssocTable, setAssocBytes } from './set-assoc.js';

/** Ways per set (associativity). */
export const HOT_WAYS = SET_WAYS;

/** Per-set metadata word: bits 0-7 valid, bits 8-15 reference, bits 16-18 clock hand. */
const REF_SHIFT = 8;
const HAND_SHIFT = 16;

export class HotCache extends SetAssocTable {
  /** Bytes of typed-array memory a table of `entries` uses (what the engine budgets). */
  static bytesFor(entries: number): number {
    return setAssocBytes(entries, 'hot cache');
  }

  constructor(entries: number = 1 << 16) {
    super(entries, 'hot cache');
  }

  /** True if the key is cached; marks it recently used. Always false when disabled. */
  has(hi: number, lo: number): boolean {
    this.lookups++;
    if (this.sets === 0) return false;
    const s = Math.floor(mixKey(hi, lo) * this.scale);
    const ways = this.ways;
    const base = s * ways * 2;
    const m = this.meta[s]!;
    const keys = this.keys;
    for (let w = 0; w < ways; w++) {
      const i = base + 2 * w;
      if (keys[i] === hi && keys[i + 1] === lo && (m & (1 << w)) !== 0) {
        this.meta[s] = m | (1 << (REF_SHIFT + w));
        this.hits++;
        return true;
      }
    }
    return false;
  }

  /** Adds a key known to be stored (no-op if present or disabled); may evict another key of its set. */
  insert(hi: number, lo: number): void {
    if (this.sets === 0) return;
    const s = Math.floor(mixKey(hi, lo) * this.scale);
    const ways = this.ways;
    const base = s * ways * 2;
    let m = this.meta[s]!;
    const keys = this.keys;
    let free = -1;
    for (let w = 0; w < ways; w++) {
      if ((m & (1 << w)) === 0) {
        if (free < 0) free = w;
      } else if (keys[base + 2 * w] === hi && keys[base + 2 * w + 1] === lo) {
        return;
      }
    }
    let w = free;
    if (w >= 0) {
      this.occupied++;
    } else {
      // CLOCK: clear reference bits from the hand on until a clear one turns up.
      w = (m >>> HAND_SHIFT) & 7;
      while ((m & (1 << (REF_SHIFT + w))) !== 0) {
        m &= ~(1 << (REF_SHIFT + w));
        w = w + 1 === ways ? 0 : w + 1;
      }
      this.evictions++;
      const next = w + 1 === ways ? 0 : w + 1;
      m = (m & ~(7 << HAND_SHIFT)) | (next << HAND_SHIFT);
    }
    keys[base + 2 * w] = hi;
    keys[base + 2 * w + 1] = lo;
    // valid, reference bit clear
    this.meta[s] = (m | (1 << w)) & ~(1 << (REF_SHIFT + w));
  }
}
