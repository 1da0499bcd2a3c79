// An exact table of the keys a round has handed to the core, each with the
// ordinal of its first arrival: jobs that need an answer for every link
// (drum resolve, ingest --graph) add each distinct key to the core once and
// answer its repeats from the first arrival's ordinal (as do the content
// store's maps, first-doc-map.ts). Open addressing with linear probing over
// typed arrays (hi, lo, ordinal: 12 bytes a slot); starts at 2^16 slots and
// doubles when `maxLoad` of them are taken (default half). Does not talk to
// the core.
// REQUIRES: add() right after the find() that missed for the same key.

/** Slots a new table starts with. */
const FIRST_SLOTS = 1 << 16;

export class RoundKeys {
  /** Distinct keys in the table. */
  size = 0;
  private mask = 0;
  private hi = new Uint32Array(0);
  private lo = new Uint32Array(0);
  private ord = new Int32Array(0);
  /** The empty slot the last missing find() stopped at. */
  private at = 0;
  /** Keys the table holds before it doubles. */
  private limit = 0;

  /** `maxLoad`: the share of slots taken before the table doubles (0.5: probes stay short; more: fewer bytes a key). */
  constructor(private readonly maxLoad = 0.5) {
    if (!(maxLoad > 0 && maxLoad < 1)) throw new RangeError('RoundKeys: maxLoad must be between 0 and 1');
    this.alloc(FIRST_SLOTS);
  }

  /** Bytes the table takes now. */
  get bytes(): number {
    return 12 * this.ord.length;
  }

  /** The ordinal of key (hi, lo), or -1 when the table does not hold it (add() may follow). */
  find(hi: number, lo: number): number {
    if (this.size >= this.limit) this.grow();
    let h = slotOf(hi, lo) & this.mask;
    for (;;) {
      const o = this.ord[h]!;
      if (o < 0) {
        this.at = h;
        return -1;
      }
      if (this.hi[h] === hi && this.lo[h] === lo) return o;
      h = (h + 1) & this.mask;
    }
  }

  /** Records key (hi, lo) under ordinal `o`, in the slot the last find() (which missed it) stopped at. */
  add(hi: number, lo: number, o: number): void {
    const h = this.at;
    this.hi[h] = hi;
    this.lo[h] = lo;
    this.ord[h] = o;
    this.size++;
  }

  /**
   * Makes room for `keys` distinct keys without growing (a job that knows
   * its round's bound allocates once, with no garbage from doublings).
   * REQUIRES: an empty table (after clear()).
   */
  reserve(keys: number): void {
    if (this.size !== 0) throw new RangeError('RoundKeys.reserve: the table is not empty');
    let cap = this.ord.length;
    while (Math.floor(cap * this.maxLoad) <= keys) cap *= 2;
    if (cap !== this.ord.length) this.alloc(cap);
  }

  /** Empties the table (its size stays). */
  clear(): void {
    this.ord.fill(-1);
    this.size = 0;
  }

  /** An empty table of `cap` slots (a power of two). */
  private alloc(cap: number): void {
    this.mask = cap - 1;
    this.limit = Math.floor(cap * this.maxLoad);
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.ord = new Int32Array(cap).fill(-1);
  }

  /** Doubles the table, putting every key back. */
  private grow(): void {
    const { hi, lo, ord } = this;
    this.alloc(2 * ord.length);
    for (let i = 0; i < ord.length; i++) {
      if (ord[i]! < 0) continue;
      let h = slotOf(hi[i]!, lo[i]!) & this.mask;
      while (this.ord[h]! >= 0) h = (h + 1) & this.mask;
      this.hi[h] = hi[i]!;
      this.lo[h] = lo[i]!;
      this.ord[h] = ord[i]!;
    }
  }
}

/** Hash of a key for the table (the key's bits are already a hash; mix both words). */
function slotOf(hi: number, lo: number): number {
  return Math.imul(hi ^ Math.imul(lo, 0x9e3779b1), 0x85ebca6b) >>> 0;
}
