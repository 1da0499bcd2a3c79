// The round's aux log: the canonical URL text of every key sent to a bucket,
// in arrival order, as [u16 LE length][bytes] records (docs/file-format.md).
// Record index = the key's arrival ordinal. Written through one large buffer,
// read back once, sequentially, when the merge dispatches new URLs.
// Transient: a crash discards it. Does not know which URLs are new.

import type { DrumFs } from '../io/fs.js';

export const AUX_LEN_BYTES = 2; // u16 length
export const AUX_MAX_URL_BYTES = 0xffff;

export class AuxLog {
  private fd = -1;
  private buf: Buffer;
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
    at += AUX_LEN_BYTES;
    // A byte loop beats subarray()+set() for URL-sized copies: no view object per URL.
    for (let i = start; i < end; i++) b[at++] = src[i]!;
    this.used = at;
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
        let chunk: Buffer = Buffer.allocUnsafe(Math.max(chunkBytes, 2 * (AUX_MAX_URL_BYTES + AUX_LEN_BYTES)));
        let have = 0; // bytes in chunk
        let pos = 0; // file position of chunk end
        let at = 0;
        for (;;) {
          // Refill: keep the unread tail, read more after it.
          if (at > 0) {
            chunk.copy(chunk, 0, at, have);
            have -= at;
            at = 0;
          }
          const n = this.fs.read(rfd, chunk, have, chunk.length - have, pos);
          pos += n;
          have += n;
          if (have === 0) break;
          while (at + AUX_LEN_BYTES <= have) {
            const len = chunk[at]! | (chunk[at + 1]! << 8);
            if (at + AUX_LEN_BYTES + len > have) break;
            if ((wanted[ordinal >>> 3]! >>> (ordinal & 7)) & 1) visit(ordinal, chunk, at + 2, at + 2 + len);
            ordinal++;
            at += AUX_LEN_BYTES + len;
          }
          if (n === 0) break;
          if (chunk.length - have + at < AUX_MAX_URL_BYTES + AUX_LEN_BYTES) chunk = grow(chunk);
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

function grow(b: Buffer): Buffer {
  const g = Buffer.allocUnsafe(b.length * 2);
  b.copy(g);
  return g;
}
