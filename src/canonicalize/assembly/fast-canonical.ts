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

import {
  cand, compareBytes, dropPath, dropQuery, escapeAt, F_FOLD_HTTPS, F_LOWER_PATH, F_STRIP_INDEX, F_STRIP_WWW, flags, hostMap, isDotSegment,
  isIndexFile, labelOk, ld, ld32, MAX_PARAMS, P_END, P_NAME, P_START, pathMap, pathMapLower, queryMap, setBatch, sortParams, st, st32,
} from './fast-bytes';

/** Host range of the last URL fastOne accepted. */
let hostStart: i32 = 0;
let hostEnd: i32 = 0;

/** First free byte of linear memory: the caller lays out its regions from here (aligned to 8). */
export function heapBase(): i32 {
  return (<i32>__heap_base + 7) & ~7;
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
  setBatch(pol, scratch);
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
