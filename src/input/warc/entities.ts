// Decodes HTML character references in an attribute value the way the HTML
// standard's tokenizer does for attributes: numeric refs (&#38; &#x26;, with
// the windows-1252 remap of 0x80-0x9F), named refs with `;`, and the legacy
// no-semicolon names (&amp &lt &copy ...) unless followed by [A-Za-z0-9=]
// (so `?a=1&copy=2` stays literal). Named refs known: the HTML 4 set of
// Latin-1, markup and a few typographic names; any other `&name;` is left as
// written (the full HTML5 table of 2,231 names is not bundled; such names do
// not occur in real URLs). Does not touch text outside the given value.

const LATIN1 =
  'nbsp iexcl cent pound curren yen brvbar sect uml copy ordf laquo not shy reg macr deg plusmn sup2 sup3 ' +
  'acute micro para middot cedil sup1 ordm raquo frac14 frac12 frac34 iquest Agrave Aacute Acirc Atilde ' +
  'Auml Aring AElig Ccedil Egrave Eacute Ecirc Euml Igrave Iacute Icirc Iuml ETH Ntilde Ograve Oacute Ocirc ' +
  'Otilde Ouml times Oslash Ugrave Uacute Ucirc Uuml Yacute THORN szlig agrave aacute acirc atilde auml ' +
  'aring aelig ccedil egrave eacute ecirc euml igrave iacute icirc iuml eth ntilde ograve oacute ocirc ' +
  'otilde ouml divide oslash ugrave uacute ucirc uuml yacute thorn yuml';

/** Names decoded even without `;` (HTML's legacy list). */
const LEGACY = new Map<string, string>();
/** All known names (with `;`). */
const NAMED = new Map<string, string>();

LATIN1.split(' ').forEach((name, i) => LEGACY.set(name, String.fromCharCode(160 + i)));
for (const [k, v] of [
  ['amp', '&'], ['lt', '<'], ['gt', '>'], ['quot', '"'],
  ['AMP', '&'], ['LT', '<'], ['GT', '>'], ['QUOT', '"'], ['COPY', '\u00a9'], ['REG', '\u00ae'],
] as const) {
  LEGACY.set(k, v);
}
for (const [k, v] of LEGACY) NAMED.set(k, v);
for (const [k, v] of [
  ['apos', "'"], ['sol', '/'], ['colon', ':'], ['quest', '?'], ['equals', '='], ['num', '#'], ['percnt', '%'],
  ['period', '.'], ['lowbar', '_'], ['hyphen', '\u2010'], ['tilde', '\u02dc'], ['ndash', '\u2013'],
  ['mdash', '\u2014'], ['lsquo', '\u2018'], ['rsquo', '\u2019'], ['ldquo', '\u201c'], ['rdquo', '\u201d'],
  ['hellip', '\u2026'], ['bull', '\u2022'], ['euro', '\u20ac'], ['trade', '\u2122'], ['Tab', '\t'],
  ['NewLine', '\n'], ['nbsp', '\u00a0'],
] as const) {
  NAMED.set(k, v);
}

/** windows-1252 meanings of numeric refs 0x80..0x9F (HTML standard table). */
export const C1 = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d,
  0x17d, 0x8f, 0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a,
  0x153, 0x9d, 0x17e, 0x178,
];

function isAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

function codePoint(n: number): string {
  if (n === 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return '\ufffd';
  if (n >= 0x80 && n <= 0x9f) return String.fromCodePoint(C1[n - 0x80]!);
  return String.fromCodePoint(n);
}

/** windows-1252 bytes to text (Node's TextDecoder treats this label as plain latin-1). */
export function decodeWindows1252(b: Buffer): string {
  const s = b.toString('latin1');
  return /[\x80-\x9f]/.test(s) ? s.replace(/[\x80-\x9f]/g, (c) => String.fromCharCode(C1[c.charCodeAt(0) - 0x80]!)) : s;
}

/**
 * End of the reference numericRef or namedRef last decoded: a scratch slot, so
 * decoding allocates nothing per reference.
 */
let refEnd = 0;

/** Decodes the digits of `&#...` from s[i] (just after `#`); null when none follow. Sets refEnd. */
function numericRef(s: string, i: number): string | null {
  const hex = s.charCodeAt(i) === 120 || s.charCodeAt(i) === 88;
  if (hex) i++;
  const d0 = i;
  let v = 0;
  for (;;) {
    const c = s.charCodeAt(i);
    let d = -1;
    if (c >= 48 && c <= 57) d = c - 48;
    else if (hex && c >= 97 && c <= 102) d = c - 87;
    else if (hex && c >= 65 && c <= 70) d = c - 55;
    if (d < 0) break;
    v = Math.min(v * (hex ? 16 : 10) + d, 0x110000);
    i++;
  }
  if (i === d0) return null;
  refEnd = s.charCodeAt(i) === 59 ? i + 1 : i;
  return codePoint(v);
}

/** Decodes a named reference from s[i] (just after `&`); null when no known name fits. Sets refEnd. */
function namedRef(s: string, i: number): string | null {
  let j = i;
  while (j < s.length && isAlnum(s.charCodeAt(j))) j++;
  if (j === i) return null;
  if (s.charCodeAt(j) === 59) {
    const v = NAMED.get(s.slice(i, j));
    if (v === undefined) return null;
    refEnd = j + 1;
    return v;
  }
  // Longest legacy name that is a prefix, not followed by alnum or '='.
  for (let k = Math.min(j, i + 6); k > i; k--) {
    const v = LEGACY.get(s.slice(i, k));
    if (v === undefined) continue;
    const next = s.charCodeAt(k);
    if (isAlnum(next) || next === 61) return null;
    refEnd = k;
    return v;
  }
  return null;
}

/** Decodes character references in an attribute value; returns `s` itself when it has none. */
export function decodeAttributeEntities(s: string): string {
  let amp = s.indexOf('&');
  if (amp < 0) return s;
  let out = '';
  let last = 0;
  while (amp >= 0) {
    const rep = s.charCodeAt(amp + 1) === 35 /* # */ ? numericRef(s, amp + 2) : namedRef(s, amp + 1);
    if (rep !== null) {
      out += s.slice(last, amp) + rep;
      last = refEnd;
    }
    amp = s.indexOf('&', rep !== null ? refEnd : amp + 1);
  }
  return out + s.slice(last);
}
