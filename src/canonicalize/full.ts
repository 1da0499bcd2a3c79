// The full canonicalization path: one URL string (plus an optional base for
// relative references) to its canonical ASCII form with the host[:port]
// range, or a RejectReason. Uses Node's WHATWG URL parser, then applies the
// named rules of docs/canonicalization.md. Never throws on any input string.
// Does not read bytes or batches (batch.ts does) and has no fast path (fast.ts).

import type { RejectReason } from '../input/types.js';
import { compile, dropPathParam, dropQueryParam, type CompiledPolicy } from './compiled.js';
import { lowerOutsideEscapes, normalizePercent, PATH_RAW, QUERY_RAW, USERINFO_RAW } from './percent.js';
import { keyOf } from './post.js';
import { profileUrl } from './profiles/index.js';
import type { CanonicalPolicy } from './types.js';

/** A canonical URL; `url.slice(hostStart, hostEnd)` is its host[:port]. */
export interface CanonicalUrl {
  url: string;
  hostStart: number;
  hostEnd: number;
}

/** Either a canonical URL or the reason the input was rejected. */
export type CanonicalResult = CanonicalUrl | RejectReason;

export function isRejected(r: CanonicalResult): r is RejectReason {
  return typeof r === 'string';
}

const SCHEME_RE = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const HOST_CHARS = /^[a-z0-9_.-]+$/;
const DOT_SEGMENT = /(^|\/)\.\.?(\/|$)/;

// One-entry cache: TSV lines from the same page share their base.
let lastBaseText: string | null = null;
let lastBaseUrl: URL | null = null;

/** Parses a base leniently: anything WHATWG accepts as an absolute URL; null otherwise. */
function parseBase(base: string): URL | null {
  if (base === lastBaseText) return lastBaseUrl;
  let u: URL | null = null;
  try {
    u = new URL(base);
  } catch {
    u = null;
  }
  lastBaseText = base;
  lastBaseUrl = u;
  return u;
}

function isWellFormed(s: string): boolean {
  return (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

/** Why WHATWG refused an http(s) URL: for special schemes only the authority can fail. */
function classifyFailure(s: string, schemeLen: number): RejectReason {
  let i = schemeLen;
  while (i < s.length && (s[i] === '/' || s[i] === '\\')) i++;
  let j = i;
  while (j < s.length && s[j] !== '/' && s[j] !== '\\' && s[j] !== '?' && s[j] !== '#') j++;
  let auth = s.slice(i, j);
  const at = auth.lastIndexOf('@');
  if (at >= 0) auth = auth.slice(at + 1);
  let port = '';
  if (auth.startsWith('[')) {
    const close = auth.indexOf(']');
    if (close < 0) return 'invalid-host';
    if (auth.length > close + 1) {
      if (auth[close + 1] !== ':') return 'invalid-host';
      port = auth.slice(close + 2);
    }
  } else {
    const colon = auth.lastIndexOf(':');
    if (colon >= 0) {
      port = auth.slice(colon + 1);
      auth = auth.slice(0, colon);
    }
  }
  if (port !== '' && (!/^[0-9]+$/.test(port) || Number(port) > 65535)) return 'invalid-port';
  return 'invalid-host';
}

/** Domain hosts: LDH plus `_`, labels 1..63 bytes, at most 253 bytes. IP literals pass. */
function validHost(host: string): boolean {
  if (host.length === 0 || host.length > 253 || !HOST_CHARS.test(host)) return false;
  let start = 0;
  for (let i = 0; i <= host.length; i++) {
    if (i === host.length || host.charCodeAt(i) === 46) {
      const len = i - start;
      if (len === 0 || len > 63) return false;
      start = i + 1;
    }
  }
  return true;
}

/** Rule session-path-params: removes `;jsessionid=...` and other session path parameters. */
function stripSessionPathParams(path: string, c: CompiledPolicy): string {
  if (path.indexOf(';') < 0) return path;
  const out = path.replace(/;([^;/=]*)=([^;/]*)/g, (m, name: string, value: string) =>
    dropPathParam(c, name, value) ? '' : m,
  );
  if (out === path || !DOT_SEGMENT.test(out)) return out;
  // Removing a parameter can expose a `.`/`..` segment: resolve it as the parser would.
  return new URL('http://h' + out).pathname;
}

/** Rule strip-index (optional): drops a default index file name from the last segment. */
function stripIndexFile(path: string, c: CompiledPolicy): string {
  const slash = path.lastIndexOf('/');
  const last = path.slice(slash + 1).toLowerCase();
  return c.indexFiles.has(last) ? path.slice(0, slash + 1) : path;
}

/** Rules tracking-params, session-params, sort-query, empty-query. `q` excludes the `?`. */
function canonQuery(q: string, c: CompiledPolicy): string {
  const kept: { name: string; param: string }[] = [];
  let sorted = true;
  for (const raw of q.split('&')) {
    if (raw.length === 0) continue;
    const param = normalizePercent(raw, QUERY_RAW);
    const eq = param.indexOf('=');
    const name = eq < 0 ? param : param.slice(0, eq);
    if (dropQueryParam(c, name, eq < 0 ? '' : param.slice(eq + 1))) continue;
    if (kept.length > 0 && kept[kept.length - 1]!.name > name) sorted = false;
    kept.push({ name, param });
  }
  if (!sorted) kept.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  let out = '';
  for (let i = 0; i < kept.length; i++) out += (i === 0 ? '' : '&') + kept[i]!.param;
  return out;
}

/**
 * Canonicalizes `input` under `policy` (mode 'default'; mode 'none' returns
 * the input unchanged with its raw host range). `base` is the source URL a
 * relative `input` is resolved against, or null. A profile other than drum,
 * user rules or the SURT form go through post.ts. Never throws.
 */
export function canonicalizeString(input: string, base: string | null, policy: CanonicalPolicy): CanonicalResult {
  if (policy.mode === 'none') return rawCanonical(input);
  if (policy.profile === 'drum' && policy.rules === null && !policy.surt) return drumCanonical(input, base, policy);
  const profile = policy.profile;
  const stage = profile === 'drum'
    ? (s: string, b: string | null): CanonicalResult => drumCanonical(s, b, policy)
    : (s: string, b: string | null): CanonicalResult => {
      const r = profileUrl(s, b, profile);
      if (!r.includes('://')) return r as RejectReason;
      const h = r.indexOf('://') + 3;
      let e = h;
      while (e < r.length && r[e] !== '/' && r[e] !== '?') e++;
      const at = r.lastIndexOf('@', e - 1);
      return { url: r, hostStart: at >= h ? at + 1 : h, hostEnd: e };
    };
  return keyOf(input, base, policy, stage);
}

/** The drum profile's full path. */
function drumCanonical(input: string, base: string | null, policy: CanonicalPolicy): CanonicalResult {
  if (!isWellFormed(input)) return 'invalid-utf8';
  let lo = 0;
  let hi = input.length;
  for (let i = 0; i < hi; i++) {
    const ch = input.charCodeAt(i);
    if (ch < 0x20 || ch === 0x7f) return 'control-char';
  }
  while (lo < hi && input.charCodeAt(lo) === 0x20) lo++;
  while (hi > lo && input.charCodeAt(hi - 1) === 0x20) hi--;
  if (lo === hi) return 'empty';
  const s = lo === 0 && hi === input.length ? input : input.slice(lo, hi);

  const m = SCHEME_RE.exec(s);
  if (m) {
    const scheme = m[1]!.toLowerCase();
    if (scheme !== 'http' && scheme !== 'https') return 'unsupported-scheme';
  }
  const baseUrl = base === null || base.length === 0 ? null : parseBase(base);
  if (!m && baseUrl === null) return 'relative-without-base';
  let u: URL;
  try {
    u = baseUrl === null ? new URL(s) : new URL(s, baseUrl);
  } catch {
    return classifyFailure(s, m ? m[0].length : 0);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'unsupported-scheme';
  return assemble(u, compile(policy));
}

/** Applies the rules to a parsed http(s) URL. */
function assemble(u: URL, c: CompiledPolicy): CanonicalResult {
  const p = c.policy;
  let host = u.hostname;
  if (host.charCodeAt(0) !== 91 /* [ IPv6 literal, already canonical */) {
    let e = host.length;
    while (e > 0 && host.charCodeAt(e - 1) === 46) e--; // rule trailing-dot
    if (e !== host.length) host = host.slice(0, e);
    if (!validHost(host)) return 'invalid-host';
    while (p.stripWww && host.startsWith('www.') && host.indexOf('.', 4) > 0) host = host.slice(4); // rule strip-www
  }
  const https = u.protocol === 'https:' || p.foldHttps; // rule fold-https
  let port = u.port; // rule default-port: WHATWG already drops 80/443 for their scheme
  if (https && port === '443') port = '';

  let auth = '';
  if (u.username !== '' || u.password !== '') {
    auth = normalizePercent(u.username, USERINFO_RAW);
    if (u.password !== '') auth += ':' + normalizePercent(u.password, USERINFO_RAW);
    auth += '@';
  }

  let path = normalizePercent(u.pathname, PATH_RAW); // rule percent-encoding
  path = stripSessionPathParams(path, c);
  if (p.stripIndex) path = stripIndexFile(path, c);
  if (p.lowercasePath) path = lowerOutsideEscapes(path);

  const query = u.search.length > 1 ? canonQuery(u.search.slice(1), c) : '';

  const head = (https ? 'https://' : 'http://') + auth;
  const hostPort = port === '' ? host : host + ':' + port;
  const url = head + hostPort + path + (query === '' ? '' : '?' + query);
  return { url, hostStart: head.length, hostEnd: head.length + hostPort.length };
}

/** Raw mode: the URL is the input; host range after `://` up to `/ ? #` or end, else empty. */
function rawCanonical(input: string): CanonicalResult {
  if (input.length === 0) return 'empty';
  const k = input.indexOf('://');
  if (k < 0) return { url: input, hostStart: 0, hostEnd: 0 };
  let e = k + 3;
  while (e < input.length) {
    const ch = input.charCodeAt(e);
    if (ch === 47 || ch === 63 || ch === 35) break;
    e++;
  }
  return { url: input, hostStart: k + 3, hostEnd: e };
}
