// Plans how to sort a bucket that does not fit the sort area: cuts the
// bucket's key space into prefix ranges (256 children per level, counted by
// a pass over the bucket's entries only where a range is still too big) and
// groups consecutive ranges into slices of at most `cap` entries, in
// ascending key order, so each slice can be loaded, sorted and merged with
// the store file in turn. A range of one single key holding more than `cap`
// entries (one URL repeated that often) becomes its own slice, loaded as its
// first entry only. Planning arithmetic uses BigInt (a few hundred ranges at
// most); the per-entry helpers (digitOf, inSlice) use hi/lo words.
// Does not read files: the caller counts and loads.

/** Keys whose top `bits` bits equal those of `base` (low bits of base are zero). */
export interface PrefixRange {
  bits: number;
  base: bigint;
}

/** Keys in [lower, upper) (upper null: to the end of the key space), `count` entries planned. */
export interface Slice {
  lowerHi: number;
  lowerLo: number;
  upperHi: number;
  upperLo: number;
  unbounded: boolean;
  count: number;
  /** One key repeated more than `cap` times: load only its first (earliest) entry. */
  single: boolean;
}

/** Counts the entries of `r` by their next `width` key bits (out.length = 2^width). */
export type CountChildren = (r: PrefixRange, width: number, out: Float64Array) => void;

const KEY_SPACE = 1n << 64n;
const MASK32 = 0xffffffffn;

/** The range of bucket `b` when the bucket number is the key's top `bucketBits` bits. */
export function bucketRange(b: number, bucketBits: number): PrefixRange {
  return { bits: bucketBits, base: bucketBits === 0 ? 0n : BigInt(b) << BigInt(64 - bucketBits) };
}

/** Key bits [p, p + w) of the key (hi, lo) as a number (0 < w <= 8, p + w <= 64). */
export function digitOf(hi: number, lo: number, p: number, w: number): number {
  const shift = 64 - p - w; // key bits below the digit
  const mask = (1 << w) - 1;
  if (shift >= 32) return (hi >>> (shift - 32)) & mask;
  if (p >= 32) return (lo >>> shift) & mask;
  return ((hi << (32 - shift)) | (lo >>> shift)) & mask;
}

/** True if the key (hi, lo) lies in the slice. */
export function inSlice(s: Slice, hi: number, lo: number): boolean {
  if (hi < s.lowerHi || (hi === s.lowerHi && lo < s.lowerLo)) return false;
  return s.unbounded || hi < s.upperHi || (hi === s.upperHi && lo < s.upperLo);
}

/**
 * Slices covering every entry of `root` (which holds `count` entries), each
 * of at most `cap` entries except single-key slices, in ascending key order.
 */
export function planSlices(root: PrefixRange, count: number, cap: number, countChildren: CountChildren): Slice[] {
  if (cap < 1) throw new RangeError('planSlices: cap must be at least 1');
  const out: Slice[] = [];
  let cur: { lower: bigint; upper: bigint; count: number } | null = null;
  const close = (): void => {
    if (cur !== null) out.push(toSlice(cur.lower, cur.upper, cur.count, false));
    cur = null;
  };
  const visit = (r: PrefixRange, c: number): void => {
    if (c === 0) return;
    const upper = r.base + (1n << BigInt(64 - r.bits));
    if (c <= cap) {
      if (cur !== null && cur.count + c <= cap) {
        cur.upper = upper;
        cur.count += c;
      } else {
        close();
        cur = { lower: r.base, upper, count: c };
      }
      return;
    }
    if (r.bits === 64) {
      close();
      out.push(toSlice(r.base, upper, c, true));
      return;
    }
    const w = Math.min(8, 64 - r.bits);
    const counts = new Float64Array(1 << w);
    countChildren(r, w, counts);
    let sum = 0;
    for (const x of counts) sum += x;
    if (sum !== c) throw new Error(`planSlices: range holds ${sum} entries, ${c} expected`);
    for (let d = 0; d < counts.length; d++) {
      visit({ bits: r.bits + w, base: r.base + (BigInt(d) << BigInt(64 - r.bits - w)) }, counts[d]!);
    }
  };
  visit(root, count);
  close();
  return out;
}

function toSlice(lower: bigint, upper: bigint, count: number, single: boolean): Slice {
  const unbounded = upper >= KEY_SPACE;
  return {
    lowerHi: Number(lower >> 32n), lowerLo: Number(lower & MASK32),
    upperHi: unbounded ? 0 : Number(upper >> 32n), upperLo: unbounded ? 0 : Number(upper & MASK32),
    unbounded, count, single,
  };
}

/** The prefix range's bounds as hi/lo words, for filtering entries in loops. */
export function rangeWords(r: PrefixRange): { baseHi: number; baseLo: number } {
  return { baseHi: Number(r.base >> 32n), baseLo: Number(r.base & MASK32) };
}

/** True if the key (hi, lo) has the range's prefix. */
export function inPrefix(r: PrefixRange, baseHi: number, baseLo: number, hi: number, lo: number): boolean {
  const p = r.bits;
  if (p === 0) return true;
  if (p <= 32) return p === 32 ? hi === baseHi : hi >>> (32 - p) === baseHi >>> (32 - p);
  if (hi !== baseHi) return false;
  return p === 64 ? lo === baseLo : lo >>> (64 - p) === baseLo >>> (64 - p);
}
