// AssemblyScript port of the canonicalization byte fast path
// (src/canonicalize/fast.ts and fast-bytes.ts), built to
// dist/src/canonicalize/fast-canonical.wasm by `npm run build`. One call,
// run(), canonicalizes a whole batch of URL ranges already copied into linear
// memory and writes, per line, the end of its canonical bytes and its host
// range, or -1 where the URL is outside the fast path's scope (the caller
// then takes the TypeScript full path for it). It does not allocate, does not
// know the policy's names except as the byte lists of the policy blob
// (src/canonicalize/wasm-policy.ts writes them), and keeps no state across
// calls but the blob's pointers.
// REQUIRES: the same scope and output, byte for byte, as fastCanonical
// (test/canonicalize/wasm.test.ts checks it); every pointer in linear memory
// below 2 GiB; `out` with room for (end - start + 2) bytes per line.

const MAX_PARAMS: i32 = 256;
const P_START: i32 = <i32>memory.data(MAX_PARAMS * 4);
const P_END: i32 = <i32>memory.data(MAX_PARAMS * 4);
const P_NAME: i32 = <i32>memory.data(MAX_PARAMS * 4);
const ORDER: i32 = <i32>memory.data(MAX_PARAMS * 4);

const F_FOLD_HTTPS: i32 = 1;
const F_STRIP_WWW: i32 = 2;
const F_LOWER_PATH: i32 = 4;
const F_STRIP_INDEX: i32 = 8;

let flags: i32 = 0;
let hostMap: i32 = 0;
let pathMap: i32 = 0;
let pathMapLower: i32 = 0;
let queryMap: i32 = 0;
let unreserved: i32 = 0;
let cand: i32 = 0;
let exactList: i32 = 0;
let prefixList: i32 = 0;
let sessionExact: i32 = 0;
let sessionPrefixes: i32 = 0;
let indexList: i32 = 0;
let sortTmp: i32 = 0;
let hostStart: i32 = 0;
let hostEnd: i32 = 0;

@inline function ld(p: i32): i32 {
  return <i32>load<u8>(<usize>p);
}

@inline function st(p: i32, v: i32): void {
  store<u8>(<usize>p, <u8>v);
}

@inline function ld32(p: i32): i32 {
  return load<i32>(<usize>p);
}

@inline function st32(p: i32, v: i32): void {
  store<i32>(<usize>p, v);
}

/** First free byte of linear memory: the caller lays out its regions from here (aligned to 8). */
export function heapBase(): i32 {
  return (<i32>__heap_base + 7) & ~7;
}

/** Reads the policy blob's header (word offsets from its start; wasm-policy.ts lays it out). */
export function setPolicy(pol: i32): void {
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

function dropQuery(ps: i32, nameEnd: i32, o: i32): bool {
  if (inList(exactList, ps, nameEnd, false) || inList(prefixList, ps, nameEnd, true)) return true;
  return nameEnd < o ? sidToken(ps, nameEnd, nameEnd + 1, o) : sidToken(ps, nameEnd, o, o);
}

function dropPath(semi: i32, eq: i32, o: i32): bool {
  if (inList(sessionExact, semi + 1, eq, false) || inList(sessionPrefixes, semi + 1, eq, true)) return true;
  return sidToken(semi + 1, eq, eq + 1, o);
}

@inline function isDotSegment(s: i32, e: i32): bool {
  const n = e - s;
  return (n === 1 && ld(s) === 46) || (n === 2 && ld(s) === 46 && ld(s + 1) === 46);
}

@inline function labelOk(s: i32, e: i32): bool {
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
function escapeAt(i: i32, end: i32, o: i32): i32 {
  if (i + 2 >= end) return -1;
  const h1 = hexVal(ld(i + 1));
  const h2 = hexVal(ld(i + 2));
  if (h1 < 0 || h2 < 0 || ld(unreserved + h1 * 16 + h2) === 1) return -1;
  st(o, 37);
  st(o + 1, h1 < 10 ? 48 + h1 : 55 + h1);
  st(o + 2, h2 < 10 ? 48 + h2 : 55 + h2);
  return o + 3;
}

function compareBytes(s1: i32, n1: i32, s2: i32, n2: i32): i32 {
  const n = n1 < n2 ? n1 : n2;
  for (let j = 0; j < n; j++) {
    const d = ld(s1 + j) - ld(s2 + j);
    if (d !== 0) return d;
  }
  return n1 - n2;
}

/** Rewrites out[qs, qe) (count params joined by `&`) in stable name order. */
function sortParams(qs: i32, qe: i32, count: i32): void {
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
@inline function isIndexFile(s: i32, e: i32): bool {
  return inList(indexList, s, e, false);
}

/**
 * Canonical bytes of src[start, end) at out offset pos, as fastCanonical
 * writes them (same sections, same order); returns the end offset or -1, the
 * host range in hostStart/hostEnd. One function on purpose, like its model.
 */
function fastOne(start: i32, end: i32, pos: i32): i32 {
  let i = start;
  if (end - start < 8) return -1;
  if (ld(i) !== 104 || ld(i + 1) !== 116 || ld(i + 2) !== 116 || ld(i + 3) !== 112) return -1;
  let https = false;
  if (ld(i + 4) === 58) {
    i += 5;
  } else if (ld(i + 4) === 115 && ld(i + 5) === 58) {
    https = true;
    i += 6;
  } else return -1;
  if (i + 1 >= end || ld(i) !== 47 || ld(i + 1) !== 47) return -1;
  i += 2;
  const outHttps = https || (flags & F_FOLD_HTTPS) !== 0;
  let o = pos;
  store<u32>(<usize>o, 0x70747468); // "http"
  o += 4;
  if (outHttps) st(o++, 115);
  st(o++, 58); st(o++, 47); st(o++, 47);

  // Host.
  const hs = o;
  let labelStart = o;
  let ch = -1;
  for (; i < end; i++) {
    const m = ld(hostMap + ld(i));
    if (m < 47) {
      if (m === 0) {
        ch = ld(i);
        break;
      }
      if (m === 46) {
        if (!labelOk(labelStart, o)) return -1;
        st(o++, 46);
        labelStart = o;
        continue;
      }
    }
    st(o++, m);
  }
  if (o === labelStart) {
    if (o === hs) return -1;
    o--;
    labelStart = o;
    while (labelStart > hs && ld(labelStart - 1) !== 46) labelStart--;
  } else if (!labelOk(labelStart, o)) return -1;
  if (o - hs > 253) return -1;
  const first = ld(labelStart);
  if (first >= 48 && first <= 57) return -1;
  while ((flags & F_STRIP_WWW) !== 0 && o - hs > 4 && ld(hs) === 119 && ld(hs + 1) === 119 && ld(hs + 2) === 119 && ld(hs + 3) === 46) {
    let dot = false;
    for (let j = hs + 4; j < o; j++) if (ld(j) === 46) { dot = true; break; }
    if (!dot) break;
    memory.copy(<usize>hs, <usize>(hs + 4), <usize>(o - hs - 4));
    o -= 4;
  }

  // Port.
  if (ch === 58) {
    i++;
    const ds = i;
    let v = 0;
    while (i < end && ld(i) >= 48 && ld(i) <= 57 && i - ds < 6) v = v * 10 + (ld(i++) - 48);
    const nd = i - ds;
    if (nd === 0 || nd > 5 || ld(ds) === 48 || v > 65535) return -1;
    if (v !== (https ? 443 : 80) && !(outHttps && v === 443)) {
      st(o++, 58);
      for (let j = ds; j < i; j++) st(o++, ld(j));
    }
    ch = i < end ? ld(i) : -1;
  }
  hostStart = hs;
  hostEnd = o;
  if (ch !== -1 && ch !== 47 && ch !== 63 && ch !== 35) return -1;

  // Path.
  if (ch === 47) {
    const map = (flags & F_LOWER_PATH) !== 0 ? pathMapLower : pathMap;
    let segStart = o;
    let semi = -1;
    let eq = -1;
    st(o++, 47);
    for (i++; i < end; i++) {
      const b = ld(i);
      const m = ld(map + b);
      if (m !== 0) {
        st(o++, m);
        continue;
      }
      if (b === 37) {
        const w = escapeAt(i, end, o);
        if (w < 0) return -1;
        o = w;
        i += 2;
        continue;
      }
      if (b === 61) {
        if (semi >= 0 && eq < 0) eq = o;
        st(o++, 61);
        continue;
      }
      if (b !== 59 && b !== 47) break;
      if (eq >= 0 && dropPath(semi, eq, o)) o = semi;
      semi = -1;
      eq = -1;
      if (b === 59) {
        semi = o;
        st(o++, 59);
        continue;
      }
      if (isDotSegment(segStart + 1, o)) return -1;
      segStart = o;
      st(o++, 47);
    }
    if (eq >= 0 && dropPath(semi, eq, o)) o = semi;
    if (isDotSegment(segStart + 1, o)) return -1;
    ch = i < end ? ld(i) : -1;
    if (ch !== -1 && ch !== 63 && ch !== 35) return -1;
    if ((flags & F_STRIP_INDEX) !== 0 && isIndexFile(segStart + 1, o)) o = segStart + 1;
  } else {
    st(o++, 47);
  }

  // Query.
  if (ch === 63) {
    i++;
    const qs = o;
    st(o++, 63);
    let count = 0;
    let sorted = true;
    let more = true;
    // A while over a flag, not for (;;) with break: asc 0.28 dropped the code after such a loop.
    while (more) {
      const sep = o;
      if (count > 0) st(o++, 38);
      const ps = o;
      let nameEnd = -1;
      for (; i < end; i++) {
        const b = ld(i);
        const m = ld(queryMap + b);
        if (m !== 0) {
          st(o++, m);
          continue;
        }
        if (b === 61) {
          if (nameEnd < 0) nameEnd = o;
          st(o++, 61);
          continue;
        }
        if (b !== 37) break;
        const w = escapeAt(i, end, o);
        if (w < 0) return -1;
        o = w;
        i += 2;
      }
      if (o === ps) {
        o = sep;
      } else {
        if (nameEnd < 0) nameEnd = o;
        const nl = nameEnd - ps;
        const bits = <u32>ld32(cand + ((nl === 0 ? 256 : ld(ps)) << 2));
        if ((bits & (<u32>1 << <u32>(nl < 31 ? nl : 31))) !== 0 && dropQuery(ps, nameEnd, o)) {
          o = sep;
        } else {
          if (count === MAX_PARAMS) return -1;
          if (count > 0 && compareBytes(ld32(P_START + ((count - 1) << 2)), ld32(P_NAME + ((count - 1) << 2)), ps, nl) > 0) sorted = false;
          st32(P_START + (count << 2), ps);
          st32(P_END + (count << 2), o);
          st32(P_NAME + (count << 2), nl);
          count++;
        }
      }
      more = i < end && ld(i) === 38;
      if (more) i++;
    }
    ch = i < end ? ld(i) : -1;
    if (ch !== -1 && ch !== 35) return -1;
    if (count === 0) o = qs;
    else if (!sorted) sortParams(qs + 1, o, count);
  }

  // Fragment.
  if (ch === 35) {
    for (i++; i < end; i++) {
      const b = ld(i);
      if (b <= 0x20 || b >= 0x7f) return -1;
    }
  }
  return o;
}

/**
 * One batch: line x is src[starts[x], ends[x]) (offsets from src), passed
 * over when skip !== 0 and skip[x] !== 0. Canonical bytes go back to back
 * from out; outEnds[x] is the end of line x's (from out) or -1 when declined
 * or passed over, hostStarts[x]/hostEnds[x] its host range (from out).
 * `scratch` holds the longest line's bytes (the query sort's copy). Returns
 * the count of lines written.
 */
export function run(
  pol: i32, src: i32, starts: i32, ends: i32, skip: i32, n: i32, out: i32, outEnds: i32, hostStarts: i32, hostEnds: i32, scratch: i32,
): i32 {
  setPolicy(pol);
  sortTmp = scratch;
  let o = out;
  let written = 0;
  for (let x = 0; x < n; x++) {
    const w = x << 2;
    let r = -1;
    if (skip === 0 || ld(skip + x) === 0) r = fastOne(src + ld32(starts + w), src + ld32(ends + w), o);
    if (r < 0) {
      st32(outEnds + w, -1);
      continue;
    }
    st32(outEnds + w, r - out);
    st32(hostStarts + w, hostStart - out);
    st32(hostEnds + w, hostEnd - out);
    o = r;
    written++;
  }
  return written;
}
