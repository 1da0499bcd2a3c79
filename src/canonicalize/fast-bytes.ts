// Byte tables and small byte helpers of the canonicalization fast path
// (fast.ts): 256-entry output maps that copy, lowercase or refuse a byte in
// one lookup, host-label and dot-segment checks, %XX escaping, and the
// in-place stable sort of query parameters. Pure functions over
// Uint8Arrays; no URL logic of their own.

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
export const HOST_MAP = map('-.', true);
/** Path bytes copied as they are; `/ % ; =` are 0 (handled apart), like every byte out of scope. */
export const PATH_MAP = map("-._~!$&'()*+,:@", false);
export const PATH_MAP_LOWER = map("-._~!$&'()*+,:@", true);
/** Query bytes copied as they are; `& = % #` are 0 (handled apart), like every byte out of scope. */
export const QUERY_MAP = map('-._~!$()*+,;:@/?', false);

/** ASCII bytes b[s, e) as a string (rare paths only: candidate names for dropping). */
function ascii(b: Uint8Array, s: number, e: number): string {
  let t = '';
  for (let j = s; j < e; j++) t += String.fromCharCode(b[j]!);
  return t;
}

/** Is the path parameter `;name=value` at out[semi, o) (its `=` at eq) one the full path drops? */
export function dropPath(c: CompiledPolicy, out: Uint8Array, semi: number, eq: number, o: number): boolean {
  return dropPathParam(c, ascii(out, semi + 1, eq), ascii(out, eq + 1, o));
}

/** Is the query param at out[ps, o) (name ends at nameEnd) one the full path drops? */
export function dropQuery(c: CompiledPolicy, out: Uint8Array, ps: number, nameEnd: number, o: number): boolean {
  return dropQueryParam(c, ascii(out, ps, nameEnd), nameEnd < o ? ascii(out, nameEnd + 1, o) : '');
}

export function isDotSegment(b: Uint8Array, s: number, e: number): boolean {
  const n = e - s;
  return (n === 1 && b[s] === 46) || (n === 2 && b[s] === 46 && b[s + 1] === 46);
}

/** Label out[s, e): 1..63 bytes and not an `xn--` (punycode) label, which the full parser validates. */
export function labelOk(b: Uint8Array, s: number, e: number): boolean {
  const n = e - s;
  if (n === 0 || n > 63) return false;
  return !(n >= 4 && b[s] === 120 && b[s + 1] === 110 && b[s + 2] === 45 && b[s + 3] === 45);
}

/** Does b[s, e) ASCII-lowercased start with (or, if `whole`, equal) the lowercase bytes `w`? */
export function matchLower(b: Uint8Array, s: number, e: number, w: Uint8Array, whole: boolean): boolean {
  const n = w.length;
  if (whole ? e - s !== n : e - s < n) return false;
  for (let j = 0; j < n; j++) {
    let x = b[s + j]!;
    if (x >= 65 && x <= 90) x += 32;
    if (x !== w[j]) return false;
  }
  return true;
}

export function compareBytes(b: Uint8Array, s1: number, n1: number, s2: number, n2: number): number {
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
export function escapeAt(src: Uint8Array, i: number, end: number, out: Uint8Array, o: number): number {
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
export const MAX_PARAMS = 256;
export const PARAM_START = new Uint32Array(MAX_PARAMS);
export const PARAM_END = new Uint32Array(MAX_PARAMS);
export const PARAM_NAME = new Uint32Array(MAX_PARAMS);
const ORDER = new Uint32Array(MAX_PARAMS);
let sortTmp = Buffer.allocUnsafe(1 << 12);

/** Rewrites out[qs, qe) (count params joined by `&`) in stable name order (rule sort-query). */
export function sortParams(out: Uint8Array, qs: number, qe: number, count: number): void {
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
