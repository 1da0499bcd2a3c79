// Streaming WARC record reader (WARC/0.17 named-field form as Heritrix 1.14
// writes it, WARC/1.0, WARC/1.1): header block up to the blank line, then
// exactly Content-Length bytes of block, then the CRLFCRLF trailer. Fed one
// Buffer piece at a time, split anywhere; emits one event per record.
// Blocks the caller does not want are streamed past without being held;
// wanted blocks over `maxRecordBytes` keep only their first `headBytes`.
// A malformed or truncated record becomes a 'malformed' event and the reader
// resyncs at the next line starting with "WARC/". Does not decompress (gzip
// is undone before), does not look inside blocks; the header block's own
// syntax is header.ts's.

import { findBlankLine, parseWarcHeader } from './header.js';
import type { WarcEvent, WarcReaderOptions } from './record-events.js';

export type { WarcEvent, WarcMalformedEvent, WarcReaderOptions, WarcRecordEvent } from './record-events.js';

const MAX_HEADER = 64 * 1024;
const STEP = 2048;
const CR = 13;
const LF = 10;
const WARC_MAGIC = Buffer.from('WARC/');
const RESYNC = Buffer.from('\nWARC/');

type State = 'header' | 'block' | 'trailer' | 'resync';

export class WarcRecordReader {
  private state: State = 'header';
  private readonly hdr = Buffer.allocUnsafe(MAX_HEADER);
  private hdrLen = 0;
  /** Bytes consumed from the start of input. */
  private offset = 0;
  private recNo = 0;
  // current record
  private type = '';
  private targetUri = '';
  private contentType = '';
  private payloadDigest = '';
  private length = 0;
  private got = 0;
  private keep: 'all' | 'head' | 'none' = 'none';
  private block: Buffer | null = null;
  private blockLen = 0;
  private trailerSeen = 0;
  private excerpt: Buffer = Buffer.alloc(0);
  /** Resync after a bad header: the excerpt grows with the skipped bytes (same result however input is split). */
  private excerptGrows = false;
  private excerptStart = 0;
  /** Pieces pushed back (bytes to re-scan after a bad header). */
  private queue: Buffer[] = [];
  /** Resync: last bytes of the previous piece, for a match straddling two pieces. */
  private tail: Buffer = Buffer.alloc(0);
  /** Largest number of bytes held at once for one block (for the bounded-memory test). */
  peakRetained = 0;

  constructor(private readonly opts: WarcReaderOptions) {}

  push(piece: Buffer, out: WarcEvent[]): void {
    this.queue.push(piece);
    while (this.queue.length > 0) {
      const p = this.queue.shift()!;
      this.consume(p, out);
    }
  }

  /** End of input: a record cut short becomes a 'malformed' event. */
  end(out: WarcEvent[]): void {
    if (this.state === 'trailer') {
      this.finish(out); // block complete, trailer missing: accept
    } else if (this.state === 'block' || (this.state === 'header' && this.hdrLen > 0)) {
      if (this.state === 'header') this.excerpt = Buffer.from(this.hdr.subarray(0, Math.min(this.hdrLen, 200)));
      out.push({ kind: 'malformed', number: this.recNo, excerpt: this.excerpt, endOffset: this.offset });
    } else if (this.state === 'resync') {
      out.push({ kind: 'malformed', number: this.recNo, excerpt: this.excerpt, endOffset: this.offset });
    }
    this.state = 'header';
    this.hdrLen = 0;
    this.block = null;
  }

  /**
   * Runs piece p through the state machine; one step per state reached (a
   * few per record), each step's byte loop whole in its own method.
   */
  private consume(p: Buffer, out: WarcEvent[]): void {
    let pos = 0;
    const n = p.length;
    while (pos < n) {
      switch (this.state) {
        case 'header':
          if (this.hdrLen === 0) pos = this.skipBlankLines(p, pos);
          if (pos < n) pos = this.readHeader(p, pos);
          break;
        case 'block':
          pos = this.readBlock(p, pos);
          break;
        case 'trailer':
          pos = this.readTrailer(p, pos, out);
          break;
        case 'resync':
          pos = this.resync(p, pos, out);
          break;
      }
    }
  }

  /** Skips the CR and LF bytes before a record's header; returns the new position in p. */
  private skipBlankLines(p: Buffer, pos: number): number {
    const n = p.length;
    while (pos < n && (p[pos] === CR || p[pos] === LF)) {
      pos++;
      this.offset++;
    }
    return pos;
  }

  /** Takes the block's bytes in p (kept whole, its head only, or none); returns the new position in p. */
  private readBlock(p: Buffer, pos: number): number {
    const take = Math.min(this.length - this.got, p.length - pos);
    if (this.keep === 'all') {
      if (this.got === 0 && take === this.length) {
        this.block = p.subarray(pos, pos + take); // whole block inside this piece: no copy
      } else {
        if (this.block === null) this.block = Buffer.allocUnsafe(this.length);
        p.copy(this.block, this.got, pos, pos + take);
      }
      this.blockLen = this.got + take;
    } else if (this.keep === 'head' && this.got < this.opts.headBytes) {
      if (this.block === null) this.block = Buffer.allocUnsafe(this.opts.headBytes);
      const h = Math.min(take, this.opts.headBytes - this.got);
      p.copy(this.block, this.got, pos, pos + h);
      this.blockLen = this.got + h;
    }
    if (this.block !== null && this.block.length > this.peakRetained) this.peakRetained = this.block.length;
    this.got += take;
    this.offset += take;
    if (this.got === this.length) {
      this.state = 'trailer';
      this.trailerSeen = 0;
    }
    return pos + take;
  }

  /** Reads the CRLFCRLF after a block and emits the record (a short trailer too); returns the new position in p. */
  private readTrailer(p: Buffer, pos: number, out: WarcEvent[]): number {
    const n = p.length;
    while (pos < n && this.trailerSeen < 4 && (p[pos] === CR || p[pos] === LF)) {
      pos++;
      this.offset++;
      this.trailerSeen++;
    }
    if (this.trailerSeen === 4) {
      this.finish(out);
    } else if (pos < n) {
      if (this.trailerSeen > 0) {
        this.finish(out); // short trailer (e.g. bare LF LF): accept
      } else {
        // Content-Length did not end at a record boundary.
        this.block = null;
        this.excerptGrows = false; // excerpt: the record's header
        this.enterResync();
      }
    }
    return pos;
  }

  private finish(out: WarcEvent[]): void {
    const full = this.keep === 'all';
    out.push({
      kind: 'record',
      number: this.recNo,
      type: this.type,
      targetUri: this.targetUri,
      contentType: this.contentType,
      payloadDigest: this.payloadDigest,
      length: this.length,
      block: full ? this.block : null,
      head: this.keep === 'head' && this.block !== null ? this.block.subarray(0, this.blockLen) : null,
      endOffset: this.offset,
    });
    this.block = null;
    this.state = 'header';
    this.hdrLen = 0;
  }

  /** Copies header bytes in small steps until the blank line; returns the new position in p. */
  private readHeader(p: Buffer, pos: number): number {
    if (this.hdrLen === 0) this.recNo++;
    const n = p.length;
    while (pos < n) {
      const step = Math.min(STEP, n - pos, MAX_HEADER - this.hdrLen);
      const from = Math.max(0, this.hdrLen - 2);
      const oldLen = this.hdrLen;
      p.copy(this.hdr, oldLen, pos, pos + step);
      this.hdrLen += step;
      this.offset += step;
      if (this.hdrLen >= 5 && oldLen < 5 && this.hdr.compare(WARC_MAGIC, 0, 5, 0, 5) !== 0) {
        return this.malformedAt(p, pos + step);
      }
      const end = findBlankLine(this.hdr, from, this.hdrLen);
      if (end >= 0) {
        const used = end - oldLen;
        this.offset -= step - used;
        this.hdrLen = end;
        if (!this.startRecord()) return this.malformedAt(p, pos + used);
        return pos + used;
      }
      pos += step;
      if (this.hdrLen === MAX_HEADER) return this.malformedAt(p, pos);
    }
    return pos;
  }

  /** Parses the header in hdr[0, hdrLen) (header.ts); on success moves to 'block' and returns true. */
  private startRecord(): boolean {
    const h = parseWarcHeader(this.hdr.toString('latin1', 0, this.hdrLen));
    if (h === null) return false;
    const { length, type, contentType } = h;
    this.excerpt = Buffer.from(this.hdr.subarray(0, Math.min(this.hdrLen, 200)));
    this.type = type;
    this.targetUri = h.targetUri;
    this.contentType = contentType;
    this.payloadDigest = h.payloadDigest;
    this.length = length;
    this.got = 0;
    this.blockLen = 0;
    this.keep = this.opts.want(type, contentType) ? (length <= this.opts.maxRecordBytes ? 'all' : 'head') : 'none';
    this.block = length === 0 && this.keep === 'all' ? Buffer.alloc(0) : null;
    this.state = length === 0 ? 'trailer' : 'block';
    this.trailerSeen = 0;
    return true;
  }

  /**
   * Not a WARC header: pushes back its bytes after the first, plus the rest
   * of piece p from `pos`, to be re-scanned in 'resync'. Returns p.length
   * (the caller stops on this piece).
   */
  private malformedAt(p: Buffer, pos: number): number {
    this.excerpt = Buffer.from(this.hdr.subarray(0, 1));
    this.excerptGrows = true;
    const again = Buffer.from(this.hdr.subarray(1, this.hdrLen));
    this.offset -= again.length; // consumed again during resync
    this.excerptStart = this.offset - 1;
    this.queue.unshift(again, p.subarray(pos));
    this.hdrLen = 0;
    this.block = null;
    this.enterResync();
    return p.length;
  }

  private enterResync(): void {
    this.state = 'resync';
    this.tail = Buffer.alloc(0);
  }

  /** Looks for "\nWARC/"; on a hit, emits the pending malformed event and starts a header there. */
  private resync(p: Buffer, pos: number, out: WarcEvent[]): number {
    const n = p.length;
    if (this.tail.length > 0) {
      // A "\nWARC/" straddling the previous piece and this one.
      const joint = Buffer.concat([this.tail, p.subarray(pos, Math.min(n, pos + 5))]);
      const h = joint.indexOf(RESYNC);
      const prev = this.tail.length;
      this.tail = Buffer.alloc(0);
      if (h >= 0) {
        const w = h + 1;
        this.offset += w - prev; // offset had counted the tail already
        this.queue.unshift(Buffer.from(joint.subarray(w)), p.subarray(Math.min(n, pos + 5)));
        this.resynced(out);
        return n;
      }
    }
    const hit = p.indexOf(RESYNC, pos);
    this.growExcerpt(p, pos, hit >= 0 ? hit + 1 : n);
    if (hit >= 0) {
      this.offset += hit + 1 - pos;
      this.resynced(out);
      return hit + 1;
    }
    this.tail = Buffer.from(p.subarray(Math.max(pos, n - 5), n));
    this.offset += n - pos;
    return n;
  }

  private growExcerpt(p: Buffer, s: number, e: number): void {
    if (!this.excerptGrows || this.excerpt.length >= 200 || e <= s) return;
    this.excerpt = Buffer.concat([this.excerpt, p.subarray(s, Math.min(e, s + 200 - this.excerpt.length))]);
  }

  private resynced(out: WarcEvent[]): void {
    if (this.excerptGrows && this.excerpt.length > this.offset - this.excerptStart) {
      this.excerpt = this.excerpt.subarray(0, this.offset - this.excerptStart); // a match straddling pieces
    }
    out.push({ kind: 'malformed', number: this.recNo, excerpt: this.excerpt, endOffset: this.offset });
    this.state = 'header';
    this.hdrLen = 0;
  }
}
