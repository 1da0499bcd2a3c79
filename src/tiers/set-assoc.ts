// What the set-associative tiers (hot cache, recent table) share: how many
// sets of how many ways a requested size becomes, the bytes that takes, and
// a base class holding the key and metadata arrays, the counters, the set
// choice and save/restore. Each tier keeps its own replacement policy.

import { DrumError } from '../errors.js';
import { mixKey, rangeScale } from './mix.js';

/** Ways per set: one set's keys are 8 × 8 bytes, one 64-byte cache line. */
export const SET_WAYS = 8;

export interface SetGeometry {
  sets: number;
  ways: number;
}

/** Sets × ways for `entries` (0 disables); DRUM_BAD_OPTION outside [0, 2^28]. `what` names the tier in the error. */
export function setGeometry(entries: number, what: string): SetGeometry {
  if (!Number.isInteger(entries) || entries < 0 || entries > 2 ** 28) {
    throw new DrumError('DRUM_BAD_OPTION', `${what} entries must be an integer in [0, 2^28], got ${entries}`);
  }
  if (entries === 0) return { sets: 0, ways: 0 };
  const ways = Math.min(SET_WAYS, entries);
  return { sets: Math.floor(entries / ways), ways };
}

/** Typed-array bytes of a set-associative table of `entries`. */
export function setAssocBytes(entries: number, what: string): number {
  const { sets, ways } = setGeometry(entries, what);
  return sets * ways * 8 + sets * 4;
}

/** Keys [hi, lo] per way (set-major) and one metadata word per set; replacement is the subclass's. */
export abstract class SetAssocTable {
  /** Lookups made. */
  lookups = 0;
  /** Lookups that found the key. */
  hits = 0;
  /** Valid entries overwritten because their set was full. */
  evictions = 0;
  /** Capacity in entries (sets × ways; ≤ the requested size, 0 when disabled). */
  readonly entries: number;
  readonly sets: number;
  readonly ways: number;
  protected readonly keys: Uint32Array;
  protected readonly meta: Uint32Array;
  protected readonly scale: number;
  protected occupied = 0;

  protected constructor(entries: number, what: string) {
    const { sets, ways } = setGeometry(entries, what);
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

  /**
   * Drops one key if held (a key the store forgot must not be vouched for);
   * true if it was. Clears the way's valid bit and bit 8 + way (the hot
   * cache's reference bit; unused by the recent table). Counters are kept.
   */
  remove(hi: number, lo: number): boolean {
    if (this.sets === 0) return false;
    const s = Math.floor(mixKey(hi, lo) * this.scale);
    const ways = this.ways;
    const base = s * ways * 2;
    const m = this.meta[s]!;
    const keys = this.keys;
    for (let w = 0; w < ways; w++) {
      const i = base + 2 * w;
      if ((m & (1 << w)) !== 0 && keys[i] === hi && keys[i + 1] === lo) {
        this.meta[s] = m & ~((1 << w) | (1 << (8 + w)));
        this.occupied--;
        return true;
      }
    }
    return false;
  }

  /** Forgets every key (counters are kept). */
  clear(): void {
    this.meta.fill(0);
    this.occupied = 0;
  }
}
