// Looks docIDs up in the URL log (docs/file-format.md, "URL log") at a
// committed point: binary search of the block index (read in 4 KiB pages,
// the most recent pages kept), then one read of the block that holds the
// docID, checked (CRC, first docID, line count) and kept for the next
// lookup, so ascending docIDs read each block once. Reads nothing past the
// committed point, so a writer appending meanwhile is invisible. Does not
// write, and does not know whether a URL is still stored (a forgotten URL
// keeps its docID's line).
// REQUIRES: `point` is a committed point of the store in `stateDir` (its
// files are never rewritten below it).

import { DrumError, osCode } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import {
  checkBlock, checkIndexHeader, checkSegmentHeader, indexEntries, indexPath, readIndexEntry, segmentPath,
  URL_BLOCK_HEADER_BYTES, URL_BLOCK_TEXT_BYTES, URL_INDEX_ENTRY_BYTES, URL_INDEX_HEADER_BYTES, URL_SEGMENT_HEADER_BYTES,
  type IndexEntry, type UrlLogPoint,
} from './url-log-format.js';

const PAGE_BYTES = 4096;
const PAGE_ENTRIES = PAGE_BYTES / URL_INDEX_ENTRY_BYTES;
/** Index pages kept (1 MiB): the top of every binary search stays in RAM. */
const MAX_PAGES = 256;
/** Segment descriptors kept open. */
const MAX_SEGMENTS = 16;
/** A block's largest size: header, full text and one longest URL line past it. */
const MAX_BLOCK_BYTES = URL_BLOCK_HEADER_BYTES + URL_BLOCK_TEXT_BYTES + 0x10000 + 1;

export class UrlLogReader {
  private readonly entries: number;
  private readonly pages = new Map<number, Buffer>();
  private readonly segs = new Map<number, number>();
  private idxFd = -1;
  private buf = Buffer.allocUnsafe(MAX_BLOCK_BYTES);
  /** The block in `buf`: its first docID, docs, and line starts (offsets in buf; starts[docs] = end). */
  private blockFirst = -1;
  private blockDocs = 0;
  private starts = new Uint32Array(0);

  constructor(
    private readonly dfs: DrumFs,
    readonly stateDir: string,
    readonly point: UrlLogPoint,
  ) {
    this.entries = indexEntries(point.indexBytes);
  }

  /** True when `docId` is in the log: an integer in base .. base + docs - 1. */
  has(docId: number): boolean {
    return Number.isInteger(docId) && docId >= this.point.base && docId < this.point.base + this.point.docs;
  }

  /**
   * The URL of `docId` as buf[start, end) (valid until the next lookup), or
   * null when the log does not hold it. DRUM_CORRUPT_FILE when the files do
   * not match the index.
   */
  lookup(docId: number): { buf: Buffer; start: number; end: number } | null {
    if (!this.has(docId)) return null;
    if (docId < this.blockFirst || docId >= this.blockFirst + this.blockDocs) this.load(this.findEntry(docId), docId);
    const k = docId - this.blockFirst;
    return { buf: this.buf, start: this.starts[k]!, end: this.starts[k + 1]! - 1 };
  }

  /** The URL of `docId` as a string, or null. */
  url(docId: number): string | null {
    const r = this.lookup(docId);
    return r === null ? null : r.buf.toString('utf8', r.start, r.end);
  }

  close(): void {
    for (const fd of this.segs.values()) this.dfs.close(fd);
    this.segs.clear();
    if (this.idxFd >= 0) this.dfs.close(this.idxFd);
    this.idxFd = -1;
    this.pages.clear();
  }

  /** The index entry of the block holding `docId` (the last one whose firstDoc <= docId). */
  private findEntry(docId: number): IndexEntry {
    let lo = 0;
    let hi = this.entries - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.entry(mid).firstDoc <= docId) lo = mid;
      else hi = mid - 1;
    }
    return this.entry(lo);
  }

  private entry(i: number): IndexEntry {
    const p = Math.floor(i / PAGE_ENTRIES);
    let page = this.pages.get(p);
    if (page === undefined) {
      page = this.readPage(p);
      if (this.pages.size >= MAX_PAGES) this.pages.delete(this.pages.keys().next().value!);
      this.pages.set(p, page);
    }
    return readIndexEntry(page, (i - p * PAGE_ENTRIES) * URL_INDEX_ENTRY_BYTES);
  }

  private readPage(p: number): Buffer {
    const file = indexPath(this.stateDir);
    if (this.idxFd < 0) {
      this.idxFd = openNamed(this.dfs, file);
      const h = Buffer.allocUnsafe(URL_INDEX_HEADER_BYTES);
      if (this.dfs.readFully(this.idxFd, h, 0, h.length, 0) !== h.length) this.corrupt(file, 'shorter than its header');
      checkIndexHeader(h, file);
    }
    const pos = URL_INDEX_HEADER_BYTES + p * PAGE_BYTES;
    const len = Math.min(PAGE_BYTES, this.point.indexBytes - pos);
    const page = Buffer.allocUnsafe(len);
    if (this.dfs.readFully(this.idxFd, page, 0, len, pos) !== len) this.corrupt(file, `shorter than the ${this.point.indexBytes} bytes the manifest names`);
    return page;
  }

  /** Reads, checks and keeps the block `e` points at, which must hold `docId`. */
  private load(e: IndexEntry, docId: number): void {
    const file = segmentPath(this.stateDir, e.segment);
    this.blockFirst = -1;
    const fd = this.segment(e.segment, file);
    const limit = e.segment === this.point.segments - 1 ? this.point.tailBytes : Infinity;
    // The header, then exactly its text: no read past the block.
    const short = (): never => this.corrupt(file, `block at offset ${e.offset} cut short`);
    if (e.offset + URL_BLOCK_HEADER_BYTES > limit) short();
    if (this.dfs.readFully(fd, this.buf, 0, URL_BLOCK_HEADER_BYTES, e.offset) !== URL_BLOCK_HEADER_BYTES) short();
    const text = this.buf.readUInt32LE(12);
    if (URL_BLOCK_HEADER_BYTES + text > this.buf.length) this.corrupt(file, `block at offset ${e.offset}: ${text} text bytes, more than a block holds`);
    if (e.offset + URL_BLOCK_HEADER_BYTES + text > limit) short();
    if (this.dfs.readFully(fd, this.buf, URL_BLOCK_HEADER_BYTES, text, e.offset + URL_BLOCK_HEADER_BYTES) !== text) short();
    const h = checkBlock(this.buf, 0, file, e.offset);
    if (h.firstDoc !== e.firstDoc) this.corrupt(file, `block at offset ${e.offset} starts at docID ${h.firstDoc}, the index says ${e.firstDoc}`);
    if (docId >= h.firstDoc + h.docs) this.corrupt(file, `docID ${docId} falls in a gap after the block at offset ${e.offset}`);
    if (this.starts.length < h.docs + 1) this.starts = new Uint32Array(Math.max(h.docs + 1, 2 * this.starts.length));
    let at = URL_BLOCK_HEADER_BYTES;
    for (let k = 0; k < h.docs; k++) {
      this.starts[k] = at;
      at = this.buf.indexOf(0x0a, at) + 1;
    }
    this.starts[h.docs] = at;
    this.blockFirst = h.firstDoc;
    this.blockDocs = h.docs;
  }

  private segment(n: number, file: string): number {
    const open = this.segs.get(n);
    if (open !== undefined) return open;
    if (this.segs.size >= MAX_SEGMENTS) {
      const [first, fd] = this.segs.entries().next().value!;
      this.segs.delete(first);
      this.dfs.close(fd);
    }
    const fd = openNamed(this.dfs, file);
    this.segs.set(n, fd);
    const h = Buffer.allocUnsafe(URL_SEGMENT_HEADER_BYTES);
    if (this.dfs.readFully(fd, h, 0, h.length, 0) !== h.length) this.corrupt(file, 'shorter than its header');
    checkSegmentHeader(h, n, file);
    return fd;
  }

  private corrupt(file: string, what: string): never {
    throw new DrumError('DRUM_CORRUPT_FILE', `${file}: ${what}`, { file });
  }
}

/** Opens a file the manifest names for reading; a missing one is DRUM_CORRUPT_FILE (the store is damaged), other OS errors DRUM_IO. */
export function openNamed(dfs: DrumFs, file: string): number {
  try {
    return dfs.open(file, 'r');
  } catch (e) {
    if (osCode(e) === 'ENOENT') throw new DrumError('DRUM_CORRUPT_FILE', `${file}: missing (named by the manifest)`, { file, cause: e });
    throw e;
  }
}
