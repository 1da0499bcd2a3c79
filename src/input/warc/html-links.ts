// A small HTML tokenizer over the raw bytes of an ASCII-compatible page that
// finds the link-bearing attributes a crawler's extractor reads, with the hop
// type Heritrix 1.14's ExtractorHTML gives each: L (navigation) for a/@href,
// area/@href, form/@action; E (embed) for link/@href, img/@src,
// script/@src, frame/@src, iframe/@src, embed/@src, input/@src,
// object/@data, source/@src, body/@background; R for meta refresh; plus
// base/@href. Skips comments, <!...>, <?...>, end tags and the contents of
// script, style, textarea, title and xmp. Reports raw value byte ranges
// (undecoded: entities and charset are the caller's job). Does not build a
// DOM and does not run or scan JavaScript or CSS.

export type Hop = 'L' | 'E' | 'R' | 'X';

export interface HtmlVisitor {
  /** Attribute value body[start, end), raw bytes. */
  link(hop: Hop, context: string, start: number, end: number): void;
  /** <base href> value body[start, end). */
  base(start: number, end: number): void;
  /** <meta http-equiv=refresh> content value body[start, end). */
  refresh(start: number, end: number): void;
}

interface TagSpec {
  name: string;
  /** Link attribute, its hop and context. */
  attr: string;
  hop: Hop;
  context: string;
  /** Contents are raw text: skip to the matching end tag. */
  raw: boolean;
}

const T = (name: string, attr: string, hop: Hop, raw = false): TagSpec => ({
  name,
  attr,
  hop,
  context: `${name}/@${attr}`,
  raw,
});

const BASE = 0;
const META = 1;
const TAGS: TagSpec[] = [
  T('base', 'href', 'L'),
  T('meta', 'content', 'R'),
  T('a', 'href', 'L'),
  T('area', 'href', 'L'),
  T('form', 'action', 'L'),
  T('link', 'href', 'E'),
  T('img', 'src', 'E'),
  T('script', 'src', 'E', true),
  T('frame', 'src', 'E'),
  T('iframe', 'src', 'E'),
  T('embed', 'src', 'E'),
  T('input', 'src', 'E'),
  T('object', 'data', 'E'),
  T('source', 'src', 'E'),
  T('body', 'background', 'E'),
  T('style', '', 'E', true),
  T('textarea', '', 'E', true),
  T('title', '', 'E', true),
  T('xmp', '', 'E', true),
];
const TAG_BYTES = TAGS.map((t) => Buffer.from(t.name));
const ATTR_BYTES = TAGS.map((t) => Buffer.from(t.attr));
const HTTP_EQUIV = Buffer.from('http-equiv');
const REFRESH = Buffer.from('refresh');

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const EQ = 0x3d;

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x09 || c === 0x0d || c === 0x0c;
}

function isAlpha(c: number): boolean {
  return (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

/** body[s, e) equals the lowercase ASCII word w, ignoring case. */
function eqi(body: Buffer, s: number, e: number, w: Buffer): boolean {
  if (e - s !== w.length) return false;
  for (let i = 0; i < w.length; i++) if ((body[s + i]! | 0x20) !== w[i]) return false;
  return true;
}

function tagIndex(body: Buffer, s: number, e: number): number {
  const len = e - s;
  if (len > 8) return -1;
  const c = body[s]! | 0x20;
  for (let t = 0; t < TAG_BYTES.length; t++) {
    const w = TAG_BYTES[t]!;
    if (w.length === len && w[0] === c && eqi(body, s, e, w)) return t;
  }
  return -1;
}

/** Index of the end of raw-text content: the "<" of "</name" (any case), or body.length. */
function rawTextEnd(body: Buffer, from: number, name: Buffer): number {
  let i = from;
  for (;;) {
    const j = body.indexOf('</', i);
    if (j < 0) return body.length;
    const k = j + 2 + name.length;
    if (k <= body.length && eqi(body, j + 2, k, name) && (k === body.length || isWs(body[k]!) || body[k] === GT || body[k] === SLASH)) {
      return j;
    }
    i = j + 2;
  }
}

/** Scans the whole page once, calling the visitor for each link-bearing attribute in document order. */
export function scanHtml(body: Buffer, v: HtmlVisitor): void {
  const len = body.length;
  let pos = 0;
  while (pos < len) {
    const lt = body.indexOf(LT, pos);
    if (lt < 0 || lt + 1 >= len) return;
    const c = body[lt + 1]!;
    if (c === 0x21 /* ! */) {
      if (body[lt + 2] === 0x2d && body[lt + 3] === 0x2d) {
        const end = body.indexOf('-->', lt + 4);
        pos = end < 0 ? len : end + 3;
      } else {
        const gt = body.indexOf(GT, lt + 2);
        pos = gt < 0 ? len : gt + 1;
      }
      continue;
    }
    if (c === 0x3f /* ? */ || c === SLASH) {
      const gt = body.indexOf(GT, lt + 2);
      pos = gt < 0 ? len : gt + 1;
      continue;
    }
    if (!isAlpha(c)) {
      pos = lt + 1;
      continue;
    }
    pos = startTag(body, lt + 1, v);
  }
}

/** Parses one start tag from its name at `i`; returns the position after it (and after raw text). */
function startTag(body: Buffer, i: number, v: HtmlVisitor): number {
  const len = body.length;
  const ns = i;
  while (i < len && !isWs(body[i]!) && body[i] !== SLASH && body[i] !== GT) i++;
  const t = tagIndex(body, ns, i);
  const spec = t >= 0 ? TAGS[t]! : null;
  const want = spec !== null && spec.attr !== '' ? ATTR_BYTES[t]! : null;
  let refresh = false;
  let contentS = -1;
  let contentE = -1;
  for (;;) {
    while (i < len && (isWs(body[i]!) || body[i] === SLASH)) i++;
    if (i >= len) break;
    if (body[i] === GT) {
      i++;
      break;
    }
    const as = i;
    i++; // a first '=' belongs to the name
    while (i < len && !isWs(body[i]!) && body[i] !== SLASH && body[i] !== GT && body[i] !== EQ) i++;
    const ae = i;
    while (i < len && isWs(body[i]!)) i++;
    let vs = -1;
    let ve = -1;
    if (i < len && body[i] === EQ) {
      i++;
      while (i < len && isWs(body[i]!)) i++;
      const q = body[i];
      if (q === 0x22 || q === 0x27) {
        vs = i + 1;
        const close = body.indexOf(q, vs);
        ve = close < 0 ? len : close;
        i = close < 0 ? len : close + 1;
      } else {
        vs = i;
        while (i < len && !isWs(body[i]!) && body[i] !== GT) i++;
        ve = i;
      }
    }
    if (want === null || vs < 0) continue;
    if (t === META) {
      if (eqi(body, as, ae, HTTP_EQUIV)) refresh = trimmedEqi(body, vs, ve, REFRESH);
      else if (eqi(body, as, ae, want)) {
        contentS = vs;
        contentE = ve;
      }
    } else if (eqi(body, as, ae, want)) {
      if (t === BASE) v.base(vs, ve);
      else v.link(spec!.hop, spec!.context, vs, ve);
    }
  }
  if (refresh && contentS >= 0) v.refresh(contentS, contentE);
  if (spec !== null && spec.raw && i < len) return rawTextEnd(body, i, TAG_BYTES[t]!);
  return i;
}

function trimmedEqi(body: Buffer, s: number, e: number, w: Buffer): boolean {
  while (s < e && isWs(body[s]!)) s++;
  while (e > s && isWs(body[e - 1]!)) e--;
  return eqi(body, s, e, w);
}

/**
 * The URL in a meta refresh content value ("5; url=/next", "0;URL='x'"),
 * as a [start, end) range inside body[s, e); null when there is none.
 */
export function refreshUrl(body: Buffer, s: number, e: number): [number, number] | null {
  let i = s;
  while (i < e && isWs(body[i]!)) i++;
  while (i < e && ((body[i]! >= 0x30 && body[i]! <= 0x39) || body[i] === 0x2e)) i++;
  while (i < e && isWs(body[i]!)) i++;
  if (i < e && (body[i] === 0x3b || body[i] === 0x2c)) i++;
  while (i < e && isWs(body[i]!)) i++;
  if (i + 3 <= e && (body[i]! | 0x20) === 0x75 && (body[i + 1]! | 0x20) === 0x72 && (body[i + 2]! | 0x20) === 0x6c) {
    let j = i + 3;
    while (j < e && isWs(body[j]!)) j++;
    if (j < e && body[j] === EQ) {
      i = j + 1;
      while (i < e && isWs(body[i]!)) i++;
    }
  }
  if (i >= e) return null;
  const q = body[i];
  if (q === 0x22 || q === 0x27) {
    const close = body.indexOf(q, i + 1);
    return [i + 1, close < 0 || close > e ? e : close];
  }
  return [i, e];
}
