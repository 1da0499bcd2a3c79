// Stable LSD radix sort of 64-bit keys (hi/lo Uint32Array words) carrying a
// uint32 payload (the arrival ordinal) and, in a store with values, a second
// one (the key's seed), skipping passes whose digit is the same for every
// key (e.g. a bucket's top bits). Then drops repeated keys keeping the
// first (smallest-ordinal) one. Two ways, same result:
// - interleaved (radix-interleaved.ts), when the key, ordinal and seed
//   arrays and the scratch arrays each lie end to end in one buffer (the
//   sort area's slots): records of 3 or 4 words, 11-bit digits. A pass then
//   scatters each record to one place instead of three or four, and a 10 M-link
//   ingest's final merge sorted ~35 % faster;
// - array by array (this file, the reference), 16 bits per pass (8 for
//   small buckets, where a 2^16-bin histogram would dominate).
// Works on caller-provided scratch arrays; its histograms are one
// module-level array reused by every call on a thread (not reentrant:
// nothing here awaits).
// REQUIRES: entries appended in ascending ordinal order (stability keeps it).

import { interleavedOf, radixSortInterleaved, INTERLEAVED_MIN } from './radix-interleaved.js';

/** Below this many keys, 8-bit digits: a 16-bit pass's 2^16-bin histogram would cost more than the keys. */
const SMALL = 1 << 16;

/** The histograms, reused: a 16-bit sort needs 1 MiB of them (4 digits × 2^16 × 4 B), which per call was garbage on whichever thread sorted. */
let histograms: Uint32Array = new Uint32Array(0);

/** `size` zeroed counters (a view of the reused array). */
function histogram(size: number): Uint32Array {
  if (histograms.length < size) histograms = new Uint32Array(size);
  const h = histograms.subarray(0, size);
  h.fill(0);
  return h;
}

/**
 * Sorts hi[0,n), lo[0,n), ord[0,n) (and seed[0,n) when given) in place by
 * (hi, lo) ascending, stable. tHi, tLo, tOrd (tSeed) are scratch arrays of
 * at least n entries. One function on purpose: its passes run once per key
 * and byte of the round.
 */
export function radixSortKeys(
  hi: Uint32Array,
  lo: Uint32Array,
  ord: Uint32Array,
  n: number,
  tHi: Uint32Array,
  tLo: Uint32Array,
  tOrd: Uint32Array,
  seed: Uint32Array | null = null,
  tSeed: Uint32Array | null = null,
): void {
  if (n < 2) return;
  if (n >= INTERLEAVED_MIN) {
    const records = interleavedOf(hi, lo, ord, seed);
    const scratch = interleavedOf(tHi, tLo, tOrd, tSeed);
    if (records !== null && scratch !== null && records.length / hi.length === scratch.length / tHi.length) {
      radixSortInterleaved(hi, lo, ord, seed, n, records, scratch);
      return;
    }
  }
  radixSortArrays(hi, lo, ord, n, tHi, tLo, tOrd, seed, tSeed);
}

/** radixSortKeys array by array: the reference the interleaved sort is tested against. */
export function radixSortArrays(
  hi: Uint32Array,
  lo: Uint32Array,
  ord: Uint32Array,
  n: number,
  tHi: Uint32Array,
  tLo: Uint32Array,
  tOrd: Uint32Array,
  seed: Uint32Array | null = null,
  tSeed: Uint32Array | null = null,
): void {
  if (n < 2) return;
  const bits = n < SMALL ? 8 : 16;
  const radix = 1 << bits;
  const mask = radix - 1;
  const perWord = 32 / bits;
  const digits = 2 * perWord; // lo's digits first (least significant), then hi's
  const counts = histogram(radix * digits);
  for (let i = 0; i < n; i++) {
    const l = lo[i]!;
    const h = hi[i]!;
    for (let d = 0; d < perWord; d++) {
      counts[d * radix + ((l >>> (d * bits)) & mask)]!++;
      counts[(perWord + d) * radix + ((h >>> (d * bits)) & mask)]!++;
    }
  }
  let sHi = hi, sLo = lo, sOrd = ord, sSeed = seed;
  let dHi = tHi, dLo = tLo, dOrd = tOrd, dSeed = tSeed;
  for (let d = 0; d < digits; d++) {
    const base = d * radix;
    // Skip a pass in which every key has the same digit.
    let nonEmpty = 0;
    for (let j = 0; j < radix && nonEmpty < 2; j++) if (counts[base + j] !== 0) nonEmpty++;
    if (nonEmpty < 2) continue;
    let sum = 0;
    for (let j = 0; j < radix; j++) {
      const c = counts[base + j]!;
      counts[base + j] = sum;
      sum += c;
    }
    const fromLo = d < perWord;
    const shift = (d % perWord) * bits;
    if (sSeed === null) {
      for (let i = 0; i < n; i++) {
        const w = fromLo ? sLo[i]! : sHi[i]!;
        const at = counts[base + ((w >>> shift) & mask)]!++;
        dHi[at] = sHi[i]!;
        dLo[at] = sLo[i]!;
        dOrd[at] = sOrd[i]!;
      }
    } else {
      for (let i = 0; i < n; i++) {
        const w = fromLo ? sLo[i]! : sHi[i]!;
        const at = counts[base + ((w >>> shift) & mask)]!++;
        dHi[at] = sHi[i]!;
        dLo[at] = sLo[i]!;
        dOrd[at] = sOrd[i]!;
        dSeed![at] = sSeed[i]!;
      }
    }
    const xHi = sHi, xLo = sLo, xOrd = sOrd, xSeed = sSeed;
    sHi = dHi; sLo = dLo; sOrd = dOrd; sSeed = dSeed;
    dHi = xHi; dLo = xLo; dOrd = xOrd; dSeed = xSeed;
  }
  if (sHi !== hi) {
    hi.set(sHi.subarray(0, n));
    lo.set(sLo.subarray(0, n));
    ord.set(sOrd.subarray(0, n));
    if (seed !== null) seed.set(sSeed!.subarray(0, n));
  }
}

/** Removes adjacent repeated keys in sorted arrays (seed too, when given), keeping the first. Returns the new length. */
export function dedupeSorted(hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, n: number, seed: Uint32Array | null = null): number {
  if (n === 0) return 0;
  let w = 1;
  let pH = hi[0]!, pL = lo[0]!;
  for (let i = 1; i < n; i++) {
    const h = hi[i]!, l = lo[i]!;
    if (h === pH && l === pL) continue;
    hi[w] = h;
    lo[w] = l;
    ord[w] = ord[i]!;
    if (seed !== null) seed[w] = seed[i]!;
    w++;
    pH = h;
    pL = l;
  }
  return w;
}

/**
 * One unit of a merge round's sort: sorts hi/lo/ord[0, n) and seed, when
 * given (radixSortKeys, scratch in tHi/tLo/tOrd/tSeed) and drops repeated
 * keys (dedupeSorted). Returns the number of unique keys, left in
 * hi/lo/ord[0, u). Runs on whichever thread the round picks
 * (engine/core/sort-stage.ts).
 */
export function sortUnique(
  hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, n: number, tHi: Uint32Array, tLo: Uint32Array, tOrd: Uint32Array,
  seed: Uint32Array | null = null, tSeed: Uint32Array | null = null,
): number {
  radixSortKeys(hi, lo, ord, n, tHi, tLo, tOrd, seed, tSeed);
  return dedupeSorted(hi, lo, ord, n, seed);
}
