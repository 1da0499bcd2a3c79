// Byte layout of the URL log (docs/file-format.md, "URL log"): the text of
// every docID in docID order, in CRC'd blocks of URL lines inside segment
// files, with an index of one entry per block. Constants, file names, header
// and block-header encoding and checks, and the committed point the
// manifest names. Pure functions; no IO (url-log-writer.ts writes,
// url-log-reader.ts looks up, url-log-verify.ts checks).

import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { DrumError } from '../../errors.js';
import { checkTaggedHeader, encodeTaggedHeader } from '../blocks/file-header.js';

export const URL_SEGMENT_MAGIC = 0x554d5244; // "DRMU" read as little-endian u32
export const URL_SEGMENT_VERSION = 1;
export const URL_SEGMENT_HEADER_BYTES = 4 + 2 + 2 + 4 + 4; // magic, version, flags, segment number, headerCrc
export const URL_BLOCK_HEADER_BYTES = 4 + 4 + 4 + 4 + 4; // firstDoc lo, firstDoc hi, docs, textBytes, crc
export const URL_BLOCK_TEXT_BYTES = 65536; // a block is sealed once its text reaches this
export const URL_SEGMENT_BYTES = 256 * 1024 * 1024; // a segment takes no new block once it holds this
export const URL_INDEX_MAGIC = 0x584d5244; // "DRMX" read as little-endian u32
export const URL_INDEX_VERSION = 1;
export const URL_INDEX_HEADER_BYTES = 4 + 2 + 2 + 4 + 4; // magic, version, flags, reserved, headerCrc
export const URL_INDEX_ENTRY_BYTES = 4 + 4 + 4 + 4; // firstDoc lo, firstDoc hi, segment, offset

/** The directory of the log, relative to the state directory. */
export const URL_LOG_DIR = 'urls';
export const URL_INDEX_NAME = 'blocks.idx';

/** The URL log's committed state, as the manifest's `urlLog` names it. */
export interface UrlLogPoint {
  /** First docID in the log (0 unless the store held keys before the log existed). */
  base: number;
  /** docIDs in the log: base .. base + docs - 1. */
  docs: number;
  /** Segment files u000000.seg .. (segments - 1). */
  segments: number;
  /** Committed bytes of the last segment (0 when there is none). */
  tailBytes: number;
  /** Committed bytes of blocks.idx (0 when there is none). */
  indexBytes: number;
}

/** An empty log whose first docID is `base`. */
export function emptyUrlLog(base: number): UrlLogPoint {
  return { base, docs: 0, segments: 0, tailBytes: 0, indexBytes: 0 };
}

/**
 * The log a manifest names; a store written before the log existed starts
 * one at the docIDs it has handed out (its keys, when it has no docID count).
 */
export function urlLogOf(body: { urlLog?: UrlLogPoint; storeUrls: number; docIDs?: number }): UrlLogPoint {
  return body.urlLog ?? emptyUrlLog(body.docIDs ?? body.storeUrls);
}

export function samePoint(a: UrlLogPoint, b: UrlLogPoint): boolean {
  return a.base === b.base && a.docs === b.docs && a.segments === b.segments && a.tailBytes === b.tailBytes && a.indexBytes === b.indexBytes;
}

export function segmentName(i: number): string {
  return `u${String(i).padStart(6, '0')}.seg`;
}

export function segmentPath(stateDir: string, i: number): string {
  return join(stateDir, URL_LOG_DIR, segmentName(i));
}

export function indexPath(stateDir: string): string {
  return join(stateDir, URL_LOG_DIR, URL_INDEX_NAME);
}

/** Segment number of a file name of urls/, or -1 when it is not a segment's. */
export function segmentNumber(name: string): number {
  const m = /^u(\d{6,})\.seg$/.exec(name);
  return m === null ? -1 : Number(m[1]);
}

function corrupt(file: string, what: string): never {
  throw new DrumError('DRUM_CORRUPT_FILE', `${file}: ${what}`, { file });
}

export function encodeSegmentHeader(segment: number): Buffer {
  return encodeTaggedHeader(URL_SEGMENT_MAGIC, URL_SEGMENT_VERSION, segment);
}

/** Checks a segment header; DRUM_CORRUPT_FILE unless it is segment `segment`'s. */
export function checkSegmentHeader(b: Uint8Array, segment: number, file: string): void {
  const n = checkTaggedHeader(b, URL_SEGMENT_MAGIC, URL_SEGMENT_VERSION, file, 'URL log segment');
  if (n !== segment) corrupt(file, `header says segment ${n}`);
}

export function encodeIndexHeader(): Buffer {
  return encodeTaggedHeader(URL_INDEX_MAGIC, URL_INDEX_VERSION, 0);
}

export function checkIndexHeader(b: Uint8Array, file: string): void {
  checkTaggedHeader(b, URL_INDEX_MAGIC, URL_INDEX_VERSION, file, 'URL log index');
}

/** Writes a block header for text[0, textBytes) into h at `at` (CRC over the header's first 16 bytes, then the text). */
export function writeBlockHeader(h: Buffer, at: number, firstDoc: number, docs: number, text: Uint8Array, textStart: number, textBytes: number): void {
  h.writeUInt32LE(firstDoc % 2 ** 32, at);
  h.writeUInt32LE(Math.floor(firstDoc / 2 ** 32), at + 4);
  h.writeUInt32LE(docs, at + 8);
  h.writeUInt32LE(textBytes, at + 12);
  const crc = crc32(text.subarray(textStart, textStart + textBytes), crc32(h.subarray(at, at + 16)));
  h.writeUInt32LE(crc, at + 16);
}

export interface BlockHeader {
  firstDoc: number;
  docs: number;
  textBytes: number;
  crc: number;
}

export function readBlockHeader(h: Buffer, at: number): BlockHeader {
  return {
    firstDoc: h.readUInt32LE(at) + h.readUInt32LE(at + 4) * 2 ** 32,
    docs: h.readUInt32LE(at + 8),
    textBytes: h.readUInt32LE(at + 12),
    crc: h.readUInt32LE(at + 16),
  };
}

/** Checks a block read whole (header at h[at], text right after it): CRC, and `docs` lines each ending in a newline. */
export function checkBlock(h: Buffer, at: number, file: string, offset: number): BlockHeader {
  const bh = readBlockHeader(h, at);
  const textStart = at + URL_BLOCK_HEADER_BYTES;
  const crc = crc32(h.subarray(textStart, textStart + bh.textBytes), crc32(h.subarray(at, at + 16)));
  if (crc !== bh.crc) corrupt(file, `block at offset ${offset}: checksum mismatch`);
  if (bh.docs === 0) corrupt(file, `block at offset ${offset}: no docIDs`);
  let lines = 0;
  for (let i = h.indexOf(0x0a, textStart); i >= 0 && i < textStart + bh.textBytes; i = h.indexOf(0x0a, i + 1)) lines++;
  if (lines !== bh.docs || h[textStart + bh.textBytes - 1] !== 0x0a) corrupt(file, `block at offset ${offset}: ${lines} URL lines, header says ${bh.docs}`);
  return bh;
}

export interface IndexEntry {
  firstDoc: number;
  segment: number;
  offset: number;
}

export function writeIndexEntry(b: Buffer, at: number, e: IndexEntry): void {
  b.writeUInt32LE(e.firstDoc % 2 ** 32, at);
  b.writeUInt32LE(Math.floor(e.firstDoc / 2 ** 32), at + 4);
  b.writeUInt32LE(e.segment, at + 8);
  b.writeUInt32LE(e.offset, at + 12);
}

export function readIndexEntry(b: Buffer, at: number): IndexEntry {
  return { firstDoc: b.readUInt32LE(at) + b.readUInt32LE(at + 4) * 2 ** 32, segment: b.readUInt32LE(at + 8), offset: b.readUInt32LE(at + 12) };
}

/** Index entries a committed index of `indexBytes` bytes holds. */
export function indexEntries(indexBytes: number): number {
  return indexBytes === 0 ? 0 : (indexBytes - URL_INDEX_HEADER_BYTES) / URL_INDEX_ENTRY_BYTES;
}
