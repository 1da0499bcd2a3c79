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

import type { CompiledPolicy } from './compiled.js';
import {
  compareBytes, dropPath, dropQuery, escapeAt, HOST_MAP, isDotSegment, labelOk, matchLower, MAX_PARAMS, PARAM_END, PARAM_NAME,
  PARAM_START, PATH_MAP, PATH_MAP_LOWER, QUERY_MAP, sortParams,
} from './fast-bytes.js';

/**
 * Writes the canonical form of src[start, end) to out at pos and its
 * host[:port] range to hostStarts[k]/hostEnds[k]; returns the end offset in
 * `out`, or -1 when the URL is outside the fast path's scope. One function
 * on purpose: it runs once per URL on the hot path, its state in locals, with
 * no call per byte.
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
