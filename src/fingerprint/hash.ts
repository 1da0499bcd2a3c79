// 32-bit fingerprints of byte ranges: MurmurHash3 x86_32 (Appleby), and a
// two-lane variant that computes it under two seeds in one pass (64 bits of
// URL fingerprint for the cost of one read of the bytes). Pure functions over
// Buffers; no strings, no allocation. Not cryptographic: drum's keys need
// spread, not secrecy (docs/design.md has the measurements behind the choice).

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;

/** MurmurHash3's 32-bit finalizer: a bijection on uint32 with full avalanche. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** The mixed last 1..3 bytes at b[i, i+rest). */
function tail(b: Uint8Array, i: number, rest: number): number {
  let k = b[i]!;
  if (rest > 1) k ^= b[i + 1]! << 8;
  if (rest > 2) k ^= b[i + 2]! << 16;
  k = Math.imul(k, C1);
  k = (k << 15) | (k >>> 17);
  return Math.imul(k, C2);
}

/** MurmurHash3 x86_32 of b[start, end). */
export function murmur3(b: Uint8Array, start: number, end: number, seed: number): number {
  return murmur3View(viewOf(b), b, start, end, seed);
}

/** murmur3 with `dv` a DataView over b's memory (one load per 4-byte block, as murmur3x2View). */
export function murmur3View(dv: DataView, b: Uint8Array, start: number, end: number, seed: number): number {
  let h = seed | 0;
  let i = start;
  const blockEnd = end - ((end - start) & 3);
  for (; i < blockEnd; i += 4) {
    let k = dv.getInt32(i, true);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const rest = end - i;
  if (rest > 0) h ^= tail(b, i, rest);
  h ^= end - start;
  return fmix32(h);
}

/**
 * MurmurHash3 x86_32 of b[start, end) under seeds seedA and seedB at once;
 * writes the two results to out[at] and out[at + 1].
 */
export function murmur3x2(b: Uint8Array, start: number, end: number, seedA: number, seedB: number, out: Uint32Array, at: number): void {
  murmur3x2View(viewOf(b), b, start, end, seedA, seedB, out, at);
}

/** The view made for the last array asked (a typed array never changes its memory). */
let lastBytes: Uint8Array | null = null;
let lastView: DataView | null = null;

/** A DataView over b's memory; the last one is kept, so hashing many ranges of one array makes one view. */
export function viewOf(b: Uint8Array): DataView {
  if (b !== lastBytes) {
    lastBytes = b;
    lastView = new DataView(b.buffer, b.byteOffset, b.byteLength);
  }
  return lastView!;
}

/**
 * murmur3x2 with `dv` a DataView over b's memory: each 4-byte block is one
 * little-endian DataView load whatever its alignment (V8 compiles it to a
 * plain load), 22 % faster than byte or aligned-word loads. For loops over
 * many ranges of one buffer (fingerprint/key.ts hashRanges).
 */
export function murmur3x2View(dv: DataView, b: Uint8Array, start: number, end: number, seedA: number, seedB: number, out: Uint32Array, at: number): void {
  let ha = seedA | 0;
  let hb = seedB | 0;
  let i = start;
  const blockEnd = end - ((end - start) & 3);
  for (; i < blockEnd; i += 4) {
    let k = dv.getInt32(i, true);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    ha ^= k;
    ha = (ha << 13) | (ha >>> 19);
    ha = (Math.imul(ha, 5) + 0xe6546b64) | 0;
    hb ^= k;
    hb = (hb << 13) | (hb >>> 19);
    hb = (Math.imul(hb, 5) + 0xe6546b64) | 0;
  }
  const rest = end - i;
  if (rest > 0) {
    const k = tail(b, i, rest);
    ha ^= k;
    hb ^= k;
  }
  const len = end - start;
  out[at] = fmix32(ha ^ len);
  out[at + 1] = fmix32(hb ^ len);
}
