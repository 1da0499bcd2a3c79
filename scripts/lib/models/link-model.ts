// Bench-only URL text model for the link generator: a table of synthetic
// hosts (each with a canonical scheme and www form) and a writer that renders
// page j of host h, plus one optional surface variant, straight into a Buffer.
// Does not decide which links occur (scripts/gen-links.ts does). Guarantees:
// distinct (h, j) render distinct canonical URLs; a variant changes only what
// its name says. Preconditions: the target Buffer has >= 512 free bytes.

import { mix2, mix32 } from './prng.js';

const WORDS = (
  'about account action active album alpha amber anchor apple archive arrow atlas audio autumn avenue ' +
  'badge baker banner basic beacon berry bird blog blue board bold book border bright bridge brook ' +
  'cabin camera canyon capital card cargo castle cedar center chart city class cloud coast cobalt ' +
  'coffee comet copper coral corner craft creek crown crystal daily data delta desert design digital ' +
  'direct dragon dream drift eagle earth echo edge editor ember energy event expert falcon family ' +
  'field film first flame flash fleet flower focus forest forum fox frame fresh garden gate giant ' +
  'global gold grand graph green grove guide harbor health heart helix hill home horizon house ' +
  'hub image index island ivory jade journal jungle kernel key kind lab lake lantern laser leaf ' +
  'level light lime line link lion live local logic lotus lunar magic main maple market meadow ' +
  'media metro micro mint mobile modern moon motion mountain music nature navy nest network news ' +
  'noble north nova oak ocean office olive omega open orbit orchid pacific page palm panel paper ' +
  'park path peak pearl pixel planet plaza point polar portal power prime pulse quest quick radio ' +
  'rain rapid raven ready river road rock rose royal ruby sage sail salt sand scale school ' +
  'scope sea shadow shop sierra signal silver simple sky smart snow solar sonic space spark ' +
  'spring square star stone storm studio summit sun swift system tango team tech terra thunder ' +
  'tiger timber tower trail travel tree tribe true union unity urban valley vector velvet venture ' +
  'vista vision wave west wild willow wind wing winter wolf wood world yellow zen zero zone'
).split(' ');

const TLDS = ['.com', '.com', '.com', '.com', '.com', '.org', '.net', '.de', '.co.uk', '.edu', '.io', '.fr', '.info', '.jp', '.com.br', '.ru'];
const SUBS = ['blog.', 'news.', 'shop.', 'en.', 'forum.', 'docs.', 'm.', 'static.'];
const PREFIXES = ['', '', 'en/', 'blog/', 'wiki/', 'content/', 'site/', 'articles/'];
const MEDIUMS = ['email', 'social', 'cpc', 'feed', 'referral', 'display'];
const HEX = Buffer.from('0123456789abcdef');
const B64 = Buffer.from('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_');

/** Surface variants, at most one per link. Index 0 = none. */
export const VARIANT_NAMES = ['none', 'scheme', 'www', 'hostCase', 'defaultPort', 'fragment', 'utm', 'gclid', 'jsessionid', 'phpsessid', 'rootNoSlash'] as const;
export const V_SCHEME = 1, V_WWW = 2, V_HOSTCASE = 3, V_PORT = 4, V_FRAGMENT = 5, V_UTM = 6, V_GCLID = 7, V_JSESSION = 8, V_PHPSESS = 9, V_ROOTNOSLASH = 10;
/** Per-link base rates of variants 1..9 (a few % each; ~12% of links carry one). */
export const VARIANT_RATES = [0, 0.02, 0.015, 0.01, 0.01, 0.03, 0.02, 0.005, 0.008, 0.005];
/** Share of links to a host's root page written without the trailing slash. */
export const ROOT_NO_SLASH_RATE = 0.05;
/** Variants the drum default policy does NOT fold (they name a distinct canonical URL). */
export function variantSurvivesDefaultPolicy(v: number): boolean {
  return v === V_SCHEME || v === V_WWW;
}

const enc = (s: string): Buffer => Buffer.from(s, 'latin1');
function table(list: readonly string[]): { bytes: Buffer; offs: Uint32Array } {
  const bytes = enc(list.join(''));
  const offs = new Uint32Array(list.length + 1);
  for (let i = 0; i < list.length; i++) offs[i + 1] = offs[i]! + list[i]!.length;
  return { bytes, offs };
}
const W = table(WORDS);
const M = table(MEDIUMS);
const HTTP = enc('http://'), HTTPS = enc('https://'), WWW = enc('www.');

function put(buf: Buffer, pos: number, src: Buffer): number {
  for (let k = 0; k < src.length; k++) buf[pos++] = src[k]!;
  return pos;
}
function putStr(buf: Buffer, pos: number, s: string): number {
  for (let k = 0; k < s.length; k++) buf[pos++] = s.charCodeAt(k);
  return pos;
}
function putWord(buf: Buffer, pos: number, i: number, t = W): number {
  const n = t.offs.length - 1;
  i %= n;
  for (let k = t.offs[i]!, e = t.offs[i + 1]!; k < e; k++) buf[pos++] = t.bytes[k]!;
  return pos;
}
function putUint(buf: Buffer, pos: number, n: number): number {
  if (n < 10) { buf[pos] = 48 + n; return pos + 1; }
  let len = 0;
  for (let m = n; m > 0; m = Math.floor(m / 10)) len++;
  for (let k = pos + len - 1; k >= pos; k--) { buf[k] = 48 + (n % 10); n = Math.floor(n / 10); }
  return pos + len;
}
function putHex(buf: Buffer, pos: number, seed: number, chars: number): number {
  let x = seed;
  for (let k = 0; k < chars; k++) {
    if ((k & 7) === 0) x = mix32(x + k + 0x632be5ab);
    buf[pos++] = HEX[(x >>> ((k & 7) * 4)) & 15]!;
  }
  return pos;
}

/** Synthetic hosts: names back to back in one Buffer, flags per host. */
export class HostTable {
  readonly count: number;
  readonly names: Buffer;
  readonly offs: Uint32Array;
  /** bit0: canonical scheme is https; bit1: canonical host has `www.`; bit2: has a subdomain (never www); bits 3-5: path prefix. */
  readonly flags: Uint8Array;

  constructor(count: number, seed: number) {
    this.count = count;
    this.offs = new Uint32Array(count + 1);
    this.flags = new Uint8Array(count);
    const tmp = Buffer.alloc(count * 48 + 64);
    let pos = 0;
    const nw = WORDS.length;
    // A bijection on [0, 2^k) scatters popularity ranks over names.
    let k = 1;
    while (1 << k < count) k++;
    const mask = k >= 31 ? 0x7fffffff : (1 << k) - 1;
    for (let h = 0; h < count; h++) {
      let p = Math.imul(h, 0x2545f491) & mask;
      p ^= p >>> ((k >> 1) + 1);
      p = Math.imul(p, 0x9e3779b1 | 1) & mask;
      const r = mix2(seed, h);
      let f = (r & 3) !== 0 ? 1 : 0; // ~75% https
      const hasSub = (r >>> 2) % 7 === 0;
      if (hasSub) { f |= 4; pos = putStr(tmp, pos, SUBS[(r >>> 5) % SUBS.length]!); }
      else if ((r >>> 8) & 1) f |= 2; // half the plain hosts live at www.
      f |= ((r >>> 16) & 7) << 3;
      this.flags[h] = f;
      // Names encode p in mixed radix (word, word, number): distinct p, distinct name.
      pos = putWord(tmp, pos, p % nw);
      if ((r >>> 9) % 3 === 0) tmp[pos++] = 45; // '-'
      pos = putWord(tmp, pos, Math.floor(p / nw) % nw);
      if ((r >>> 20) & 1) { tmp[pos++] = 45; pos = putWord(tmp, pos, (r >>> 21) % nw); }
      const rest = Math.floor(p / (nw * nw));
      if (rest > 0) pos = putUint(tmp, pos, rest);
      pos = putStr(tmp, pos, TLDS[(r >>> 12) % TLDS.length]!);
      this.offs[h + 1] = pos;
    }
    this.names = Buffer.from(tmp.subarray(0, pos));
  }
}

/**
 * Writes page j of host h with variant v at buf[pos..]; returns the new end.
 * `rnd` (uint32) feeds the values a variant carries (session ids, gclid, anchors).
 * The path shapes stay inline: as a function of their own, 10^7 links took
 * ~5 % more CPU (9.4-9.7 s user against 8.9-9.2 s); the variants after the
 * path cost a call only on the ~6 % of links that carry one.
 */
export function writeUrl(hosts: HostTable, buf: Buffer, pos: number, h: number, j: number, v: number, rnd: number): number {
  const f = hosts.flags[h]!;
  pos = writeOrigin(hosts, buf, pos, h, f, v);
  let hasQuery = false;
  if (j === 0) {
    if (v !== V_ROOTNOSLASH) buf[pos++] = 47;
    if (v === V_JSESSION) { pos = putStr(buf, pos, ';jsessionid='); pos = putHex(buf, pos, mix2(h, rnd & 7), 32); }
  } else {
    const r = mix2(h ^ 0x5bd1e995, j);
    const r2 = mix32(r);
    const t = r & 7;
    const w1 = (r >>> 3) & 255, w2 = (r >>> 11) & 255, w3 = (r >>> 19) & 255, w4 = r2 & 255, w5 = (r2 >>> 8) & 255;
    // Eight path shapes; each ends in a shape-specific way and embeds j, so
    // distinct pages of one host never render the same path.
    buf[pos++] = 47;
    pos = putStr(buf, pos, PREFIXES[(f >>> 3) & 7]!);
    pos = putWord(buf, pos, w1); buf[pos++] = 47;
    if (t === 0 || t === 1) {
      pos = putWord(buf, pos, w2); buf[pos++] = 47; pos = putWord(buf, pos, w3); buf[pos++] = 45;
      pos = putWord(buf, pos, w4); buf[pos++] = 45; pos = putUint(buf, pos, j); pos = putStr(buf, pos, '.html');
    } else if (t === 2) {
      pos = putUint(buf, pos, 2000 + (r2 >>> 27)); buf[pos++] = 47;
      const mm = 1 + ((r2 >>> 16) % 12);
      if (mm < 10) buf[pos++] = 48;
      pos = putUint(buf, pos, mm); buf[pos++] = 47; pos = putWord(buf, pos, w2); buf[pos++] = 45;
      pos = putWord(buf, pos, w3); buf[pos++] = 45; pos = putWord(buf, pos, w4); buf[pos++] = 45;
      pos = putUint(buf, pos, j); buf[pos++] = 47;
    } else if (t === 3) {
      pos = putWord(buf, pos, w2); pos = putStr(buf, pos, '.php');
    } else if (t === 4) {
      pos = putStr(buf, pos, 'index.php');
    } else if (t === 5) {
      pos = putWord(buf, pos, w2); buf[pos++] = 47; pos = putWord(buf, pos, w3); buf[pos++] = 47; pos = putUint(buf, pos, j);
    } else if (t === 6) {
      pos = putStr(buf, pos, 'p/'); pos = putUint(buf, pos, j); pos = putStr(buf, pos, '.htm');
    } else {
      pos = putWord(buf, pos, w2); buf[pos++] = 45; pos = putWord(buf, pos, w5); buf[pos++] = 45;
      pos = putUint(buf, pos, j); pos = putStr(buf, pos, '.aspx');
    }
    if (v === V_JSESSION) { pos = putStr(buf, pos, ';jsessionid='); pos = putHex(buf, pos, mix2(h, rnd & 7), 32); }
    if (t === 3) { pos = putStr(buf, pos, '?id='); pos = putUint(buf, pos, j); pos = putStr(buf, pos, '&lang=en'); hasQuery = true; }
    else if (t === 4) { pos = putStr(buf, pos, '?cat='); pos = putWord(buf, pos, w2); pos = putStr(buf, pos, '&id='); pos = putUint(buf, pos, j); hasQuery = true; }
  }
  return v === V_UTM || v === V_GCLID || v === V_PHPSESS || v === V_FRAGMENT ? writeTail(buf, pos, h, v, rnd, hasQuery) : pos;
}

/** The scheme, `www.` and host name (flags `f`), with the scheme, www, host-case or default-port variant applied. */
function writeOrigin(hosts: HostTable, buf: Buffer, pos: number, h: number, f: number, v: number): number {
  const https = ((f & 1) !== 0) !== (v === V_SCHEME);
  pos = put(buf, pos, https ? HTTPS : HTTP);
  if (((f & 2) !== 0) !== (v === V_WWW)) pos = put(buf, pos, WWW);
  const hostStart = pos;
  for (let k = hosts.offs[h]!, e = hosts.offs[h + 1]!; k < e; k++) buf[pos++] = hosts.names[k]!;
  if (v === V_HOSTCASE) {
    // Capitalise each label's first letter (Example.Com), a common surface form.
    for (let k = hostStart; k < pos; k++) if ((k === hostStart || buf[k - 1] === 46) && buf[k]! >= 97 && buf[k]! <= 122) buf[k] = buf[k]! - 32;
  }
  if (v === V_PORT) pos = putStr(buf, pos, https ? ':443' : ':80');
  return pos;
}

/** The variants after the path: a tracking or session parameter (after the query, if any) or a fragment. */
function writeTail(buf: Buffer, pos: number, h: number, v: number, rnd: number, hasQuery: boolean): number {
  if (v === V_UTM) {
    buf[pos++] = hasQuery ? 38 : 63;
    pos = putStr(buf, pos, 'utm_source='); pos = putWord(buf, pos, rnd & 255);
    pos = putStr(buf, pos, '&utm_medium='); pos = putWord(buf, pos, (rnd >>> 8) % MEDIUMS.length, M);
    pos = putStr(buf, pos, '&utm_campaign='); pos = putWord(buf, pos, (rnd >>> 16) & 255);
  } else if (v === V_GCLID) {
    buf[pos++] = hasQuery ? 38 : 63;
    pos = putStr(buf, pos, 'gclid=');
    let x = rnd;
    for (let k = 0; k < 24; k++) { if (k % 5 === 0) x = mix32(x + k); buf[pos++] = B64[x & 63]!; x >>>= 6; }
  } else if (v === V_PHPSESS) {
    buf[pos++] = hasQuery ? 38 : 63;
    pos = putStr(buf, pos, 'PHPSESSID='); pos = putHex(buf, pos, mix2(h ^ 0x1b873593, rnd & 7), 32);
  } else if (v === V_FRAGMENT) {
    buf[pos++] = 35;
    if (rnd & 1) pos = putWord(buf, pos, (rnd >>> 1) & 255);
    else { pos = putStr(buf, pos, 'section-'); pos = putUint(buf, pos, (rnd >>> 1) & 15); }
  }
  return pos;
}
