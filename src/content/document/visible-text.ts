// The visible words of a document, as 32-bit word hashes in a typed array:
// the byte tokenizer walks the HTML once, leaves out markup, comments and
// the boilerplate-prone parts (head, script, style, noscript, template,
// svg, iframe, nav, header, footer, aside, form, select, button, textarea,
// and any element whose class or id names a menu, sidebar, ad, banner,
// footer, breadcrumb, share or cookie block), and hashes each word (ASCII
// letters and digits lowercased, bytes >= 0x80 kept as they are; entities,
// tags and everything else separate words). Plain text is all words.
// Does not decode charsets (one document's copies share their bytes, so
// their words hash alike) and does not fingerprint (simhash.ts does).
// REQUIRES: nothing; one WordBuffer per thread, reused between documents.

import { fmix32 } from '../../fingerprint/hash.js';

/** Elements whose whole content is left out (lowercase names). */
const SKIP_ELEMENTS = new Set([
  'head', 'script', 'style', 'noscript', 'template', 'svg', 'iframe', 'nav', 'header', 'footer',
  'aside', 'form', 'select', 'button', 'textarea', 'menu',
]);
/** Elements whose content is raw text up to their end tag (a `<` inside does not open a tag). */
const RAW_TEXT = new Set(['script', 'style', 'textarea', 'noscript', 'template', 'iframe']);
/** A class or id naming boilerplate (tested on the attribute text of start tags that have one). */
const BOILERPLATE_ATTR =
  /\b(?:class|id)\s*=\s*["']?[^"'>]*?(?:^|[\s"'_-]|\b)(?:nav(?:bar|igation)?|menu|sidebar|ads?|advert\w*|banner|footer|header|masthead|breadcrumbs?|share|social|cookies?|promo|sponsor\w*|related|widget)(?:$|[\s"'_-]|\b)/i;

const LT = 0x3c;
const GT = 0x3e;
const AMP = 0x26;
const SLASH = 0x2f;
const BANG = 0x21;

/** Growable Uint32Array of word hashes; `n` words are valid. */
export class WordBuffer {
  words = new Uint32Array(4096);
  n = 0;
  push(h: number): void {
    if (this.n === this.words.length) {
      const w = new Uint32Array(this.words.length * 2);
      w.set(this.words);
      this.words = w;
    }
    this.words[this.n++] = h;
  }
}

/** Word byte: ASCII letter or digit, or any byte >= 0x80 (part of a non-ASCII character). */
function isWordByte(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c >= 0x80;
}

/** Index after a character reference `&name;` / `&#123;` starting at i (at most 12 bytes), or i when there is none. */
function entityEnd(b: Uint8Array, i: number, end: number): number {
  for (let k = i + 1; k < end && k <= i + 12; k++) {
    const c = b[k]!;
    if (c === 0x3b) return k > i + 1 ? k + 1 : i;
    if (!((c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || (c >= 0x30 && c <= 0x39) || c === 0x23)) return i;
  }
  return i;
}

/** Hashes the words of b[start, end) (no markup) into out; in HTML text (`html`) a character reference separates words and is no word itself. */
export function textWords(b: Uint8Array, start: number, end: number, out: WordBuffer, html = false): void {
  let h = 0x811c9dc5;
  let len = 0;
  for (let i = start; i < end; i++) {
    let c = b[i]!;
    if (html && c === AMP) {
      const e = entityEnd(b, i, end);
      if (e > i) i = e - 1;
    }
    if (isWordByte(c)) {
      if (c >= 0x41 && c <= 0x5a) c |= 0x20;
      h = Math.imul(h ^ c, 0x01000193);
      len++;
    } else if (len > 0) {
      out.push(fmix32(h ^ len));
      h = 0x811c9dc5;
      len = 0;
    }
  }
  if (len > 0) out.push(fmix32(h ^ len));
}

/** Index after the `>` closing a tag that starts at i (quotes respected), or end. */
function tagEnd(b: Uint8Array, i: number, end: number): number {
  let q = 0;
  for (; i < end; i++) {
    const c = b[i]!;
    if (q !== 0) {
      if (c === q) q = 0;
    } else if (c === 0x22 || c === 0x27) q = c;
    else if (c === GT) return i + 1;
  }
  return end;
}

/** Lowercased tag name starting at i (letters, digits, -), at most 16 bytes. */
function tagName(b: Uint8Array, i: number, end: number): string {
  let s = '';
  for (let k = 0; i < end && k < 16; i++, k++) {
    const c = b[i]!;
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2d) s += String.fromCharCode(c);
    else if (c >= 0x41 && c <= 0x5a) s += String.fromCharCode(c | 0x20);
    else break;
  }
  return s;
}

/** Index of `</name` (case-insensitive) from i, or end. */
function findEndTag(b: Uint8Array, i: number, end: number, name: string): number {
  const buf = Buffer.from(b.buffer, b.byteOffset, end);
  for (;;) {
    const p = buf.indexOf('</', i, 'latin1');
    if (p < 0) return end;
    if (tagName(b, p + 2, end) === name) return p;
    i = p + 2;
  }
}

/** Hashes the visible words of the HTML in b[start, end) into out (out is not reset). */
export function htmlWords(b: Uint8Array, start: number, end: number, out: WordBuffer): void {
  let skipTag = '';
  let skipDepth = 0;
  let textFrom = start;
  let i = start;
  while (i < end) {
    const lt = b.indexOf(LT, i);
    const stop = lt < 0 || lt >= end ? end : lt;
    if (skipDepth === 0 && stop > textFrom) textWords(b, textFrom, stop, out, true);
    if (stop === end) break;
    const n1 = stop + 1 < end ? b[stop + 1]! : 0;
    if (n1 === BANG) {
      const close = b[stop + 2] === 0x2d && b[stop + 3] === 0x2d ? Buffer.from(b.buffer, b.byteOffset, end).indexOf('-->', stop + 4, 'latin1') : -1;
      i = close >= 0 ? close + 3 : tagEnd(b, stop + 2, end);
      textFrom = i;
      continue;
    }
    const closing = n1 === SLASH;
    const name = tagName(b, stop + (closing ? 2 : 1), end);
    if (name === '') {
      i = stop + 1; // a bare '<' is text; it separates words
      textFrom = skipDepth === 0 ? i : textFrom;
      continue;
    }
    const te = tagEnd(b, stop + 1, end);
    i = te;
    textFrom = te;
    if (closing) {
      if (skipDepth > 0 && name === skipTag) skipDepth--;
      continue;
    }
    const selfClosing = te >= 2 && b[te - 2] === SLASH;
    if (skipDepth > 0) {
      if (name === skipTag && !selfClosing) skipDepth++;
    } else if (!selfClosing && (SKIP_ELEMENTS.has(name) || isBoilerplateTag(b, stop, te))) {
      skipTag = name;
      skipDepth = 1;
    }
    if (RAW_TEXT.has(name) && !selfClosing) {
      const e = findEndTag(b, te, end, name);
      i = e;
      textFrom = e;
    }
  }
}

function isBoilerplateTag(b: Uint8Array, s: number, e: number): boolean {
  if (e - s < 8) return false;
  const text = Buffer.from(b.buffer, b.byteOffset + s, e - s).toString('latin1');
  return (text.includes('class') || text.includes('id')) && BOILERPLATE_ATTR.test(text);
}

/** Visible words of a document body (HTML or plain text) into out, after out.n = 0. */
export function documentWords(body: Uint8Array, html: boolean, out: WordBuffer): void {
  out.n = 0;
  if (html) htmlWords(body, 0, body.length, out);
  else textWords(body, 0, body.length, out);
}
