// Percent-encoding normalization of one URL component (full path only):
// valid escapes get uppercase hex, escapes of unreserved characters are
// decoded, a stray `%` becomes `%25`, and every character outside the
// component's RFC 3986 allowed set is escaped (UTF-8). Output is ASCII.
// Does not split components or know about `&`/`=`; callers do that.

const HEX = '0123456789ABCDEF';

function table(chars: string): Uint8Array {
  const t = new Uint8Array(128);
  for (let c = 48; c <= 57; c++) t[c] = 1;
  for (let c = 65; c <= 90; c++) t[c] = 1;
  for (let c = 97; c <= 122; c++) t[c] = 1;
  for (const ch of chars) t[ch.charCodeAt(0)] = 1;
  return t;
}

/** RFC 3986 unreserved: ALPHA / DIGIT / - . _ ~ (escapes of these are decoded). */
export const UNRESERVED = table('-._~');
/** Path characters kept raw: pchar and `/` (unreserved, sub-delims, `:` `@` `/`). */
export const PATH_RAW = table("-._~!$&'()*+,;=:@/");
/** Query characters kept raw: pchar, `/` and `?`. */
export const QUERY_RAW = table("-._~!$&'()*+,;=:@/?");
/** Userinfo characters kept raw: unreserved and sub-delims (`:` separates user and password). */
export const USERINFO_RAW = table("-._~!$&'()*+,;=");

function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

function escapeByte(b: number): string {
  return '%' + HEX[b >> 4]! + HEX[b & 15]!;
}

/** Normalizes the percent-encoding of `s` against the allowed raw set `raw`. */
export function normalizePercent(s: string, raw: Uint8Array): string {
  const n = s.length;
  let i = 0;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 128 || raw[c] !== 1) break;
  }
  if (i === n) return s;
  // Parts joined once at the end: per-escape `+=` made multi-megabyte URLs slow.
  const parts: string[] = [s.slice(0, i)];
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c === 37) {
      const h1 = i + 1 < n ? hexVal(s.charCodeAt(i + 1)) : -1;
      const h2 = i + 2 < n ? hexVal(s.charCodeAt(i + 2)) : -1;
      if (h1 >= 0 && h2 >= 0) {
        const v = h1 * 16 + h2;
        parts.push(v < 128 && UNRESERVED[v] === 1 ? String.fromCharCode(v) : escapeByte(v));
        i += 3;
      } else {
        parts.push('%25');
        i += 1;
      }
    } else if (c < 128 && raw[c] === 1) {
      // Append the whole run of allowed characters at once (long URLs stay linear and cheap).
      let j = i + 1;
      while (j < n) {
        const d = s.charCodeAt(j);
        if (d >= 128 || raw[d] !== 1) break;
        j++;
      }
      parts.push(s.slice(i, j));
      i = j;
    } else if (c < 128) {
      parts.push(escapeByte(c));
      i += 1;
    } else {
      // Non-ASCII (not produced by WHATWG serialization, but handled): UTF-8 escape the code point.
      const cp = s.codePointAt(i)!;
      const len = cp > 0xffff ? 2 : 1;
      for (const b of Buffer.from(s.slice(i, i + len), 'utf8')) parts.push(escapeByte(b));
      i += len;
    }
  }
  return parts.join('');
}

/** ASCII-lowercases `s` except the hex digits of `%XX` escapes (which stay uppercase). */
export function lowerOutsideEscapes(s: string): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 37) {
      i += 2;
    } else if (c >= 65 && c <= 90) {
      out += s.slice(last, i) + String.fromCharCode(c + 32);
      last = i + 1;
    }
  }
  return last === 0 ? s : out + s.slice(last);
}
