// MinHash (Broder 1997) over the same word 3-shingles as SimHash, and the
// LSH band keys (Indyk & Motwani; Leskovec et al., ch. 3): a signature of
// MINHASH_K 32-bit minima, one per seeded hash of the shingle hashes, cut
// into LSH_BANDS bands of LSH_ROWS rows, each band hashed to a 64-bit key.
// Two documents whose shingle sets have Jaccard similarity J share a band
// with probability 1 - (1 - J^r)^b; a shared band is a candidate, the
// signature's agreement estimates J. Measured against SimHash in
// scripts/content-accuracy.ts (docs/content.md); the content store's default
// near method (band map, band-candidates.ts; signatures, sig-file.ts). Does not
// keep an index.
// REQUIRES: word hashes from visible-text.ts.

import { fmix32 } from '../../fingerprint/hash.js';

/** Hash functions in a signature. */
export const MINHASH_K = 100;
/** LSH bands and rows per band (LSH_BANDS * LSH_ROWS = MINHASH_K). */
export const LSH_BANDS = 25;
export const LSH_ROWS = 4;

const SEEDS = new Uint32Array(MINHASH_K);
for (let i = 0, s = 0x2545f491; i < MINHASH_K; i++) {
  s = Math.imul(s ^ (s >>> 15), 0x2c1b3c6d) ^ (i * 0x9e3779b1);
  SEEDS[i] = s >>> 0;
}

/** MinHash signature of the 3-shingles of words[0, n) into sig[at, at + MINHASH_K); all 0xffffffff when n < 3. */
export function minhash(words: Uint32Array, n: number, sig: Uint32Array, at = 0): void {
  sig.fill(0xffffffff, at, at + MINHASH_K);
  for (let i = 0; i + 2 < n; i++) {
    const x = fmix32(Math.imul(words[i]!, 0x9e3779b1) ^ Math.imul(words[i + 1]! ^ 0x7f4a7c15, 0x85ebca77) ^ words[i + 2]!);
    for (let k = 0; k < MINHASH_K; k++) {
      const h = fmix32(x ^ SEEDS[k]!);
      if (h < sig[at + k]!) sig[at + k] = h;
    }
  }
}

/** Equal positions of the signatures a[ai, ai + MINHASH_K) and b[bi, bi + MINHASH_K). */
export function equalMinima(a: Uint32Array, ai: number, b: Uint32Array, bi: number): number {
  let eq = 0;
  for (let k = 0; k < MINHASH_K; k++) if (a[ai + k] === b[bi + k]) eq++;
  return eq;
}

/** Estimated Jaccard similarity: the share of equal signature positions. */
export function estimateJaccard(a: Uint32Array, b: Uint32Array): number {
  return equalMinima(a, 0, b, 0) / MINHASH_K;
}

/** Key of band `band` of the signature at sig[at] as [hi, lo] into out[o], out[o + 1] (the band number is mixed in). */
export function bandKey(sig: Uint32Array, band: number, out: Uint32Array, o: number, at = 0): void {
  let h1 = 0x811c9dc5 ^ band;
  let h2 = 0x1b873593 + band;
  for (let r = 0; r < LSH_ROWS; r++) {
    const v = sig[at + band * LSH_ROWS + r]!;
    h1 = fmix32(h1 ^ v);
    h2 = fmix32(Math.imul(h2, 0x01000193) ^ v ^ (r << 24));
  }
  out[o] = h1;
  out[o + 1] = h2;
}
