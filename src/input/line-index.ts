// LineIndex: the splitter's per-chunk index arrays (URL range, base range
// and line number of each listed line) in one ArrayBuffer, grown by
// doubling. A chunk gets either copies of the first n entries or, leased,
// views of them; before the entries are written again after a lease, the
// memory moves to a new ArrayBuffer (a transfer, no copy), so the leased
// views detach (length 0) instead of showing the next chunk's entries.
// Does not split lines (split.ts does). No I/O.

import { moveBuffer } from '../io/transfer.js';

export interface IndexArrays {
  urlStarts: Uint32Array;
  urlEnds: Uint32Array;
  baseStarts: Uint32Array;
  baseEnds: Uint32Array;
  lines: Float64Array;
}

export class LineIndex {
  us!: Uint32Array;
  ue!: Uint32Array;
  bs!: Uint32Array;
  be!: Uint32Array;
  ln!: Float64Array;
  private mem!: ArrayBuffer;
  private lent = false;

  constructor(capacity = 4096) {
    this.view(new ArrayBuffer(24 * capacity), capacity);
  }

  /** Entries the arrays hold. */
  get capacity(): number {
    return this.us.length;
  }

  /** Call before writing entries: detaches the views of the last lease, if any. */
  reclaim(): void {
    if (!this.lent) return;
    this.lent = false;
    const cap = this.capacity; // read before the move empties the views
    this.view(moveBuffer(this.mem), cap);
  }

  /** Doubles the capacity, keeping the entries. */
  grow(): void {
    const { us, ue, bs, be, ln } = this;
    this.view(new ArrayBuffer(48 * us.length), 2 * us.length);
    this.us.set(us);
    this.ue.set(ue);
    this.bs.set(bs);
    this.be.set(be);
    this.ln.set(ln);
    this.lent = false; // the old memory stays with the lease
  }

  /** Exact-size copies of the first n entries. */
  copy(n: number): IndexArrays {
    return {
      urlStarts: this.us.slice(0, n), urlEnds: this.ue.slice(0, n),
      baseStarts: this.bs.slice(0, n), baseEnds: this.be.slice(0, n), lines: this.ln.slice(0, n),
    };
  }

  /** Views of the first n entries, valid until the next reclaim(). */
  lend(n: number): IndexArrays {
    this.lent = true;
    return {
      urlStarts: this.us.subarray(0, n), urlEnds: this.ue.subarray(0, n),
      baseStarts: this.bs.subarray(0, n), baseEnds: this.be.subarray(0, n), lines: this.ln.subarray(0, n),
    };
  }

  /** Lines f64 first (8-byte aligned), then the four u32 arrays. */
  private view(mem: ArrayBuffer, cap: number): void {
    this.mem = mem;
    this.ln = new Float64Array(mem, 0, cap);
    this.us = new Uint32Array(mem, 8 * cap, cap);
    this.ue = new Uint32Array(mem, 12 * cap, cap);
    this.bs = new Uint32Array(mem, 16 * cap, cap);
    this.be = new Uint32Array(mem, 20 * cap, cap);
  }
}
