// Stable LSD radix sort of 64-bit keys (hi/lo Uint32Array words) carrying a
// uint32 payload (the arrival ordinal), 16 bits per pass, skipping passes
// whose digit is the same for every key (e.g. a bucket's top bits). Then
// drops repeated keys keeping the first (smallest-ordinal) one. Works on
// caller-provided scratch arrays; allocates only the histograms.
// REQUIRES: entries appended in ascending ordinal order (stability keeps it).

const DIGITS = 4; // 16-bit digits: lo low, lo high, hi low, hi high
const RADIX = 1 << 16;

/**
 * Sorts hi[0,n), lo[0,n), ord[0,n) in place by (hi, lo) ascending, stable.
 * tHi, tLo, tOrd are scratch arrays of at least n entries.
 */
export function radixSortKeys(
  hi: Uint32Array,
  lo: Uint32Array,
  ord: Uint32Array,
  n: number,
  tHi: Uint32Array,
  tLo: Uint32Array,
  tOrd: Uint32Array,
): void {
  if (n < 2) return;
  const counts = new Uint32Array(RADIX * DIGITS);
  for (let i = 0; i < n; i++) {
    const l = lo[i]!;
    const h = hi[i]!;
    counts[l & 0xffff]!++;
    counts[RADIX + (l >>> 16)]!++;
    counts[2 * RADIX + (h & 0xffff)]!++;
    counts[3 * RADIX + (h >>> 16)]!++;
  }
  let sHi = hi, sLo = lo, sOrd = ord;
  let dHi = tHi, dLo = tLo, dOrd = tOrd;
  for (let d = 0; d < DIGITS; d++) {
    const base = d * RADIX;
    // Skip a pass in which every key has the same digit.
    let nonEmpty = 0;
    for (let j = 0; j < RADIX && nonEmpty < 2; j++) if (counts[base + j] !== 0) nonEmpty++;
    if (nonEmpty < 2) continue;
    let sum = 0;
    for (let j = 0; j < RADIX; j++) {
      const c = counts[base + j]!;
      counts[base + j] = sum;
      sum += c;
    }
    const fromLo = d < 2;
    const shift = d & 1 ? 16 : 0;
    for (let i = 0; i < n; i++) {
      const w = fromLo ? sLo[i]! : sHi[i]!;
      const digit = shift === 0 ? w & 0xffff : w >>> 16;
      const at = counts[base + digit]!++;
      dHi[at] = sHi[i]!;
      dLo[at] = sLo[i]!;
      dOrd[at] = sOrd[i]!;
    }
    const xHi = sHi, xLo = sLo, xOrd = sOrd;
    sHi = dHi; sLo = dLo; sOrd = dOrd;
    dHi = xHi; dLo = xLo; dOrd = xOrd;
  }
  if (sHi !== hi) {
    hi.set(sHi.subarray(0, n));
    lo.set(sLo.subarray(0, n));
    ord.set(sOrd.subarray(0, n));
  }
}

/** Removes adjacent repeated keys in sorted arrays, keeping the first. Returns the new length. */
export function dedupeSorted(hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, n: number): number {
  if (n === 0) return 0;
  let w = 1;
  let pH = hi[0]!, pL = lo[0]!;
  for (let i = 1; i < n; i++) {
    const h = hi[i]!, l = lo[i]!;
    if (h === pH && l === pL) continue;
    hi[w] = h;
    lo[w] = l;
    ord[w] = ord[i]!;
    w++;
    pH = h;
    pL = l;
  }
  return w;
}
