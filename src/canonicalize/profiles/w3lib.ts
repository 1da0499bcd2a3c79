// The `w3lib` profile: Scrapy's w3lib.url.canonicalize_url with its
// defaults. Host lowercased and punycoded, an empty port dropped (other
// ports kept as written), userinfo kept; the path percent-decoded (except
// `%2F` and `%3F`) and re-escaped outside w3lib's safe set (RFC 3986
// reserved and unreserved characters, `|` and `%`; not `#`), empty path `/`;
// the query split on `&` into name/value pairs (`+` is a space, blank
// values kept, empty pairs dropped), sorted by name then value as bytes, and
// re-encoded like Python's urlencode (space `+`, everything but
// `A-Za-z0-9_.-~` escaped); fragment dropped. Dot segments are kept.
// Never throws.

import { domainToASCII } from 'node:url';
import { escapeBytes, hexVal, splitUrl, toBytes, unescapeOnce } from './parts.js';

const PATH_SAFE = new Uint8Array(128);
for (const ch of "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?[]@!$&'()*+,;=|%") {
  PATH_SAFE[ch.charCodeAt(0)] = 1;
}
const PLUS_SAFE = new Uint8Array(128);
for (const ch of 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~') PLUS_SAFE[ch.charCodeAt(0)] = 1;

function quotePlus(b: string): string {
  return escapeBytes(b, (c) => c < 128 && (PLUS_SAFE[c] === 1 || c === 32)).replace(/ /g, '+');
}

/** Path: decode every escape but %2F/%3F, then escape outside the safe set. */
function w3libPath(raw: string): string {
  let out = '';
  const b = toBytes(raw);
  for (let i = 0; i < b.length; i++) {
    if (b[i] === '%' && i + 2 < b.length && hexVal(b.charCodeAt(i + 1)) >= 0 && hexVal(b.charCodeAt(i + 2)) >= 0) {
      const v = hexVal(b.charCodeAt(i + 1)) * 16 + hexVal(b.charCodeAt(i + 2));
      out += v === 0x2f || v === 0x3f ? '%' + b.slice(i + 1, i + 3).toUpperCase() : String.fromCharCode(v);
      i += 2;
    } else {
      out += b[i];
    }
  }
  const path = escapeBytes(out, (c) => c < 128 && PATH_SAFE[c] === 1);
  return path === '' ? '/' : path;
}

function w3libQuery(raw: string): string {
  const pairs: [string, string][] = [];
  for (const part of toBytes(raw).split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    const dec = (x: string): string => unescapeOnce(x.replace(/\+/g, ' '));
    pairs.push(eq < 0 ? [dec(part), ''] : [dec(part.slice(0, eq)), dec(part.slice(eq + 1))]);
  }
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([n, v]) => quotePlus(n) + '=' + quotePlus(v)).join('&');
}

export function w3libCanonical(s: string): string | null {
  const p = splitUrl(s);
  if (p === null) return null;
  let host = p.host;
  if (!host.startsWith('[')) {
    host = domainToASCII(host);
    if (host === '') return null;
  } else {
    host = host.toLowerCase();
  }
  const port = p.port === null || p.port === '' ? '' : ':' + p.port;
  const user = p.userinfo === null ? '' : p.userinfo + '@';
  const q = p.query === null ? '' : w3libQuery(p.query);
  const query = q === '' ? '' : '?' + q;
  return p.scheme + '://' + user + host + port + w3libPath(p.path) + query;
}
