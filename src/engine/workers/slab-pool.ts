// SlabPool: a small free list of ArrayBuffers ("slabs") that the parse
// stage copies chunks and results into when they cross between threads, so
// the steady state allocates no chunk-sized memory. Ownership is by move:
// give() re-homes the slab's memory in a new ArrayBuffer (a structuredClone
// transfer, no copy), which detaches every view the giver still holds, so a
// stale reader sees empty arrays, never another chunk's data.
// Does not know the layout of what is packed into a slab (pack.ts does).
// REQUIRES: a slab is given back only by its one owner, once it is done with it.

import { moveBuffer } from '../../io/transfer.js';

import { DrumError } from '../../errors.js';

/** Slab sizes are rounded up to this, so slabs of similar chunks are interchangeable. */
const SLAB_ROUND = 64 * 1024;

/** Bytes to allocate for a slab that must hold `need` bytes: 1/8 slack, rounded up. */
export function slabBytesFor(need: number): number {
  const want = need + (need >>> 3);
  return Math.max(SLAB_ROUND, Math.ceil(want / SLAB_ROUND) * SLAB_ROUND);
}

export class SlabPool {
  private readonly free: ArrayBuffer[] = [];
  /** Slabs allocated since construction (a steady state stops counting). */
  allocated = 0;

  /** `max`: free slabs kept; beyond it the smallest is dropped. */
  constructor(private readonly max: number) {}

  /** Free slabs held. */
  get size(): number {
    return this.free.length;
  }

  /** Bytes held in free slabs. */
  get bytes(): number {
    let b = 0;
    for (const s of this.free) b += s.byteLength;
    return b;
  }

  /** A slab of at least `need` bytes, now the caller's: the smallest free one that fits, else a new one. */
  take(need: number): ArrayBuffer {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const n = this.free[i]!.byteLength;
      if (n >= need && (best < 0 || n < this.free[best]!.byteLength)) best = i;
    }
    if (best >= 0) {
      const s = this.free[best]!;
      this.free[best] = this.free[this.free.length - 1]!;
      this.free.pop();
      return s;
    }
    this.allocated++;
    return new ArrayBuffer(slabBytesFor(need));
  }

  /**
   * Gives a slab back. Every view of it detaches (length 0) at once; the
   * memory stays in the pool. A detached slab (given twice) is refused.
   */
  give(slab: ArrayBuffer): void {
    if (slab.byteLength === 0) throw new DrumError('DRUM_INTERNAL', 'slab pool: a slab was given back twice');
    const moved = moveBuffer(slab);
    if (this.free.length < this.max) {
      this.free.push(moved);
      return;
    }
    if (this.max === 0) return;
    let small = 0;
    for (let i = 1; i < this.free.length; i++) if (this.free[i]!.byteLength < this.free[small]!.byteLength) small = i;
    if (this.free[small]!.byteLength < moved.byteLength) this.free[small] = moved;
  }

  /** Drops every free slab (their memory goes back to the allocator). */
  clear(): void {
    this.free.length = 0;
  }
}
