// The byte fast path: for a plain ASCII http(s) URL that is already nearly
// canonical, writes the canonical bytes straight from the input bytes in one
// pass, with no string or URL object (a table lookup per byte; other work
// only at `.`, `/`, `;`, `=`, `&`, `%`). Scope (anything else declines,
// returning -1, and the caller falls back to the full path): lowercase
// `http://`/`https://`; host of [A-Za-z0-9.-] with valid labels, no `xn--`
// label, last label not starting with a digit (IPv4 rules); optional port
// without leading zero; path of safe bytes and `%XX` escapes of
// reserved/non-ASCII bytes (hex is uppercased; no `.`/`..` segments, also
// none left after dropping a `;name=value` session parameter); query likewise
// (no `'`): empty params skipped, tracking/session params dropped, the rest
// sorted here when out of order; fragment of printable ASCII (dropped).
// Preconditions: `out` has room for (end - start + 2) bytes at `pos`; `c`
// compiled from a mode-'default' policy.
// Contract: returns -1 or exactly the bytes canonicalizeString would produce.

import { dropPathParam, dropQueryParam, type CompiledPolicy } from './compiled.js';

function table(chars: string, alnum = true): Uint8Array {
  const t = new Uint8Array(256);
  if (alnum) {
    for (let c = 48; c <= 57; c++) t[c] = 1;
    for (let c = 65; c <= 90; c++) t[c] = 1;
    for (let c = 97; c <= 122; c++) t[c] = 1;
  }
  for (const ch of chars) t[ch.charCodeAt(0)] = 1;
  return t;
}

/** Output byte of a byte written as-is (ASCII-lowercased when `lower`), or 0 for bytes handled apart or out of scope. */
function map(chars: string, lower: boolean): Uint8Array {
  const ok = table(chars);
  const m = new Uint8Array(256);
  for (let b = 1; b < 256; b++) if (ok[b] === 1) m[b] = lower && b >= 65 && b <= 90 ? b + 32 : b;
  return m;
}

/** Host bytes: letters and digits (lowercased), `-` (45) and `.` (46); 0 ends the host. */
const HOST_MAP = map('-.', true);
/** Path bytes copied as they are; `/ % ; =` are 0 (handled apart), like every byte out of scope. */
const PATH_MAP = map("-._~!$&'()*+,:@", false);
const PATH_MAP_LOWER = map("-._~!$&'()*+,:@", true);
/** Query bytes copied as they are; `& = % #` are 0 (handled apart), like every byte out of scope. */
const QUERY_MAP = map('-._~!$()*+,;:@/?', false);

/** ASCII bytes b[s, e) as a string (rare paths only: candidate names for dropping). */
function ascii(b: Uint8Array, s: number, e: number): string {
  let t = '';
  for (let j = s; j < e; j++) t += String.fromCharCode(b[j]!);
  return t;
}

/** Is the path parameter `;name=value` at out[semi, o) (its `=` at eq) one the full path drops? */
function dropPath(c: CompiledPolicy, out: Uint8Array, semi: number, eq: number, o: number): boolean {
  return dropPathParam(c, ascii(out, semi + 1, eq), ascii(out, eq + 1, o));
}

/** Is the query param at out[ps, o) (name ends at nameEnd) one the full path drops? */
function dropQuery(c: CompiledPolicy, out: Uint8Array, ps: number, nameEnd: number, o: number): boolean {
  return dropQueryParam(c, ascii(out, ps, nameEnd), nameEnd < o ? ascii(out, nameEnd + 1, o) : '');
}

function isDotSegment(b: Uint8Array, s: number, e: number): boolean {
  const n = e - s;
  return (n === 1 && b[s] === 46) || (n === 2 && b[s] === 46 && b[s + 1] === 46);
}

/** Label out[s, e): 1..63 bytes and not an `xn--` (punycode) label, which the full parser validates. */
function labelOk(b: Uint8Array, s: number, e: number): boolean {
  const n = e - s;
  if (n === 0 || n > 63) return false;
  return !(n >= 4 && b[s] === 120 && b[s + 1] === 110 && b[s + 2] === 45 && b[s + 3] === 45);
}

/** Does b[s, e) ASCII-lowercased start with (or, if `whole`, equal) the lowercase bytes `w`? */
function matchLower(b: Uint8Array, s: number, e: number, w: Uint8Array, whole: boolean): boolean {
  const n = w.length;
  if (whole ? e - s !== n : e - s < n) return false;
  for (let j = 0; j < n; j++) {
    let x = b[s + j]!;
    if (x >= 65 && x <= 90) x += 32;
    if (x !== w[j]) return false;
  }
  return true;
}

function compareBytes(b: Uint8Array, s1: number, n1: number, s2: number, n2: number): number {
  const n = n1 < n2 ? n1 : n2;
  for (let j = 0; j < n; j++) {
    const d = b[s1 + j]! - b[s2 + j]!;
    if (d !== 0) return d;
  }
  return n1 - n2;
}

function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

const UNRESERVED = table('-._~');
const HEX = Buffer.from('0123456789ABCDEF', 'latin1');

/**
 * `%XX` at src[i]: writes it with uppercase hex and returns the new out
 * offset, or -1 (declines) for a stray `%` or an escape of an unreserved
 * character, which the full path decodes.
 */
function escapeAt(src: Uint8Array, i: number, end: number, out: Uint8Array, o: number): number {
  if (i + 2 >= end) return -1;
  const h1 = hexVal(src[i + 1]!);
  const h2 = hexVal(src[i + 2]!);
  if (h1 < 0 || h2 < 0 || UNRESERVED[h1 * 16 + h2] === 1) return -1;
  out[o] = 37;
  out[o + 1] = HEX[h1]!;
  out[o + 2] = HEX[h2]!;
  return o + 3;
}

/** Query parameters seen so far: start, end and name length in `out`. */
const MAX_PARAMS = 256;
const PARAM_START = new Uint32Array(MAX_PARAMS);
const PARAM_END = new Uint32Array(MAX_PARAMS);
const PARAM_NAME = new Uint32Array(MAX_PARAMS);
const ORDER = new Uint32Array(MAX_PARAMS);
let sortTmp = Buffer.allocUnsafe(1 << 12);

/** Rewrites out[qs, qe) (count params joined by `&`) in stable name order (rule sort-query). */
function sortParams(out: Uint8Array, qs: number, qe: number, count: number): void {
  if (sortTmp.length < qe - qs) sortTmp = Buffer.allocUnsafe(Math.max(qe - qs, sortTmp.length * 2));
  for (let j = 0; j < qe - qs; j++) sortTmp[j] = out[qs + j]!;
  for (let j = 0; j < count; j++) {
    // Insertion sort on names, stable: move only past strictly greater names.
    let k = j;
    while (k > 0) {
      const a = ORDER[k - 1]!;
      if (compareBytes(out, PARAM_START[a]!, PARAM_NAME[a]!, PARAM_START[j]!, PARAM_NAME[j]!) <= 0) break;
      ORDER[k] = a;
      k--;
    }
    ORDER[k] = j;
  }
  let o = qs;
  for (let j = 0; j < count; j++) {
    const a = ORDER[j]!;
    if (j > 0) out[o++] = 38;
    for (let x = PARAM_START[a]! - qs; x < PARAM_END[a]! - qs; x++) out[o++] = sortTmp[x]!;
  }
}

/**
 * Writes the canonical form of src[start, end) to out at pos and its
 * host[:port] range to hostStarts[k]/hostEnds[k]; returns the end offset in
 * `out`, or -1 when the URL is outside the fast path's scope.
 */
export function fastCanonical(
  src: Uint8Array, start: number, end: number, out: Uint8Array, pos: number,
  c: CompiledPolicy, hostStarts: Uint32Array, hostEnds: Uint32Array, k: number,
): number {
  const p = c.policy;
  let i = start;
  if (end - start < 8) return -1;
  if (src[i] !== 104 || src[i + 1] !== 116 || src[i + 2] !== 116 || src[i + 3] !== 112) return -1;
  let https: boolean;
  if (src[i + 4] === 58) {
    https = false;
    i += 5;
  } else if (src[i + 4] === 115 && src[i + 5] === 58) {
    https = true;
    i += 6;
  } else return -1;
  if (i + 1 >= end || src[i] !== 47 || src[i + 1] !== 47) return -1;
  i += 2;
  const outHttps = https || p.foldHttps;
  let o = pos;
  out[o++] = 104; out[o++] = 116; out[o++] = 116; out[o++] = 112;
  if (outHttps) out[o++] = 115;
  out[o++] = 58; out[o++] = 47; out[o++] = 47;

  // Host: lowercased through HOST_MAP; labels checked as they close (at dots: the only extra branch).
  const hs = o;
  let labelStart = o;
  let ch = -1;
  for (; i < end; i++) {
    const m = HOST_MAP[src[i]!]!;
    if (m < 47) {
      if (m === 0) {
        ch = src[i]!;
        break;
      }
      if (m === 46) {
        if (!labelOk(out, labelStart, o)) return -1;
        out[o++] = 46;
        labelStart = o;
        continue;
      }
    }
    out[o++] = m;
  }
  if (o === labelStart) {
    // Empty host, or one trailing dot (rule trailing-dot): drop it, find the last label again.
    if (o === hs) return -1;
    o--;
    labelStart = o;
    while (labelStart > hs && out[labelStart - 1] !== 46) labelStart--;
  } else if (!labelOk(out, labelStart, o)) return -1;
  if (o - hs > 253) return -1;
  const first = out[labelStart]!;
  if (first >= 48 && first <= 57) return -1; // could be an IPv4 address: the full parser decides
  // Rule strip-www (repeated, like the full path, so the result is idempotent).
  while (p.stripWww && o - hs > 4 && out[hs] === 119 && out[hs + 1] === 119 && out[hs + 2] === 119 && out[hs + 3] === 46) {
    let dot = false;
    for (let j = hs + 4; j < o; j++) if (out[j] === 46) { dot = true; break; }
    if (!dot) break;
    out.copyWithin(hs, hs + 4, o);
    o -= 4;
  }

  // Port: digits without a leading zero, dropped when default.
  if (ch === 58) {
    i++;
    const ds = i;
    let v = 0;
    while (i < end && src[i]! >= 48 && src[i]! <= 57 && i - ds < 6) v = v * 10 + (src[i++]! - 48);
    const nd = i - ds;
    if (nd === 0 || nd > 5 || src[ds] === 48 || v > 65535) return -1;
    if (v !== (https ? 443 : 80) && !(outHttps && v === 443)) {
      out[o++] = 58;
      for (let j = ds; j < i; j++) out[o++] = src[j]!;
    }
    ch = i < end ? src[i]! : -1;
  }
  hostStarts[k] = hs;
  hostEnds[k] = o;
  if (ch !== -1 && ch !== 47 && ch !== 63 && ch !== 35) return -1;

  // Path: plain bytes through one table lookup; `/ % ; =` handled apart.
  if (ch === 47) {
    const map = p.lowercasePath ? PATH_MAP_LOWER : PATH_MAP;
    let segStart = o; // the `/` opening the current segment
    let semi = -1; // the `;` opening the current path parameter (rule session-path-params)
    let eq = -1; // the first `=` after it
    out[o++] = 47;
    for (i++; i < end; i++) {
      const b = src[i]!;
      const m = map[b]!;
      if (m !== 0) {
        out[o++] = m;
        continue;
      }
      if (b === 37) {
        const w = escapeAt(src, i, end, out, o);
        if (w < 0) return -1;
        o = w;
        i += 2;
        continue;
      }
      if (b === 61) {
        if (semi >= 0 && eq < 0) eq = o;
        out[o++] = 61;
        continue;
      }
      if (b !== 59 && b !== 47) break;
      if (eq >= 0 && dropPath(c, out, semi, eq, o)) o = semi;
      semi = -1;
      eq = -1;
      if (b === 59) {
        semi = o;
        out[o++] = 59;
        continue;
      }
      if (isDotSegment(out, segStart + 1, o)) return -1;
      segStart = o;
      out[o++] = 47;
    }
    if (eq >= 0 && dropPath(c, out, semi, eq, o)) o = semi;
    if (isDotSegment(out, segStart + 1, o)) return -1;
    ch = i < end ? src[i]! : -1;
    if (ch !== -1 && ch !== 63 && ch !== 35) return -1;
    if (p.stripIndex) {
      for (const w of c.fastIndex) {
        if (matchLower(out, segStart + 1, o, w, true)) {
          o = segStart + 1;
          break;
        }
      }
    }
  } else {
    out[o++] = 47; // rule empty-path
  }

  // Query: empty params skipped, tracking/session params dropped, the rest sorted by name when out of order.
  if (ch === 63) {
    i++;
    const qs = o;
    out[o++] = 63;
    const cand = c.fastQueryCand;
    let count = 0;
    let sorted = true;
    for (;;) {
      const sep = o;
      if (count > 0) out[o++] = 38;
      const ps = o;
      let nameEnd = -1;
      for (; i < end; i++) {
        const b = src[i]!;
        const m = QUERY_MAP[b]!;
        if (m !== 0) {
          out[o++] = m;
          continue;
        }
        if (b === 61) {
          if (nameEnd < 0) nameEnd = o;
          out[o++] = 61;
          continue;
        }
        if (b !== 37) break;
        const w = escapeAt(src, i, end, out, o);
        if (w < 0) return -1;
        o = w;
        i += 2;
      }
      if (o === ps) {
        o = sep; // empty param (rule empty-query)
      } else {
        if (nameEnd < 0) nameEnd = o;
        const nl = nameEnd - ps;
        if ((cand[nl === 0 ? 256 : out[ps]!]! & (1 << (nl < 31 ? nl : 31))) !== 0 && dropQuery(c, out, ps, nameEnd, o)) {
          o = sep;
        } else {
          if (count === MAX_PARAMS) return -1;
          if (count > 0 && compareBytes(out, PARAM_START[count - 1]!, PARAM_NAME[count - 1]!, ps, nl) > 0) sorted = false;
          PARAM_START[count] = ps;
          PARAM_END[count] = o;
          PARAM_NAME[count] = nl;
          count++;
        }
      }
      if (i < end && src[i] === 38) {
        i++;
        continue;
      }
      break;
    }
    ch = i < end ? src[i]! : -1;
    if (ch !== -1 && ch !== 35) return -1;
    if (count === 0) o = qs;
    else if (!sorted) sortParams(out, qs + 1, o, count);
  }

  // Fragment: dropped, but its bytes must be ones the full path accepts unchanged.
  if (ch === 35) {
    for (i++; i < end; i++) {
      const b = src[i]!;
      if (b <= 0x20 || b >= 0x7f) return -1;
    }
  }
  return o;
}
