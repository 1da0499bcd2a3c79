// Appends a commit's new URLs to the URL log (docs/file-format.md, "URL
// log"): URL lines go into the open block; a block is sealed when its text
// reaches URL_BLOCK_TEXT_BYTES and at sync(), written to the last segment
// (a new segment once that one is full) with its index entry; sync() makes
// the segments and the index durable and returns the point a manifest names.
// begin(committed) puts the files back to a committed point first whenever
// the writer is not exactly there (its first commit, or after a commit that
// failed before its manifest): bytes past the point are cut off, later
// segment files deleted. Files are opened only when a commit writes, so a
// writer that commits nothing changes nothing on disk.
// Does not decide which URLs are new, and does not write the manifest.
// REQUIRES: begin() before the first append of each commit; one writer per
// state directory (the writer lock); URLs without a newline.

import * as fs from 'node:fs';
import { join } from 'node:path';
import type { DrumFs } from '../../io/fs.js';
import { RangeCopier } from '../../io/range-copy.js';
import { WriteBehind } from '../../io/write-behind.js';
import {
  encodeIndexHeader, encodeSegmentHeader, indexPath, samePoint, segmentNumber, segmentPath, writeBlockHeader, writeIndexEntry,
  URL_BLOCK_HEADER_BYTES, URL_BLOCK_TEXT_BYTES, URL_INDEX_ENTRY_BYTES, URL_INDEX_HEADER_BYTES, URL_INDEX_NAME, URL_LOG_DIR, URL_SEGMENT_BYTES,
  URL_SEGMENT_HEADER_BYTES, type UrlLogPoint,
} from './url-log-format.js';

const NL = 0x0a;
/** Room for a block's header, a full block's text and one longest URL line past it. */
const BLOCK_BUFFER_BYTES = URL_BLOCK_HEADER_BYTES + URL_BLOCK_TEXT_BYTES + 0x10000 + 1;
/** Index entries kept in RAM before they are written. */
const INDEX_BUFFER_ENTRIES = 4096;

export interface UrlLogWriterOptions {
  fsync: boolean;
  /** Segment size (default URL_SEGMENT_BYTES); smaller in tests. */
  segmentBytes?: number;
  /** Block text size (default URL_BLOCK_TEXT_BYTES); smaller in tests. */
  blockTextBytes?: number;
}

export class UrlLogWriter {
  private readonly block = Buffer.allocUnsafe(BLOCK_BUFFER_BYTES);
  private readonly index = Buffer.allocUnsafe(INDEX_BUFFER_ENTRIES * URL_INDEX_ENTRY_BYTES);
  private readonly copier = new RangeCopier();
  private readonly segmentBytes: number;
  private readonly blockTextBytes: number;
  /** Where the files are (everything written), or null when unknown (before the first begin, after a failure). */
  private at: UrlLogPoint | null = null;
  private segFd = -1;
  /** The last segment's writeback, started as it grows (null when no segment is open). */
  private segWb: WriteBehind | null = null;
  private idxFd = -1;
  /** Text bytes of the open block (after its header slot in `block`). */
  private used = 0;
  private blockDocs = 0;
  private indexUsed = 0;
  /** Files created since the last sync: the directory needs an fsync. */
  private created = false;
  /** Segments sealed since the last sync, still to fsync and close. */
  private sealed: WriteBehind[] = [];

  constructor(
    private readonly dfs: DrumFs,
    readonly stateDir: string,
    private readonly opts: UrlLogWriterOptions,
  ) {
    this.segmentBytes = opts.segmentBytes ?? URL_SEGMENT_BYTES;
    this.blockTextBytes = opts.blockTextBytes ?? URL_BLOCK_TEXT_BYTES;
  }

  /** docIDs written (sealed or in the open block): the next URL appended gets this docID. */
  get nextDoc(): number {
    const at = this.need();
    return at.base + at.docs + this.blockDocs;
  }

  /**
   * Starts a commit's appends at the committed point `committed`: when the
   * writer is anywhere else (first use, or an earlier commit failed before
   * its manifest), drops what it holds and cuts the files back to it.
   */
  begin(committed: UrlLogPoint): void {
    if (this.at !== null && this.used === 0 && this.indexUsed === 0 && this.sealed.length === 0 && samePoint(this.at, committed)) return;
    this.closeFiles();
    this.used = 0;
    this.blockDocs = 0;
    this.indexUsed = 0;
    this.at = null;
    this.trim(committed);
    this.at = { ...committed };
  }

  /** Appends one URL, src[start, end), as the next docID. */
  append(src: Uint8Array, start: number, end: number): void {
    const base = URL_BLOCK_HEADER_BYTES + this.used;
    const at = this.copier.copy(src, start, end, this.block, base);
    this.block[at] = NL;
    this.used += at + 1 - base;
    this.blockDocs++;
    if (this.used >= this.blockTextBytes) this.seal();
  }

  /** Appends n whole lines ("URL\n" each) held in bytes[0, len); line i ends (before its newline) at ends[i]. */
  appendLines(bytes: Uint8Array, len: number, n: number, ends: Uint32Array): void {
    let from = 0;
    let i = 0;
    while (i < n) {
      // Take lines while the block has room: up to the first line that reaches the block's size.
      const room = this.blockTextBytes - this.used;
      let j = i;
      while (j < n && ends[j]! + 1 - from < room) j++;
      if (j < n) j++; // that line, which fills the block
      const to = ends[j - 1]! + 1;
      this.copier.copy(bytes, from, to, this.block, URL_BLOCK_HEADER_BYTES + this.used);
      this.used += to - from;
      this.blockDocs += j - i;
      if (this.used >= this.blockTextBytes) this.seal();
      from = to;
      i = j;
    }
    if (from !== len) throw new RangeError(`appendLines: ${n} lines end at ${from}, not at ${len}`);
  }

  /** Seals the open block, writes the index entries and fsyncs; returns the point to name in the manifest. */
  async sync(): Promise<UrlLogPoint> {
    this.seal();
    this.flushIndex();
    const at = this.need();
    if (this.opts.fsync) {
      for (const wb of [...this.sealed, ...(this.segWb === null ? [] : [this.segWb])]) {
        await wb.settle();
        this.dfs.fsync(wb.fd);
      }
      if (this.idxFd >= 0) this.dfs.fsync(this.idxFd);
      if (this.created) this.dfs.fsyncDir(join(this.stateDir, URL_LOG_DIR));
    }
    for (const wb of this.sealed.splice(0)) wb.close();
    this.created = false;
    return { ...at };
  }

  /** Closes the files (what is not synced is dropped by the next begin()). */
  close(): void {
    this.closeFiles();
    this.at = null;
  }

  private need(): UrlLogPoint {
    if (this.at === null) throw new Error('UrlLogWriter: begin() first');
    return this.at;
  }

  /** Writes the open block to the last segment (starting a new one when it is full) and queues its index entry. */
  private seal(): void {
    if (this.blockDocs === 0) return;
    if (this.segFd < 0 || this.need().tailBytes >= this.segmentBytes) this.nextSegment();
    // Before `at` is taken: a flush moves indexBytes on, and `at` is written back below.
    if (this.indexUsed === this.index.length) this.flushIndex();
    const at = this.need();
    writeBlockHeader(this.block, 0, at.base + at.docs, this.blockDocs, this.block, URL_BLOCK_HEADER_BYTES, this.used);
    writeIndexEntry(this.index, this.indexUsed, { firstDoc: at.base + at.docs, segment: at.segments - 1, offset: at.tailBytes });
    this.indexUsed += URL_INDEX_ENTRY_BYTES;
    const bytes = URL_BLOCK_HEADER_BYTES + this.used;
    // Counted only once written: a failed write leaves `at` unknown (this.at reset by the next begin()).
    const written = { ...at };
    this.dfs.write(this.segFd, this.block, 0, bytes, at.tailBytes);
    this.segWb!.wrote(bytes);
    written.tailBytes += bytes;
    written.docs += this.blockDocs;
    this.at = written;
    this.used = 0;
    this.blockDocs = 0;
  }

  private nextSegment(): void {
    if (this.segWb !== null) this.sealed.push(this.segWb);
    this.segFd = -1;
    this.segWb = null;
    if (this.idxFd < 0) this.openIndex();
    const at = this.need();
    this.dfs.mkdirp(join(this.stateDir, URL_LOG_DIR));
    const n = at.segments;
    this.segFd = this.dfs.open(segmentPath(this.stateDir, n), 'w');
    this.segWb = new WriteBehind(this.dfs, this.segFd, this.opts.fsync);
    this.created = true;
    const h = encodeSegmentHeader(n);
    this.dfs.write(this.segFd, h, 0, h.length, 0);
    this.at = { ...at, segments: n + 1, tailBytes: URL_SEGMENT_HEADER_BYTES };
  }

  private openIndex(): void {
    const at = this.need();
    const path = indexPath(this.stateDir);
    if (at.indexBytes > 0) {
      this.idxFd = this.dfs.open(path, 'r+');
      return;
    }
    this.dfs.mkdirp(join(this.stateDir, URL_LOG_DIR));
    this.idxFd = this.dfs.open(path, 'w');
    this.created = true;
    const h = encodeIndexHeader();
    this.dfs.write(this.idxFd, h, 0, h.length, 0);
    this.at = { ...at, indexBytes: URL_INDEX_HEADER_BYTES };
  }

  private flushIndex(): void {
    if (this.indexUsed === 0) return;
    if (this.idxFd < 0) this.openIndex();
    const pos = this.need().indexBytes;
    this.dfs.write(this.idxFd, this.index, 0, this.indexUsed, pos);
    this.at = { ...this.need(), indexBytes: pos + this.indexUsed };
    this.indexUsed = 0;
  }

  /** Cuts the files back to `p`: the last segment and the index to their lengths, later segments deleted. Opens the tail files. */
  private trim(p: UrlLogPoint): void {
    const dir = join(this.stateDir, URL_LOG_DIR);
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir);
    } catch {
      names = [];
    }
    for (const name of names) {
      const n = segmentNumber(name);
      if (n >= p.segments) this.dfs.unlink(join(dir, name));
    }
    if (p.indexBytes === 0 && names.includes(URL_INDEX_NAME)) this.dfs.unlink(indexPath(this.stateDir));
    if (p.segments > 0) {
      this.segFd = this.cut(segmentPath(this.stateDir, p.segments - 1), p.tailBytes);
      this.segWb = new WriteBehind(this.dfs, this.segFd, this.opts.fsync);
    }
    if (p.indexBytes > 0) this.idxFd = this.cut(indexPath(this.stateDir), p.indexBytes);
  }

  /** Opens `path` for writing and truncates it to `len` if it is longer (a shorter one is the store's damage: verify's to report). */
  private cut(path: string, len: number): number {
    const fd = this.dfs.open(path, 'r+');
    if (this.dfs.sizeOf(fd, path) > len) this.dfs.truncate(fd, len);
    return fd;
  }

  private closeFiles(): void {
    const segments = [...this.sealed.splice(0), ...(this.segWb === null ? [] : [this.segWb])];
    const idxFd = this.idxFd;
    this.segFd = -1;
    this.segWb = null;
    this.idxFd = -1;
    const closes = [...segments.map((wb) => () => wb.close()), () => idxFd >= 0 && this.dfs.close(idxFd)];
    for (const close of closes) {
      try {
        close();
      } catch {
        // a descriptor that will not close holds nothing committed
      }
    }
  }
}
