// Shared pieces of the peer profiles (src/canonicalize/profiles/*): splitting
// an absolute URL string into its parts the way the peers' own parsers do
// (no decoding, no validation), percent-escape helpers over UTF-8 bytes held
// as latin1 strings, and the host range of a finished URL. Does not apply any
// profile's rules and never throws.
// REQUIRES: byte strings (latin1, one char per byte) where a name says "bytes".

/** Parts of `scheme://userinfo@host:port/path?query#fragment`; null fields were absent. */
export interface UrlParts {
  scheme: string;
  userinfo: string | null;
  host: string;
  port: string | null;
  path: string;
  query: string | null;
}

const SCHEME_RE = /^([A-Za-z][A-Za-z0-9+.-]*):/;

/** The lowercased scheme of `s`, or null when it starts with none. */
export function schemeOf(s: string): string | null {
  const m = SCHEME_RE.exec(s);
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * Splits an absolute hierarchical URL (any number of slashes after the
 * scheme, `\` read as `/`). The fragment is dropped. Null when there is no
 * `scheme:`.
 */
export function splitUrl(s: string): UrlParts | null {
  const m = SCHEME_RE.exec(s);
  if (!m) return null;
  let i = m[0].length;
  while (i < s.length && (s[i] === '/' || s[i] === '\\')) i++;
  const hash = s.indexOf('#', i);
  const end = hash < 0 ? s.length : hash;
  let a = i;
  while (a < end && s[a] !== '/' && s[a] !== '\\' && s[a] !== '?') a++;
  let auth = s.slice(i, a);
  let userinfo: string | null = null;
  const at = auth.lastIndexOf('@');
  if (at >= 0) {
    userinfo = auth.slice(0, at);
    auth = auth.slice(at + 1);
  }
  let port: string | null = null;
  const close = auth.lastIndexOf(']');
  const colon = auth.lastIndexOf(':');
  if (colon > close) {
    port = auth.slice(colon + 1);
    auth = auth.slice(0, colon);
  }
  const q = s.indexOf('?', a);
  const pathEnd = q >= 0 && q < end ? q : end;
  return {
    scheme: m[1]!.toLowerCase(),
    userinfo,
    host: auth,
    port,
    path: s.slice(a, pathEnd).replace(/\\/g, '/'),
    query: q >= 0 && q < end ? s.slice(q + 1, end) : null,
  };
}

const HEX = '0123456789ABCDEF';

export function hexVal(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

export function escapeByte(b: number): string {
  return '%' + HEX[b >> 4]! + HEX[b & 15]!;
}

/** UTF-8 bytes of `s` as a latin1 string (ASCII input comes back unchanged). */
export function toBytes(s: string): string {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(s) ? s : Buffer.from(s, 'utf8').toString('latin1');
}

/** Decodes every valid `%XX` once (bytes in, bytes out). */
export function unescapeOnce(b: string): string {
  const first = b.indexOf('%');
  if (first < 0) return b;
  let out = b.slice(0, first);
  for (let i = first; i < b.length; i++) {
    const c = b.charCodeAt(i);
    if (c === 37 && i + 2 < b.length) {
      const h1 = hexVal(b.charCodeAt(i + 1));
      const h2 = hexVal(b.charCodeAt(i + 2));
      if (h1 >= 0 && h2 >= 0) {
        out += String.fromCharCode(h1 * 16 + h2);
        i += 2;
        continue;
      }
    }
    out += b[i];
  }
  return out;
}

/** Decodes `%XX` until nothing changes (Safe Browsing's "repeatedly unescape"). */
export function unescapeRepeatedly(b: string): string {
  for (let i = 0; i < 64; i++) {
    const next = unescapeOnce(b);
    if (next === b) return b;
    b = next;
  }
  return b;
}

/** Escapes every byte for which `keep` is false (bytes in, ASCII out). */
export function escapeBytes(b: string, keep: (c: number) => boolean): string {
  let i = 0;
  while (i < b.length && keep(b.charCodeAt(i))) i++;
  if (i === b.length) return b; // nothing to escape: the common case
  const parts: string[] = [b.slice(0, i)];
  for (; i < b.length; i++) {
    const c = b.charCodeAt(i);
    parts.push(keep(c) ? b[i]! : escapeByte(c));
  }
  return parts.join('');
}

/** The host[:port] range of an absolute `scheme://[userinfo@]host[:port]...` URL. */
export function hostRange(url: string): { hostStart: number; hostEnd: number } {
  const k = url.indexOf('://');
  let s = k < 0 ? 0 : k + 3;
  let e = s;
  while (e < url.length && url[e] !== '/' && url[e] !== '?' && url[e] !== '#') e++;
  const at = url.lastIndexOf('@', e - 1);
  if (at >= s) s = at + 1;
  return { hostStart: s, hostEnd: e };
}

/** True for printable ASCII without space: the bytes every drum key is made of. */
export function printableAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return s.length > 0;
}

/** Resolves `.` and `..` segments (RFC 3986 §5.2.4); a `..` above the root is dropped. */
export function removeDotSegments(path: string): string {
  if (!/(^|\/)\.\.?(\/|$)/.test(path)) return path;
  const out: string[] = [];
  const segs = path.split('/');
  for (let i = 1; i < segs.length; i++) {
    const seg = segs[i]!;
    const last = i === segs.length - 1;
    if (seg === '.') {
      if (last) out.push('');
    } else if (seg === '..') {
      out.pop();
      if (last) out.push('');
    } else {
      out.push(seg);
    }
  }
  return '/' + out.join('/');
}
