// The `safebrowsing` profile: Google Safe Browsing's URL canonicalization
// (developers.google.com/safe-browsing/v4/urls-hashing), which
// webarchive-commons' BasicURLCanonicalizer also implements and the `ia`
// profile runs first. Rules, in order: drop the fragment; repeatedly
// percent-unescape host, path and query; host: strip leading/trailing dots,
// collapse runs of dots, lowercase, IPv4 in any inet_aton form to dotted
// decimal, IDN to punycode; path: resolve `.`/`..`, collapse `//`, empty
// becomes `/`; drop a default port; the scheme keeps its case; then escape every byte <= 0x20, >= 0x7f,
// `#` and `%`. The query keeps its order and an empty `?`.
// Does not validate the result (profiles/index.ts does) and never throws.

import { domainToASCII } from 'node:url';
import { escapeBytes, splitUrl, toBytes, unescapeRepeatedly, type UrlParts } from './parts.js';

/** Safe Browsing's escape set: keep printable ASCII except `#` and `%`. */
export function keepGoogle(c: number): boolean {
  return c > 0x20 && c < 0x7f && c !== 35 && c !== 37;
}

/** One IPv4 part in inet_aton form (decimal, 0-octal, 0x-hex), or -1. */
function ipPart(p: string): number {
  if (/^0[xX][0-9a-fA-F]*$/.test(p)) return p.length === 2 ? 0 : parseInt(p.slice(2), 16);
  if (/^0[0-7]*$/.test(p)) return parseInt(p, 8);
  if (/^[1-9][0-9]*$/.test(p)) return Number(p);
  return -1;
}

/** Dotted-decimal form of an inet_aton IPv4 host ("3279880203", "0x7f.1", "017.0.0.1"), or null. */
export function ipv4(host: string): string | null {
  const parts = host.split('.');
  if (parts.length > 4 || parts.some((p) => p === '')) return null;
  const nums = parts.map(ipPart);
  if (nums.some((n) => n < 0 || !Number.isFinite(n))) return null;
  const last = nums.pop()!;
  if (nums.some((n) => n > 255)) return null;
  let v = last;
  if (nums.length === 0) v = last % 2 ** 32; // Java's int cast of a long: the low 32 bits
  else if (last >= 2 ** (8 * (4 - nums.length))) return null;
  for (let i = 0; i < nums.length; i++) v += nums[i]! * 2 ** (8 * (3 - i));
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
}

/** Host rule: unescape, dots, lowercase, IPv4 forms, punycode, escape. */
export function googleHost(raw: string): string {
  let h = unescapeRepeatedly(toBytes(raw));
  h = h.replace(/^\.+|\.+$/g, '').replace(/\.{2,}/g, '.');
  if (h.startsWith('[')) return escapeBytes(h.toLowerCase(), keepGoogle);
  const ip = ipv4(h);
  if (ip !== null) return ip;
  // eslint-disable-next-line no-control-regex
  if (/[^\x00-\x7f]/.test(h)) {
    const uni = Buffer.from(h, 'latin1').toString('utf8');
    const ascii = domainToASCII(uni);
    if (ascii !== '') h = ascii;
  }
  return escapeBytes(h.toLowerCase(), keepGoogle);
}

/** Path rule: split on `/`, drop `.` and empty segments, pop on `..`, keep a trailing slash. */
export function googlePath(bytes: string): string {
  const segs = bytes.split('/');
  const kept: string[] = [];
  for (let i = 1; i < segs.length; i++) {
    const p = segs[i]!;
    if (p === '.') continue;
    if (p === '..') {
      if (kept.length > 0) kept.pop();
      continue;
    }
    kept.push(p);
  }
  if (kept.length === 0) return '/';
  let out = '/';
  for (let i = 0; i < kept.length - 1; i++) if (kept[i]!.length > 0) out += kept[i] + '/';
  return out + kept[kept.length - 1];
}

const DEFAULT_PORT: Record<string, string> = { http: '80', https: '443' };

// An empty host (`https://....../p`) is refused: the key would name no host.

/**
 * Canonical parts under the Safe Browsing rules (`ia` continues from these).
 * With `keepAmp`, an escaped `&` in the query stays escaped (ia: it would
 * otherwise split a parameter when the query is sorted).
 */
export function googleParts(s: string, keepAmp = false): UrlParts | null {
  const p = splitUrl(s);
  if (p === null) return null;
  const host = googleHost(p.host);
  if (host === '') return null;
  const port = p.port === null || p.port === '' || p.port.replace(/^0+(?=\d)/, '') === DEFAULT_PORT[p.scheme] ? null : p.port.replace(/^0+(?=\d)/, '');
  return {
    scheme: s.slice(0, p.scheme.length), // the scheme keeps its case, as webarchive-commons writes it
    userinfo: p.userinfo === null ? null : escapeBytes(unescapeRepeatedly(toBytes(p.userinfo)), keepGoogle),
    host,
    port,
    path: escapeBytes(googlePath(unescapeRepeatedly(toBytes(p.path))), keepGoogle),
    query: p.query === null ? null : keepAmp
      ? toBytes(p.query).split('&').map((q) => escapeBytes(unescapeRepeatedly(q), (c) => c !== 38 && keepGoogle(c))).join('&')
      : escapeBytes(unescapeRepeatedly(toBytes(p.query)), keepGoogle),
  };
}

export function joinParts(p: UrlParts): string {
  return p.scheme + '://' + (p.userinfo === null ? '' : p.userinfo + '@') + p.host
    + (p.port === null ? '' : ':' + p.port) + p.path + (p.query === null ? '' : '?' + p.query);
}

/** The `safebrowsing` profile. */
export function safebrowsingCanonical(s: string): string | null {
  const p = googleParts(s);
  return p === null ? null : joinParts(p);
}
