// Bench-only exact membership set of 64-bit hashes (two uint32 halves) with
// a small per-entry tag byte, open addressing with linear probing, growing
// at 1/2 load. Used by the link generator to count unique URLs per batch.
// Does not store the URLs; a 64-bit collision (≈ n²/2^65) would undercount by
// one, negligible below 10^8 entries. Precondition: tags are 1..255.

export class TaggedSet64 {
  private hi: Uint32Array;
  private lo: Uint32Array;
  private tags: Uint8Array;
  private mask: number;
  size = 0;

  constructor(initialCapacityLog2 = 16) {
    const cap = 1 << initialCapacityLog2;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.tags = new Uint8Array(cap);
    this.mask = cap - 1;
  }

  /**
   * ORs `tag` into the entry for (hi, lo), inserting it if absent.
   * Returns the entry's tag bits before this call (0 = was absent).
   */
  addTag(hi: number, lo: number, tag: number): number {
    hi >>>= 0;
    lo >>>= 0;
    let i = slot(hi, lo) & this.mask;
    for (;;) {
      const t = this.tags[i]!;
      if (t === 0) {
        this.hi[i] = hi;
        this.lo[i] = lo;
        this.tags[i] = tag;
        if (++this.size * 2 > this.mask) this.grow();
        return 0;
      }
      if (this.lo[i] === lo && this.hi[i] === hi) {
        this.tags[i] = t | tag;
        return t;
      }
      i = (i + 1) & this.mask;
    }
  }

  /** Bytes held by the table (for reporting the generator's own footprint). */
  get bytes(): number {
    return this.tags.length * 9;
  }

  private grow(): void {
    const { hi, lo, tags } = this;
    const cap = tags.length * 2;
    this.hi = new Uint32Array(cap);
    this.lo = new Uint32Array(cap);
    this.tags = new Uint8Array(cap);
    this.mask = cap - 1;
    for (let j = 0; j < tags.length; j++) {
      const t = tags[j]!;
      if (t === 0) continue;
      const h = hi[j]!;
      const l = lo[j]!;
      let i = slot(h, l) & this.mask;
      while (this.tags[i] !== 0) i = (i + 1) & this.mask;
      this.hi[i] = h;
      this.lo[i] = l;
      this.tags[i] = t;
    }
  }
}

/** Home slot of a key: keys may be small structured integers, so avalanche them. */
function slot(hi: number, lo: number): number {
  let x = lo ^ Math.imul(hi, 0x9e3779b1) ^ (hi >>> 7);
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return x ^ (x >>> 16);
}

/** Two independent 32-bit hashes of buf[start, end), combined as a 64-bit key. */
export function hashBytes64(buf: Uint8Array, start: number, end: number, out: Uint32Array): void {
  let h1 = 0x811c9dc5;
  let h2 = 0x3c6ef372 ^ (end - start);
  for (let i = start; i < end; i++) {
    const b = buf[i]!;
    h1 = Math.imul(h1 ^ b, 0x01000193);
    h2 = Math.imul(h2 ^ b, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  // Final avalanche so that short keys spread over the table.
  h1 ^= h1 >>> 16;
  h1 = Math.imul(h1, 0x85ebca6b);
  h1 ^= h1 >>> 13;
  h2 ^= h2 >>> 16;
  h2 = Math.imul(h2, 0xc2b2ae35);
  h2 ^= h2 >>> 16;
  out[0] = h1 >>> 0;
  out[1] = h2 >>> 0;
}
