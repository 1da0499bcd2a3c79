// Link extraction from one complete WARC record: HTML `response` (and HTML
// `resource`) records via the HTTP payload and the byte tokenizer, 3xx
// Location headers, and Heritrix `metadata` records' `outlink:` lines. Each
// link reaches the sink as clean UTF-8 bytes (entities decoded, charset
// decoded, tab/CR/LF removed, ends trimmed) with its hop and context; the
// sink decides what to keep. Does not classify schemes, resolve URLs or
// build chunks. Precondition: the record's block (or head) was retained.

import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';
import { decodeAttributeEntities, decodeWindows1252 } from './entities.js';
import { type Hop, refreshUrl, scanHtml } from './html-links.js';
import { decodeContent, dechunk, isHtmlType, parseContentType, parseHttpHead, prescanCharset, sniffHtml } from './payload.js';
import type { WarcRecordEvent } from './records.js';

export interface LinkSink {
  /** Base for the links that follow (record target URI, or a resolved <base href>). */
  base(url: string): void;
  link(hop: Hop, context: string, buf: Buffer, start: number, end: number): void;
  /** The record cannot be used: 'too-long' (over the size cap) or 'malformed-record' (undecodable payload). */
  fail(reason: 'too-long' | 'malformed-record', excerpt: Buffer): void;
}

export interface ExtractOptions {
  html: boolean;
  metadata: boolean;
  /** Largest decoded body (after chunked/gzip) kept. */
  maxBodyBytes: number;
}

/** Whether a record with this WARC-Type and Content-Type has links for us (decides what the reader retains). */
export function wantsRecord(type: string, contentType: string, o: ExtractOptions): boolean {
  if (o.html && type === 'response') return contentType === '' || contentType.toLowerCase().startsWith('application/http');
  if (o.html && type === 'resource') return isHtmlType(parseContentType(contentType).mediaType);
  if (o.metadata && type === 'metadata') return true;
  return false;
}

const decoders = new Map<string, TextDecoder | null>();
/** Stands for every label the Encoding standard maps to windows-1252 (latin1, iso-8859-1, us-ascii, ...). */
const WIN1252 = new TextDecoder('windows-1252');

function decoderFor(charset: string): TextDecoder | null {
  let d = decoders.get(charset);
  if (d === undefined) {
    try {
      d = new TextDecoder(charset);
      if (d.encoding === 'utf-8') d = null; // UTF-8 goes through the isUtf8 / latin-1 fallback path
      else if (d.encoding === 'windows-1252') d = WIN1252;
    } catch {
      d = null; // unknown label: UTF-8 with latin-1 fallback
    }
    decoders.set(charset, d);
  }
  return d;
}

/** Visitor state for one page: decodes values and forwards them to the sink. */
class PageLinks {
  private baseSet = false;
  constructor(
    private readonly body: Buffer,
    private readonly dec: TextDecoder | null,
    private readonly docUrl: string,
    private readonly sink: LinkSink,
  ) {}

  private text(s: number, e: number): string {
    const raw = this.body.subarray(s, e);
    let t: string;
    if (this.dec === WIN1252) t = decodeWindows1252(raw);
    else if (this.dec !== null) t = this.dec.decode(raw);
    else t = isUtf8(raw) ? raw.toString('utf8') : decodeWindows1252(raw);
    return cleanUrlText(decodeAttributeEntities(t));
  }

  link(hop: Hop, context: string, s: number, e: number): void {
    if (isPlain(this.body, s, e)) {
      this.sink.link(hop, context, this.body, s, e);
      return;
    }
    const b = Buffer.from(this.text(s, e), 'utf8');
    this.sink.link(hop, context, b, 0, b.length);
  }

  base(s: number, e: number): void {
    if (this.baseSet) return; // the first <base href> wins
    this.baseSet = true;
    const t = this.text(s, e);
    try {
      this.sink.base(new URL(t, this.docUrl).href);
    } catch {
      // unusable base: keep the document URL
    }
  }

  refresh(s: number, e: number): void {
    const r = refreshUrl(this.body, s, e);
    if (r !== null) this.link('R', 'meta', r[0], r[1]);
  }
}

/** Printable ASCII without '&': usable as is. */
function isPlain(b: Buffer, s: number, e: number): boolean {
  for (let i = s; i < e; i++) {
    const c = b[i]!;
    if (c <= 0x20 || c >= 0x7f || c === 0x26) return false;
  }
  return true;
}

/** What a URL parser does first: trim C0 controls and spaces at both ends, drop tab/CR/LF inside. */
export function cleanUrlText(t: string): string {
  let s = 0;
  let e = t.length;
  while (s < e && t.charCodeAt(s) <= 0x20) s++;
  while (e > s && t.charCodeAt(e - 1) <= 0x20) e--;
  const u = s === 0 && e === t.length ? t : t.slice(s, e);
  return /[\t\r\n]/.test(u) ? u.replace(/[\t\r\n]/g, '') : u;
}

function excerptOf(b: Buffer): Buffer {
  return Buffer.from(b.subarray(0, 200));
}

/** Extracts the links of one record into the sink. */
export function extractRecord(rec: WarcRecordEvent, o: ExtractOptions, sink: LinkSink): void {
  sink.base(rec.targetUri);
  if (rec.type === 'metadata') {
    if (!o.metadata) return;
    if (rec.block === null) {
      if (rec.head !== null) sink.fail('too-long', excerptOf(rec.head));
      return;
    }
    metadataLinks(rec.block, sink);
    return;
  }
  if (!o.html) return;
  if (rec.type === 'resource') {
    if (rec.block === null) {
      if (rec.head !== null) sink.fail('too-long', excerptOf(rec.head));
      return;
    }
    htmlLinks(rec.block, parseContentType(rec.contentType).charset, rec.targetUri, sink);
    return;
  }
  const block = rec.block ?? rec.head;
  if (block === null) return;
  const http = parseHttpHead(block);
  if (http === null) return;
  if (http.status >= 300 && http.status < 400 && http.location !== '') {
    const b = Buffer.from(cleanUrlText(http.location), 'utf8');
    sink.link('R', 'Location:', b, 0, b.length);
  }
  let body = block.subarray(http.bodyStart);
  const html = http.mediaType === '' ? sniffBody(body, http) : isHtmlType(http.mediaType);
  if (!html) return;
  if (rec.block === null) {
    sink.fail('too-long', excerptOf(block));
    return;
  }
  if (http.transferEncoding.includes('chunked')) {
    const d = dechunk(body, o.maxBodyBytes);
    if (d === null) {
      sink.fail('malformed-record', excerptOf(block));
      return;
    }
    body = d;
  }
  if (http.contentEncoding !== '' && http.contentEncoding !== 'identity') {
    const d = decodeContent(body, http.contentEncoding, o.maxBodyBytes);
    if (d === null) {
      sink.fail('malformed-record', excerptOf(block));
      return;
    }
    body = d;
  }
  htmlLinks(body, http.charset, rec.targetUri, sink);
}

function sniffBody(body: Buffer, http: { contentEncoding: string; transferEncoding: string }): boolean {
  // Sniffing an encoded body would mean decoding every non-HTML payload; only plain bodies are sniffed.
  return http.contentEncoding === '' && http.transferEncoding === '' && sniffHtml(body);
}

/** Links of an HTML body. charset: from the HTTP header, else <meta>, else UTF-8 with latin-1 fallback. */
export function htmlLinks(body: Buffer, httpCharset: string, docUrl: string, sink: LinkSink): void {
  const charset = httpCharset !== '' ? httpCharset : prescanCharset(body);
  let dec = charset === '' ? null : decoderFor(charset);
  if (dec !== null && dec.encoding.startsWith('utf-16')) {
    // Not ASCII-compatible: transcode to UTF-8 so the byte tokenizer works.
    body = Buffer.from(dec.decode(body), 'utf8');
    dec = null;
  }
  scanHtml(body, new PageLinks(body, dec, docUrl, sink));
}

const OUTLINK = Buffer.from('outlink:');

/** Heritrix metadata: `outlink: <url> <hop> <context>` lines (url already absolute). */
export function metadataLinks(block: Buffer, sink: LinkSink): void {
  let pos = 0;
  const len = block.length;
  while (pos < len) {
    let nl = block.indexOf(10, pos);
    if (nl < 0) nl = len;
    if (nl - pos > OUTLINK.length && block.compare(OUTLINK, 0, OUTLINK.length, pos, pos + OUTLINK.length) === 0) {
      let e = nl;
      if (e > pos && block[e - 1] === 13) e--;
      let s = pos + OUTLINK.length;
      while (s < e && block[s] === 0x20) s++;
      const u = block.indexOf(0x20, s);
      const ue = u < 0 || u > e ? e : u;
      let hop: Hop = 'L';
      let context = '';
      if (ue < e) {
        const rest = block.toString('latin1', ue + 1, e);
        const sp = rest.indexOf(' ');
        const h = sp < 0 ? rest : rest.slice(0, sp);
        hop = (h === 'E' || h === 'R' || h === 'X' ? h : h === 'L' ? 'L' : 'X') as Hop;
        context = sp < 0 ? '' : rest.slice(sp + 1);
      }
      sink.link(hop, context, block, s, ue);
    }
    pos = nl + 1;
  }
}
