// 64-bit SimHash (Charikar 2002; Manku, Jain, Das Sarma 2007) over word
// 3-shingles: each shingle of three consecutive word hashes is hashed to 64
// bits; bit j of the fingerprint is set when more shingles have bit j set
// than clear. Near-identical texts get fingerprints a few bits apart
// (Hamming distance). Also the Hamming distance itself and the bit blocks
// the permuted tables key on. Does not find pairs (near-index.ts does).
// REQUIRES: word hashes from visible-text.ts; Int32Array counters reused.

/** Words per shingle. */
export const SHINGLE_WORDS = 3;
/** Fewer shingles than this: too little text for a near-duplicate verdict (exact only). */
export const MIN_SHINGLES = 8;

const counts = new Int32Array(64);

function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * SimHash of words[0, n): writes [hi, lo] to out[at], out[at + 1] and returns
 * the number of shingles (below MIN_SHINGLES the fingerprint is still
 * written but should not be used for near-duplicates).
 */
export function simhash64(words: Uint32Array, n: number, out: Uint32Array, at: number): number {
  counts.fill(0);
  const shingles = n >= SHINGLE_WORDS ? n - SHINGLE_WORDS + 1 : n > 0 ? 1 : 0;
  for (let i = 0; i < shingles; i++) {
    const a = words[i]!;
    const b = i + 1 < n ? words[i + 1]! : 0;
    const c = i + 2 < n ? words[i + 2]! : 0;
    const h1 = mix32(Math.imul(a, 0x9e3779b1) ^ Math.imul(b ^ 0x7f4a7c15, 0x85ebca77) ^ Math.imul(c ^ 0x165667b1, 0xc2b2ae3d));
    const h2 = mix32(h1 ^ Math.imul(a + 0x27d4eb2f, 0x165667b1) ^ Math.imul(c, 0x9e3779b1) ^ b);
    for (let j = 0; j < 32; j++) {
      counts[j]! += ((h1 >>> j) & 1) * 2 - 1;
      counts[32 + j]! += ((h2 >>> j) & 1) * 2 - 1;
    }
  }
  let hi = 0;
  let lo = 0;
  for (let j = 0; j < 32; j++) {
    if (counts[j]! > 0) hi |= 1 << j;
    if (counts[32 + j]! > 0) lo |= 1 << j;
  }
  out[at] = hi >>> 0;
  out[at + 1] = lo >>> 0;
  return shingles;
}

/** Set bits of a u32. */
export function popcount32(v: number): number {
  v = v - ((v >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
}

/** Hamming distance of two 64-bit fingerprints given as u32 words. */
export function hamming64(ahi: number, alo: number, bhi: number, blo: number): number {
  return popcount32((ahi ^ bhi) >>> 0) + popcount32((alo ^ blo) >>> 0);
}

/** Block t (0..3) of a fingerprint: its t-th 16-bit piece from the top. */
export function block16(hi: number, lo: number, t: number): number {
  switch (t) {
    case 0: return hi >>> 16;
    case 1: return hi & 0xffff;
    case 2: return lo >>> 16;
    default: return lo & 0xffff;
  }
}
