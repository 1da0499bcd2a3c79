// The round's aux log: the canonical URL text of every key sent to a bucket,
// in arrival order, as [u16 LE length][bytes] records (docs/file-format.md).
// Record index = the key's arrival ordinal. Written through one large buffer,
// read back once, sequentially, when the merge dispatches new URLs.
// Transient: a crash discards it. Does not know which URLs are new.

import type { DrumFs } from '../io/fs.js';
import { RangeCopier } from '../io/range-copy.js';

export const AUX_LEN_BYTES = 2; // u16 length
export const AUX_MAX_URL_BYTES = 0xffff;

export class AuxLog {
  private fd = -1;
  private readonly buf: Buffer;
  private readonly copier = new RangeCopier();
  private used = 0;
  /** Records appended this round. */
  records = 0;
  /** Bytes appended this round (including length prefixes). */
  bytes = 0;

  constructor(
    private readonly fs: DrumFs,
    readonly path: string,
    bufferBytes: number,
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(bufferBytes, AUX_MAX_URL_BYTES + AUX_LEN_BYTES));
  }

  /** Appends src[start, end) as the next record. REQUIRES: end - start <= AUX_MAX_URL_BYTES. */
  append(src: Uint8Array, start: number, end: number): void {
    const len = end - start;
    if (this.used + len + AUX_LEN_BYTES > this.buf.length) this.flush();
    const b = this.buf;
    let at = this.used;
    b[at] = len & 0xff;
    b[at + 1] = len >>> 8;
    this.used = this.copier.copy(src, start, end, b, at + AUX_LEN_BYTES);
    this.bytes += len + AUX_LEN_BYTES;
    this.records++;
  }

  flush(): void {
    if (this.used === 0) return;
    if (this.fd < 0) this.fd = this.fs.open(this.path, 'w');
    this.fs.write(this.fd, this.buf, 0, this.used, null);
    this.used = 0;
  }

  /**
   * Streams every record in order; calls visit(ordinal, buf, start, end) for
   * each ordinal whose bit is set in `wanted` (bit i of byte i>>3). Reads the
   * file in `chunkBytes` pieces; records still in the RAM buffer are read there.
   */
  forEachWanted(
    wanted: Uint8Array,
    chunkBytes: number,
    visit: (ordinal: number, buf: Buffer, start: number, end: number) => void,
  ): void {
    let ordinal = 0;
    if (this.fd >= 0) {
      const rfd = this.fs.open(this.path, 'r');
      try {
        const cur = new AuxCursor(Buffer.allocUnsafe(Math.max(chunkBytes, AUX_CURSOR_MIN_BYTES)), (b, off, len, pos) => this.fs.read(rfd, b, off, len, pos));
        while (cur.next()) {
          if ((wanted[ordinal >>> 3]! >>> (ordinal & 7)) & 1) visit(ordinal, cur.buf, cur.start, cur.end);
          ordinal++;
        }
      } finally {
        this.fs.close(rfd);
      }
    }
    // Records still in the write buffer.
    let at = 0;
    while (at < this.used) {
      const len = this.buf[at]! | (this.buf[at + 1]! << 8);
      if ((wanted[ordinal >>> 3]! >>> (ordinal & 7)) & 1) visit(ordinal, this.buf, at + 2, at + 2 + len);
      ordinal++;
      at += AUX_LEN_BYTES + len;
    }
  }

  /** Closes and deletes the log; the next round starts empty. */
  discard(): void {
    const fd = this.fd;
    // Forget the descriptor before anything can throw: a retry must not close it (or a reused number) twice.
    this.fd = -1;
    this.used = 0;
    this.records = 0;
    this.bytes = 0;
    if (fd >= 0) {
      this.fs.close(fd);
      this.fs.unlink(this.path);
    }
  }
}

/** Smallest AuxCursor buffer: room for a whole longest record after any partial one kept from the last read. */
export const AUX_CURSOR_MIN_BYTES = 2 * (AUX_MAX_URL_BYTES + AUX_LEN_BYTES);

/**
 * Reads a file of aux records front to back through one buffer: next()
 * moves to the next complete record, whose URL is buf[start, end) until the
 * next call. `read(buf, offset, length, position)` returns the bytes it read
 * (0 at the end; a partial record there is dropped). The main thread's
 * dispatch (forEachWanted, through DrumFs) and the worker's
 * (engine/dispatch-scan.ts, plain fs) each bring their own read.
 */
export class AuxCursor<B extends Uint8Array> {
  start = 0;
  end = 0;
  /** Bytes read from the file so far. */
  bytesRead = 0;
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
      if (at + AUX_LEN_BYTES <= this.have) {
        const s = at + AUX_LEN_BYTES;
        const e = s + (b[at]! | (b[at + 1]! << 8));
        if (e <= this.have) {
          this.start = s;
          this.end = e;
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
