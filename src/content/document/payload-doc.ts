// One WARC record as a document for content dedup: a `response` record whose
// HTTP payload is HTML or plain text (status 2xx), or a `resource` record of
// such a type. Gives the document's URL, its body (chunked and
// Content-Encoding undone, bounded), whether it is HTML, its SHA-1 digest
// computed here (the payload as stored, the digest WARC-Payload-Digest
// declares) and how the declared one compares, and the exact 64-bit key of
// the decoded body. Does not read the stream (read-docs.ts) or look at the
// text (visible-text.ts).
// REQUIRES: the record's whole block was retained (wantsDocRecord said yes).

import { parseContentType, parseHttpHead, dechunk, decodeContent, isHtmlType, sniffHtml } from '../../input/warc/payload.js';
import type { WarcRecordEvent } from '../../input/warc/record-events.js';
import { type DigestCheck, checkDeclared, sha1 } from './digest.js';

export interface ContentDoc {
  url: string;
  /** 1-based record number in its file. */
  record: number;
  html: boolean;
  /** The decoded payload (a view; valid while the record's block is). */
  body: Buffer;
  /** SHA-1 of the decoded payload: its first 8 bytes are the exact key. */
  digest: Buffer;
  declared: DigestCheck;
}

/** Why a record is not a document (counted, never fatal). */
export type SkipReason = 'not-response' | 'not-text' | 'not-2xx' | 'too-long' | 'undecodable';

/** Whether the reader should keep this record's block. */
export function wantsDocRecord(type: string, contentType: string): boolean {
  if (type === 'response') return contentType === '' || contentType.toLowerCase().startsWith('application/http');
  if (type === 'resource') return isTextType(parseContentType(contentType).mediaType);
  return false;
}

export function isTextType(mediaType: string): boolean {
  return isHtmlType(mediaType) || mediaType === 'text/plain';
}

/** The record as a document, or why not. */
export function docOfRecord(ev: WarcRecordEvent, maxBodyBytes: number): ContentDoc | SkipReason {
  if (ev.type !== 'response' && ev.type !== 'resource') return 'not-response';
  if (ev.block === null) return ev.head !== null ? 'too-long' : 'not-text';
  const block = ev.block;
  if (ev.type === 'resource') {
    const html = isHtmlType(parseContentType(ev.contentType).mediaType);
    const digest = sha1(block);
    return { url: ev.targetUri, record: ev.number, html, body: block, digest, declared: checkDeclared(ev.payloadDigest, digest) };
  }
  const http = parseHttpHead(block);
  if (http === null) return 'undecodable';
  if (http.status < 200 || http.status > 299) return 'not-2xx';
  const stored = block.subarray(http.bodyStart);
  const html = isHtmlType(http.mediaType) || (http.mediaType === '' && sniffHtml(stored));
  if (!html && http.mediaType !== 'text/plain') return 'not-text';
  const storedDigest = sha1(stored);
  const declared = checkDeclared(ev.payloadDigest, storedDigest);
  let body: Buffer | null = stored;
  if (http.transferEncoding.includes('chunked')) body = dechunk(body, maxBodyBytes);
  if (body !== null) body = decodeContent(body, http.contentEncoding, maxBodyBytes);
  if (body === null) return 'undecodable';
  const digest = body === stored ? storedDigest : sha1(body);
  return { url: ev.targetUri, record: ev.number, html, body, digest, declared };
}
