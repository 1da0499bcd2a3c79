// HotCache: a fixed-size set of 64-bit keys known to be in the store (the
// "popular URLs" cache of Mercator, default 2^18 entries). A hit is a certain
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

import { mixKey, rangeScale } from './mix.js';
import { SET_WAYS, setAssocBytes, setGeometry } from './set-assoc.js';

/** Ways per set (associativity). */
export const HOT_WAYS = SET_WAYS;

/** Per-set metadata word: bits 0-7 valid, bits 8-15 reference, bits 16-18 clock hand. */
const REF_SHIFT = 8;
const HAND_SHIFT = 16;


export class HotCache {
  /** Lookups made with has(). */
  lookups = 0;
  /** Lookups that found the key. */
  hits = 0;
  /** Valid entries overwritten by insert(). */
  evictions = 0;
  /** Capacity in entries (sets × ways; ≤ the requested size, 0 when disabled). */
  readonly entries: number;
  readonly sets: number;
  readonly ways: number;
  private readonly keys: Uint32Array; // [hi, lo] per way, set-major
  private readonly meta: Uint32Array; // one word per set
  private readonly scale: number;
  private occupied = 0;

  /** Bytes of typed-array memory a cache of `entries` uses (what the engine budgets). */
  static bytesFor(entries: number): number {
    return setAssocBytes(entries, 'hot cache');
  }

  constructor(entries: number = 1 << 18) {
    const { sets, ways } = setGeometry(entries, 'hot cache');
    this.sets = sets;
    this.ways = ways;
    this.entries = sets * ways;
    this.keys = new Uint32Array(this.entries * 2);
    this.meta = new Uint32Array(sets);
    this.scale = rangeScale(sets);
  }

  /** Bytes of typed-array memory held. */
  get bytes(): number {
    return this.keys.byteLength + this.meta.byteLength;
  }

  /** Keys currently held (≤ entries). */
  get size(): number {
    return this.occupied;
  }

  /** Which set a key lives in (exposed for tests of the spread). */
  setOf(hi: number, lo: number): number {
    return Math.floor(mixKey(hi, lo) * this.scale);
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

  /** The table's arrays, for saving it (tier-file.ts). */
  snapshot(): { sets: number; ways: number; keys: Uint32Array; meta: Uint32Array; occupied: number } {
    return { sets: this.sets, ways: this.ways, keys: this.keys, meta: this.meta, occupied: this.occupied };
  }

  /** Loads arrays saved by snapshot(); false (and nothing changed) if the geometry differs. */
  restore(sets: number, ways: number, keys: Uint32Array, meta: Uint32Array, occupied: number): boolean {
    if (sets !== this.sets || ways !== this.ways || keys.length !== this.keys.length || meta.length !== this.meta.length) return false;
    this.keys.set(keys);
    this.meta.set(meta);
    this.occupied = occupied;
    return true;
  }

  /** Forgets every key (counters are kept). */
  clear(): void {
    this.meta.fill(0);
    this.occupied = 0;
  }
}
