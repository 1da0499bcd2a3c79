// RecentTable: keys added to the store recently (since the last merge or a
// few merges back), so repeats of brand-new URLs are caught in RAM before they
// reach a bucket and the disk check. A hit means "certainly added before".
// Bounded: S sets × 8 ways of [hi, lo] (one 64-byte cache line per set) with
// FIFO replacement inside a set, so when full it keeps working and forgets the
// oldest key of the set a new key maps to. Entries stay true after a merge
// (the store never forgets a key), so nothing has to be dropped at a merge;
// onMerged() only counts merges. Hits do not protect a key (that is the hot
// cache's job: the engine may promote a recent hit into the HotCache).
// Does not write to disk. If the engine abandons a batch whose keys it had
// added here (failed merge), it must call clear().
// Preconditions: hi, lo are uint32 (`>>> 0`); entries in [0, 2^28].

import { mixKey } from './mix.js';
import { SET_WAYS, SetAssocTable, setAssocBytes } from './set-assoc.js';

/** Ways per set (associativity). */
export const RECENT_WAYS = SET_WAYS;

/** Per-set metadata word: bits 0-7 valid, bits 16-18 FIFO hand (next way to overwrite). */
const HAND_SHIFT = 16;

export class RecentTable extends SetAssocTable {
  /** Merges reported through onMerged(). */
  merges = 0;

  /** Bytes of typed-array memory a table of `entries` uses (what the engine budgets). */
  static bytesFor(entries: number): number {
    return setAssocBytes(entries, 'recent table');
  }

  constructor(entries: number = 1 << 18) {
    super(entries, 'recent table');
  }

  /** True if the key was added and not yet pushed out. Always false when disabled. */
  has(hi: number, lo: number): boolean {
    this.lookups++;
    if (this.sets === 0) return false;
    const s = Math.floor(mixKey(hi, lo) * this.scale);
    if (this.find(s, hi, lo)) {
      this.hits++;
      return true;
    }
    return false;
  }

  /** Records a key as added (no-op if present or disabled). */
  add(hi: number, lo: number): void {
    if (this.sets === 0) return;
    const s = Math.floor(mixKey(hi, lo) * this.scale);
    if (!this.find(s, hi, lo)) this.put(s, hi, lo);
  }

  /**
   * The common path in one probe: true if the key was already here (a certain
   * duplicate), else adds it and returns false. Counts as a lookup.
   */
  hasOrAdd(hi: number, lo: number): boolean {
    this.lookups++;
    if (this.sets === 0) return false;
    const s = Math.floor(mixKey(hi, lo) * this.scale);
    if (this.find(s, hi, lo)) {
      this.hits++;
      return true;
    }
    this.put(s, hi, lo);
    return false;
  }

  /** Hook the engine calls after each merge commit. Entries stay valid, so it only counts. */
  onMerged(): void {
    this.merges++;
  }

  private find(s: number, hi: number, lo: number): boolean {
    const ways = this.ways;
    const base = s * ways * 2;
    const m = this.meta[s]!;
    const keys = this.keys;
    for (let w = 0; w < ways; w++) {
      const i = base + 2 * w;
      if (keys[i] === hi && keys[i + 1] === lo && (m & (1 << w)) !== 0) return true;
    }
    return false;
  }

  /** Writes the key into set s at the FIFO hand (ways fill 0, 1, ... so the hand is the oldest). */
  private put(s: number, hi: number, lo: number): void {
    const ways = this.ways;
    let m = this.meta[s]!;
    const w = (m >>> HAND_SHIFT) & 7;
    if ((m & (1 << w)) !== 0) this.evictions++;
    else this.occupied++;
    const i = s * ways * 2 + 2 * w;
    this.keys[i] = hi;
    this.keys[i + 1] = lo;
    const next = w + 1 === ways ? 0 : w + 1;
    m = (m & ~(7 << HAND_SHIFT)) | (next << HAND_SHIFT) | (1 << w);
    this.meta[s] = m;
  }
}
