// Turns the block of a WARC `response` record (an HTTP response) into what
// link extraction needs: status, Location, whether the body is HTML, the
// declared charset, and the body bytes with Transfer-Encoding: chunked and
// Content-Encoding: gzip / x-gzip / deflate / br undone (bounded output).
// Also the charset prescan of an HTML body (<meta charset>, http-equiv).
// Does not extract links and does not decode text.

import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib';
import { forEachField } from './header.js';

export interface HttpPayload {
  status: number;
  location: string;
  /** Lowercased media type ('' if the header is missing). */
  mediaType: string;
  /** charset= parameter of Content-Type, lowercased; '' if none. */
  charset: string;
  transferEncoding: string;
  contentEncoding: string;
  /** Offset of the body in the block. */
  bodyStart: number;
}

/** Parses the status line and headers; null when the block is not an HTTP response. */
export function parseHttpHead(block: Buffer): HttpPayload | null {
  if (block.length < 12 || block.toString('latin1', 0, 5) !== 'HTTP/') return null;
  let end = block.indexOf('\r\n\r\n');
  let sep = 4;
  const lf = block.indexOf('\n\n');
  if (lf >= 0 && (end < 0 || lf < end)) {
    end = lf;
    sep = 2;
  }
  const headEnd = end < 0 ? block.length : end;
  const text = block.toString('latin1', 0, Math.min(headEnd, 65536));
  const lines = text.split(/\r?\n/);
  const m = /^HTTP\/\d(?:\.\d)?\s+(\d{3})/.exec(lines[0] ?? '');
  if (!m) return null;
  const p: HttpPayload = {
    status: Number(m[1]),
    location: '',
    mediaType: '',
    charset: '',
    transferEncoding: '',
    contentEncoding: '',
    bodyStart: end < 0 ? block.length : end + sep,
  };
  forEachField(lines, 1, (name, value) => {
    if (name === 'content-type') {
      const ct = parseContentType(value);
      p.mediaType = ct.mediaType;
      p.charset = ct.charset;
    } else if (name === 'location') p.location = value;
    else if (name === 'transfer-encoding') p.transferEncoding = value.toLowerCase();
    else if (name === 'content-encoding') p.contentEncoding = value.toLowerCase();
  });
  return p;
}

export function parseContentType(value: string): { mediaType: string; charset: string } {
  const semi = value.indexOf(';');
  const mediaType = (semi < 0 ? value : value.slice(0, semi)).trim().toLowerCase();
  const cs = /charset\s*=\s*["']?([^"';\s]+)/i.exec(value);
  return { mediaType, charset: cs ? cs[1]!.toLowerCase() : '' };
}

export function isHtmlType(mediaType: string): boolean {
  return mediaType === 'text/html' || mediaType === 'application/xhtml+xml';
}

/** No Content-Type: does the body start like HTML (first 1 KiB)? */
export function sniffHtml(body: Buffer): boolean {
  const head = body.toString('latin1', 0, Math.min(body.length, 1024)).toLowerCase();
  return head.includes('<html') || head.includes('<!doctype html');
}

/** Undoes chunked transfer coding; null when the chunk framing is broken. */
export function dechunk(body: Buffer, maxBytes: number): Buffer | null {
  const parts: Buffer[] = [];
  let total = 0;
  let pos = 0;
  for (;;) {
    const nl = body.indexOf('\n', pos);
    if (nl < 0) return parts.length > 0 ? Buffer.concat(parts) : null; // cut short: keep what came
    const size = parseInt(body.toString('latin1', pos, nl).split(';')[0]!.trim(), 16);
    if (!Number.isFinite(size) || size < 0) return null;
    if (size === 0) break;
    const start = nl + 1;
    const end = Math.min(start + size, body.length);
    total += end - start;
    if (total > maxBytes) return null;
    parts.push(body.subarray(start, end));
    if (end < start + size) break;
    pos = end;
    if (body[pos] === 13) pos++;
    if (body[pos] === 10) pos++;
  }
  return Buffer.concat(parts, total);
}

/** Undoes Content-Encoding; null when unsupported or corrupt. */
export function decodeContent(body: Buffer, encoding: string, maxBytes: number): Buffer | null {
  const opts = { maxOutputLength: maxBytes, finishFlush: 2 /* Z_SYNC_FLUSH: tolerate a cut-off stream */ };
  try {
    switch (encoding) {
      case '':
      case 'identity':
        return body;
      case 'gzip':
      case 'x-gzip':
        return gunzipSync(body, opts);
      case 'deflate':
        // Servers send both zlib-wrapped and raw deflate under this name.
        return body.length > 0 && (body[0]! & 0x0f) === 8 ? inflateSync(body, opts) : inflateRawSync(body, opts);
      case 'br':
        return brotliDecompressSync(body, { maxOutputLength: maxBytes });
      default:
        return null;
    }
  } catch {
    return null;
  }
}

/** Charset from <meta charset> or <meta http-equiv=content-type content=...> in the first 1 KiB; '' if none. */
export function prescanCharset(body: Buffer): string {
  const head = body.toString('latin1', 0, Math.min(body.length, 1024));
  const m = /<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)/i.exec(head);
  return m ? m[1]!.toLowerCase() : '';
}
