// Hash mixing for the in-RAM tiers: turns a 64-bit key given as two uint32
// halves (hi, lo) into well-spread 32-bit values, and maps a 32-bit value onto
// [0, n) without modulo bias or a power-of-two restriction.
// Does not fingerprint URLs (src/fingerprint does) and keeps no state.
// Preconditions: hi and lo are integers in [0, 2^32) (callers pass `x >>> 0`).
// Why both halves: the top 24 bits of hi are a host fingerprint shared by every
// URL of a host, so indexing by the top bits alone would put a whole host in
// one slot. Each mixer below is a bijection in lo for a fixed hi and in hi for
// a fixed lo, so keys differing only in one half never collide on the mix.

import { fmix32 } from '../fingerprint/hash.js';

/** murmur3's 32-bit finalizer (shared with the URL fingerprints). */
export { fmix32 };

/** First mix of a key: picks the set (hot cache, recent table) or the block (Bloom). */
export function mixKey(hi: number, lo: number): number {
  return fmix32(Math.imul(hi, 0x9e3779b1) ^ lo);
}

/** Second, independent-looking mix of a key: drives the bit positions inside a Bloom block. */
export function mixKey2(hi: number, lo: number): number {
  return fmix32(Math.imul(lo, 0xcc9e2d51) ^ hi ^ 0x27d4eb2f);
}

/**
 * Maps a uint32 h onto [0, n) by multiply-shift (Lemire's "fastrange", in
 * floating point): uses the high bits of h, works for any n in [1, 2^31).
 * `scale` must be n / 2^32 (see rangeScale). The exact product h·n/2^32 is at
 * most n − n/2^32, far more than one ulp below n, so the result is always < n.
 */
export function rangeScale(n: number): number {
  return n / 4294967296;
}
