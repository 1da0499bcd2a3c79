// The interleaved way of radix-sort.ts: when a unit's key, ordinal and seed
// arrays lie end to end in one buffer (hi, lo, ord[, seed], each `cap`
// words: the sort area's slots), and the scratch arrays likewise, the sort
// packs each entry into a record of 3 or 4 words (lo, hi, ord[, seed]) in
// the scratch, runs its passes between the scratch and the slot's own
// buffer, and unpacks the sorted records into the arrays. A pass reads and
// writes one record per key, so its scatter touches one place where the
// array-by-array sort touches three or four: measured on 30 k-400 k keys
// of host-clustered keys, 70-78 ns a key against 100-120. 11-bit digits
// (11, 11, 10 per word: six passes, 2,048 bins) beat 8 and 16 bits here.
// Same order as the reference (stable LSD), tested against it.
// Does not drop repeated keys (radix-sort.ts's dedupeSorted does).
// REQUIRES: n ≤ cap; hi/lo/ord/seed views of `records` (see interleavedOf);
// the caller's scratch the same shape.

/** Below this many keys the reference sort is used: six 2,048-bin histograms would cost more than the keys. */
export const INTERLEAVED_MIN = 4096;

const BITS = 11;
const BINS = 1 << BITS;
const MASK = BINS - 1;
/** Digits per 32-bit word: bits 0-10, 11-21, 22-31. */
const PER_WORD = 3;
const DIGITS = 2 * PER_WORD;

const histograms = new Uint32Array(BINS * DIGITS);

/**
 * The buffer behind arrays laid end to end (each the same length, each
 * starting where the one before ends, seed last when given), as one view of
 * all their words; null when they are not so laid out.
 */
export function interleavedOf(hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, seed: Uint32Array | null): Uint32Array | null {
  const arrays = seed === null ? [hi, lo, ord] : [hi, lo, ord, seed];
  const cap = hi.length;
  for (let k = 1; k < arrays.length; k++) {
    const a = arrays[k]!;
    if (a.buffer !== hi.buffer || a.length !== cap || a.byteOffset !== hi.byteOffset + 4 * cap * k) return null;
  }
  return new Uint32Array(hi.buffer, hi.byteOffset, arrays.length * cap);
}

/** Sorts hi/lo/ord[/seed][0, n) by (hi, lo), stable, through records in `scratch` and `records` (see the header). */
export function radixSortInterleaved(
  hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, seed: Uint32Array | null, n: number, records: Uint32Array, scratch: Uint32Array,
): void {
  const stride = seed === null ? 3 : 4;
  const counts = histograms;
  counts.fill(0);
  for (let i = 0; i < n; i++) {
    const l = lo[i]!;
    const h = hi[i]!;
    counts[l & MASK]!++;
    counts[BINS + ((l >>> BITS) & MASK)]!++;
    counts[2 * BINS + (l >>> (2 * BITS))]!++;
    counts[3 * BINS + (h & MASK)]!++;
    counts[4 * BINS + ((h >>> BITS) & MASK)]!++;
    counts[5 * BINS + (h >>> (2 * BITS))]!++;
  }
  const passes: number[] = [];
  for (let d = 0; d < DIGITS; d++) if (toOffsets(counts, d * BINS, stride)) passes.push(d);
  if (passes.length === 0) return; // one key, repeated: already in order
  pack(hi, lo, ord, seed, n, scratch, stride);
  let src = scratch;
  let dst = records;
  for (const d of passes) {
    scatter(src, dst, n * stride, stride, counts, d * BINS, d < PER_WORD ? 0 : 1, (d % PER_WORD) * BITS);
    const x = src;
    src = dst;
    dst = x;
  }
  // The arrays are views of `records`: unpack from the scratch, never from the records over themselves.
  if (src === records) scratch.set(records.subarray(0, n * stride));
  unpack(scratch, hi, lo, ord, seed, n, stride);
}

/** Turns digit d's counts into record offsets; false when every key has the same digit (the pass is skipped). */
function toOffsets(counts: Uint32Array, base: number, stride: number): boolean {
  let nonEmpty = 0;
  for (let j = 0; j < BINS && nonEmpty < 2; j++) if (counts[base + j] !== 0) nonEmpty++;
  if (nonEmpty < 2) return false;
  let sum = 0;
  for (let j = 0; j < BINS; j++) {
    const c = counts[base + j]!;
    counts[base + j] = sum;
    sum += c * stride;
  }
  return true;
}

function pack(hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, seed: Uint32Array | null, n: number, out: Uint32Array, stride: number): void {
  if (seed === null) {
    for (let i = 0, k = 0; i < n; i++, k += 3) {
      out[k] = lo[i]!;
      out[k + 1] = hi[i]!;
      out[k + 2] = ord[i]!;
    }
    return;
  }
  for (let i = 0, k = 0; i < n; i++, k += stride) {
    out[k] = lo[i]!;
    out[k + 1] = hi[i]!;
    out[k + 2] = ord[i]!;
    out[k + 3] = seed[i]!;
  }
}

function unpack(src: Uint32Array, hi: Uint32Array, lo: Uint32Array, ord: Uint32Array, seed: Uint32Array | null, n: number, stride: number): void {
  for (let i = 0, k = 0; i < n; i++, k += stride) {
    lo[i] = src[k]!;
    hi[i] = src[k + 1]!;
    ord[i] = src[k + 2]!;
    if (seed !== null) seed[i] = src[k + 3]!;
  }
}

/** One pass: each record of src[0, words) to its digit's next place in dst. `word`: 0 for lo's digits, 1 for hi's. */
function scatter(src: Uint32Array, dst: Uint32Array, words: number, stride: number, counts: Uint32Array, base: number, word: number, shift: number): void {
  if (stride === 4) {
    for (let k = 0; k < words; k += 4) {
      const bin = base + ((src[k + word]! >>> shift) & MASK);
      const at = counts[bin]!;
      counts[bin] = at + 4;
      dst[at] = src[k]!;
      dst[at + 1] = src[k + 1]!;
      dst[at + 2] = src[k + 2]!;
      dst[at + 3] = src[k + 3]!;
    }
    return;
  }
  for (let k = 0; k < words; k += 3) {
    const bin = base + ((src[k + word]! >>> shift) & MASK);
    const at = counts[bin]!;
    counts[bin] = at + 3;
    dst[at] = src[k]!;
    dst[at + 1] = src[k + 1]!;
    dst[at + 2] = src[k + 2]!;
  }
}
