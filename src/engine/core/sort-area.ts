// The sort area of merge rounds: two slots of shared typed arrays (keys,
// ordinals and, in stores with values, seeds) that the parse pool's worker
// sorts in place while this thread merges the other, the radix sort's
// scratch, and the read and write buffers lent to each bucket's key reader
// and writer in turn. Reused across rounds, grown to the largest unit seen
// up to the budget's capacity. Holds memory only; does not sort or merge
// (sort-stage.ts does).
// REQUIRES: one round at a time uses it (sort-stage.ts's mergeBuckets).

import { READ_BUFFER_BYTES } from '../../store/keys/key-reader.js';
import { newWriteBuffers } from '../../store/keys/key-writer.js';

/** One slot of the sort area: a unit's keys, ordinals and (seeded) seeds, in shared memory so a worker can sort them in place. */
export interface SortSlot {
  hi: Uint32Array;
  lo: Uint32Array;
  ord: Uint32Array;
  seed: Uint32Array | null;
}

/**
 * `count` arrays of n entries laid end to end in one shared buffer: the
 * radix sort then moves whole records between a slot and the scratch
 * (bucket/radix-interleaved.ts).
 */
function shared(n: number, count: number): Uint32Array[] {
  const sab = new SharedArrayBuffer(4 * n * count);
  return Array.from({ length: count }, (_, k) => new Uint32Array(sab, 4 * n * k, n));
}

/**
 * Sort arrays reused across rounds: two slots (the second only once a round
 * pipelines) and the radix sort's scratch, each growing to the largest unit
 * seen, up to `capacity` entries (then buckets are sorted in slices).
 */
export class SortArea {
  readonly slots: SortSlot[] = [];
  tHi: Uint32Array = new Uint32Array(0);
  tLo: Uint32Array = new Uint32Array(0);
  tOrd: Uint32Array = new Uint32Array(0);
  tSeed: Uint32Array | null = null;
  /** Entries each allocated slot holds. */
  private size = 0;
  readonly scratch = new Uint8Array(1 << 20);
  /** Read and write buffers lent to every bucket's key reader and writer in turn. */
  readonly readBuffer = new Uint8Array(READ_BUFFER_BYTES);
  readonly writeBuffers = newWriteBuffers();

  /**
   * `capacity`: most entries one sort holds (the budget's sort area /
   * sortBytesPerEntry); `seeded`: entries carry a seed (stores with values).
   */
  constructor(readonly capacity: number, readonly seeded = false) {
    if (!(capacity >= 1)) throw new RangeError('SortArea: capacity must be at least 1');
  }

  /** Makes `slots` slots (1 or 2) of at least min(n, capacity) entries. */
  ensure(n: number, slots: number): void {
    n = Math.min(n, this.capacity);
    if (this.size < n) {
      this.size = Math.max(n, 1024);
      this.slots.length = 0;
      const words = this.seeded ? 4 : 3;
      [this.tHi, this.tLo, this.tOrd, this.tSeed = null] = shared(this.size, words);
    }
    while (this.slots.length < slots) {
      const [hi, lo, ord, seed = null] = shared(this.size, this.seeded ? 4 : 3);
      this.slots.push({ hi: hi!, lo: lo!, ord: ord!, seed });
    }
  }
}
