// Helpers of the WebAssembly fast path (fast-canonical.ts), the AssemblyScript
// side of src/canonicalize/fast-bytes.ts and compiled.ts: byte loads and
// stores, the policy blob's pointers (setBatch), parameter-name matching
// against the blob's lists (tracking and session names, `sid` tokens, index
// files), host-label and dot-segment checks, %XX escaping and the stable
// query sort. No URL logic of its own; allocates nothing.
// REQUIRES: the blob layout of src/canonicalize/wasm-policy.ts; sortTmp set
// to a scratch area as long as the longest URL before sortParams runs.

export const MAX_PARAMS: i32 = 256;
export const P_START: i32 = <i32>memory.data(MAX_PARAMS * 4);
export const P_END: i32 = <i32>memory.data(MAX_PARAMS * 4);
export const P_NAME: i32 = <i32>memory.data(MAX_PARAMS * 4);
const ORDER: i32 = <i32>memory.data(MAX_PARAMS * 4);

export const F_FOLD_HTTPS: i32 = 1;
export const F_STRIP_WWW: i32 = 2;
export const F_LOWER_PATH: i32 = 4;
export const F_STRIP_INDEX: i32 = 8;

export let flags: i32 = 0;
export let hostMap: i32 = 0;
export let pathMap: i32 = 0;
export let pathMapLower: i32 = 0;
export let queryMap: i32 = 0;
let unreserved: i32 = 0;
export let cand: i32 = 0;
let exactList: i32 = 0;
let prefixList: i32 = 0;
let sessionExact: i32 = 0;
let sessionPrefixes: i32 = 0;
let indexList: i32 = 0;
let sortTmp: i32 = 0;

@inline export function ld(p: i32): i32 {
  return <i32>load<u8>(<usize>p);
}

@inline export function st(p: i32, v: i32): void {
  store<u8>(<usize>p, <u8>v);
}

@inline export function ld32(p: i32): i32 {
  return load<i32>(<usize>p);
}

@inline export function st32(p: i32, v: i32): void {
  store<i32>(<usize>p, v);
}

/** Reads the policy blob's header (word offsets from its start; wasm-policy.ts lays it out) and takes `scratch` for the query sort. */
export function setBatch(pol: i32, scratch: i32): void {
  sortTmp = scratch;
  flags = ld32(pol);
  hostMap = pol + ld32(pol + 4);
  pathMap = pol + ld32(pol + 8);
  pathMapLower = pol + ld32(pol + 12);
  queryMap = pol + ld32(pol + 16);
  unreserved = pol + ld32(pol + 20);
  cand = pol + ld32(pol + 24);
  exactList = pol + ld32(pol + 28);
  prefixList = pol + ld32(pol + 32);
  sessionExact = pol + ld32(pol + 36);
  sessionPrefixes = pol + ld32(pol + 40);
  indexList = pol + ld32(pol + 44);
}

/** Does some name of `list` (u32 count, then u32 length + bytes each) equal (or prefix, if `prefix`) lowercase out[s, e)? */
function inList(list: i32, s: i32, e: i32, prefix: bool): bool {
  const count = ld32(list);
  let p = list + 4;
  const n = e - s;
  for (let x = 0; x < count; x++) {
    const len = ld32(p);
    p += 4;
    if (prefix ? len <= n : len === n) {
      let j = 0;
      for (; j < len; j++) {
        let b = ld(s + j);
        if (b >= 65 && b <= 90) b += 32;
        if (b !== ld(p + j)) break;
      }
      if (j === len) return true;
    }
    p += len;
  }
  return false;
}

/** Is lowercase out[s, e) `sid`, and out[vs, ve) a session token (>= 16 ASCII letters and digits)? */
function sidToken(s: i32, e: i32, vs: i32, ve: i32): bool {
  if (e - s !== 3 || (ld(s) | 32) !== 115 || (ld(s + 1) | 32) !== 105 || (ld(s + 2) | 32) !== 100) return false;
  if (ve - vs < 16) return false;
  for (let j = vs; j < ve; j++) {
    const b = ld(j);
    if (!((b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122))) return false;
  }
  return true;
}

export function dropQuery(ps: i32, nameEnd: i32, o: i32): bool {
  if (inList(exactList, ps, nameEnd, false) || inList(prefixList, ps, nameEnd, true)) return true;
  return nameEnd < o ? sidToken(ps, nameEnd, nameEnd + 1, o) : sidToken(ps, nameEnd, o, o);
}

export function dropPath(semi: i32, eq: i32, o: i32): bool {
  if (inList(sessionExact, semi + 1, eq, false) || inList(sessionPrefixes, semi + 1, eq, true)) return true;
  return sidToken(semi + 1, eq, eq + 1, o);
}

@inline export function isDotSegment(s: i32, e: i32): bool {
  const n = e - s;
  return (n === 1 && ld(s) === 46) || (n === 2 && ld(s) === 46 && ld(s + 1) === 46);
}

@inline export function labelOk(s: i32, e: i32): bool {
  const n = e - s;
  if (n === 0 || n > 63) return false;
  return !(n >= 4 && ld(s) === 120 && ld(s + 1) === 110 && ld(s + 2) === 45 && ld(s + 3) === 45);
}

@inline function hexVal(c: i32): i32 {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** `%XX` at src i: writes it with uppercase hex at o and returns o + 3, or -1 for a stray `%` or an unreserved escape. */
export function escapeAt(i: i32, end: i32, o: i32): i32 {
  if (i + 2 >= end) return -1;
  const h1 = hexVal(ld(i + 1));
  const h2 = hexVal(ld(i + 2));
  if (h1 < 0 || h2 < 0 || ld(unreserved + h1 * 16 + h2) === 1) return -1;
  st(o, 37);
  st(o + 1, h1 < 10 ? 48 + h1 : 55 + h1);
  st(o + 2, h2 < 10 ? 48 + h2 : 55 + h2);
  return o + 3;
}

export function compareBytes(s1: i32, n1: i32, s2: i32, n2: i32): i32 {
  const n = n1 < n2 ? n1 : n2;
  for (let j = 0; j < n; j++) {
    const d = ld(s1 + j) - ld(s2 + j);
    if (d !== 0) return d;
  }
  return n1 - n2;
}

/** Rewrites out[qs, qe) (count params joined by `&`) in stable name order. */
export function sortParams(qs: i32, qe: i32, count: i32): void {
  memory.copy(<usize>sortTmp, <usize>qs, <usize>(qe - qs));
  for (let j = 0; j < count; j++) {
    let k = j;
    while (k > 0) {
      const a = ld32(ORDER + ((k - 1) << 2));
      if (compareBytes(ld32(P_START + (a << 2)), ld32(P_NAME + (a << 2)), ld32(P_START + (j << 2)), ld32(P_NAME + (j << 2))) <= 0) break;
      st32(ORDER + (k << 2), a);
      k--;
    }
    st32(ORDER + (k << 2), j);
  }
  let o = qs;
  for (let j = 0; j < count; j++) {
    const a = ld32(ORDER + (j << 2));
    if (j > 0) st(o++, 38);
    const ps = ld32(P_START + (a << 2));
    const len = ld32(P_END + (a << 2)) - ps;
    memory.copy(<usize>o, <usize>(sortTmp + ps - qs), <usize>len);
    o += len;
  }
}

/** Does lowercase out[s, e) equal one of the index-file names? */
@inline export function isIndexFile(s: i32, e: i32): bool {
  return inList(indexList, s, e, false);
}
