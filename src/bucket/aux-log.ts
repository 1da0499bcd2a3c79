// The round's aux log: the canonical URL text of every key sent to a bucket,
// in arrival order, front-coded against the record before it
// (docs/file-format.md: [u16 LE suffix length][u8 shared][suffix] records).
// Record index = the key's arrival ordinal. Written through one large buffer,
// read back once, sequentially, when the merge dispatches new URLs; the
// reader (AuxCursor) rebuilds each URL from the one before it.
// Transient: a crash discards it. Does not know which URLs are new.

import { DrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { RangeCopier } from '../io/range-copy.js';

export const AUX_LEN_BYTES = 2; // u16 suffix length
export const AUX_HEADER_BYTES = AUX_LEN_BYTES + 1; // + u8 bytes shared with the previous record's URL
export const AUX_MAX_URL_BYTES = 0xffff;
export const AUX_MAX_SHARED = 0xff;

export class AuxLog {
  private fd = -1;
  private readonly buf: Buffer;
  private readonly copier = new RangeCopier();
  /** The dispatch's read buffer (forEachWanted), kept from round to round. */
  private readBuf = Buffer.allocUnsafe(0);
  private used = 0;
  /** Bytes of this round's records already in the file (the rest are in buf[0, used)). */
  private flushed = 0;
  /** Records appended this round. */
  records = 0;
  /** Bytes appended this round (including record headers). */
  bytes = 0;

  constructor(
    private readonly fs: DrumFs,
    readonly path: string,
    bufferBytes: number,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(bufferBytes, AUX_MAX_URL_BYTES + AUX_HEADER_BYTES));
  }

  /**
   * Appends src[start, end) as the next record. When the previous record
   * appended was src[prevStart, prevEnd) of the same, unchanged `src`, pass
   * its range: the record then stores only what follows the prefix the two
   * share (up to AUX_MAX_SHARED bytes); -1 (default) stores the whole URL.
   * REQUIRES: end - start <= AUX_MAX_URL_BYTES.
   */
  append(src: Uint8Array, start: number, end: number, prevStart = -1, prevEnd = -1): void {
    const len = end - start;
    let shared = 0;
    if (prevStart >= 0 && this.records > 0) {
      let m = prevEnd - prevStart;
      if (len < m) m = len;
      if (m > AUX_MAX_SHARED) m = AUX_MAX_SHARED;
      shared = this.copier.sharedPrefix(src, prevStart, start, m);
    }
    const rest = len - shared;
    if (this.used + rest + AUX_HEADER_BYTES > this.buf.length) this.flush();
    const b = this.buf;
    const at = this.used;
    b[at] = rest & 0xff;
    b[at + 1] = rest >>> 8;
    b[at + 2] = shared;
    this.used = this.copier.copy(src, start + shared, end, b, at + AUX_HEADER_BYTES);
    this.bytes += rest + AUX_HEADER_BYTES;
    this.records++;
  }

  flush(): void {
    if (this.used === 0) return;
    if (this.fd < 0) this.fd = this.fs.open(this.path, 'w');
    this.fs.write(this.fd, this.buf, 0, this.used, null);
    this.flushed += this.used;
    this.used = 0;
  }

  /**
   * Streams every record in order; calls visit(ordinal, buf, start, end) for
   * each ordinal whose bit is set in `wanted` (bit i of byte i>>3), the URL
   * valid until visit returns. Reads the file in `chunkBytes` pieces, then
   * the records still in the RAM buffer. DRUM_CORRUPT_FILE if the file holds
   * fewer records than were appended.
   */
  forEachWanted(
    wanted: Uint8Array,
    chunkBytes: number,
    visit: (ordinal: number, buf: Buffer, start: number, end: number) => void,
  ): void {
    const rfd = this.fd >= 0 ? this.fs.open(this.path, 'r') : -1;
    const flushed = this.flushed;
    try {
      // No bigger than the log: a small round's dispatch allocates no 4 MiB it never fills. Kept for the next
      // round's dispatch (grown when a bigger log needs more): a buffer per round was garbage until the next GC.
      const bytes = Math.max(AUX_CURSOR_MIN_BYTES, Math.min(chunkBytes, flushed + this.used));
      if (this.readBuf.length < bytes) this.readBuf = Buffer.allocUnsafe(bytes);
      const cur = new AuxCursor(this.readBuf.subarray(0, bytes), (b, off, len, pos) => {
        if (pos < flushed) return this.fs.read(rfd, b, off, Math.min(len, flushed - pos), pos);
        const from = pos - flushed;
        const n = Math.min(len, this.used - from);
        return n <= 0 ? 0 : this.buf.copy(b, off, from, from + n);
      });
      let ordinal = 0;
      for (; cur.next(); ordinal++) {
        if ((wanted[ordinal >>> 3]! >>> (ordinal & 7)) & 1) visit(ordinal, cur.url, 0, cur.len);
      }
      // Something cut the file short under us: every later ordinal would be lost or shifted.
      if (ordinal !== this.records) throw new DrumError('DRUM_CORRUPT_FILE', `${this.path}: aux log ends at record ${ordinal} of ${this.records}`, { file: this.path });
    } finally {
      if (rfd >= 0) this.fs.close(rfd);
    }
  }

  /** Closes and deletes the log; the next round starts empty. */
  discard(): void {
    const fd = this.fd;
    // Forget the descriptor before anything can throw: a retry must not close it (or a reused number) twice.
    this.fd = -1;
    this.used = 0;
    this.flushed = 0;
    this.records = 0;
    this.bytes = 0;
    if (fd >= 0) {
      this.fs.close(fd);
      this.fs.unlink(this.path);
    }
  }
}

/** Smallest AuxCursor buffer: room for a whole longest record after any partial one kept from the last read. */
export const AUX_CURSOR_MIN_BYTES = 2 * (AUX_MAX_URL_BYTES + AUX_HEADER_BYTES);

/**
 * Reads a file of aux records front to back through one buffer: next()
 * moves to the next complete record and rebuilds its URL in url[0, len),
 * valid until the next call. `read(buf, offset, length, position)` returns
 * the bytes it read (0 at the end; a partial record there is dropped). The
 * main thread's dispatch (forEachWanted, through DrumFs) and the worker's
 * (engine/dispatch-scan.ts, plain fs) each bring their own read. A record
 * claiming more shared bytes than the URL before it had, or making a URL
 * longer than AUX_MAX_URL_BYTES, throws (a log drum wrote never does).
 */
export class AuxCursor<B extends Uint8Array> {
  /** The current record's URL: url[0, len). */
  readonly url: Buffer = Buffer.allocUnsafe(AUX_MAX_URL_BYTES);
  len = 0;
  /** Bytes read from the file so far. */
  bytesRead = 0;
  private readonly copier = new RangeCopier();
  private have = 0; // bytes in buf
  private at = 0; // next record in buf
  private pos = 0; // file position of buf[have]

  constructor(
    readonly buf: B,
    private readonly read: (buf: B, offset: number, length: number, position: number) => number,
  ) {
    if (buf.length < AUX_CURSOR_MIN_BYTES) throw new RangeError(`AuxCursor: a buffer of at least ${AUX_CURSOR_MIN_BYTES} bytes is needed`);
  }

  next(): boolean {
    const b = this.buf;
    for (;;) {
      const at = this.at;
      if (at + AUX_HEADER_BYTES <= this.have) {
        const s = at + AUX_HEADER_BYTES;
        const e = s + (b[at]! | (b[at + 1]! << 8));
        if (e <= this.have) {
          const shared = b[at + 2]!;
          if (shared > this.len || shared + (e - s) > AUX_MAX_URL_BYTES) {
            throw new RangeError(`aux record at ${this.pos - this.have + at} shares ${shared} bytes with a URL of ${this.len} and adds ${e - s}`);
          }
          this.len = this.copier.copy(b, s, e, this.url, shared);
          this.at = e;
          return true;
        }
      }
      // Refill: keep the unread tail, read more after it.
      b.copyWithin(0, at, this.have);
      this.have -= at;
      this.at = 0;
      const n = this.read(b, this.have, b.length - this.have, this.pos);
      if (n === 0) return false;
      this.pos += n;
      this.have += n;
      this.bytesRead += n;
    }
  }
}
