// Writing to a file descriptor from the event loop without blocking it:
// writeAll writes one buffer fully (looping on short writes); DoubleBuffer
// lets a producer fill one buffer while the other is being written, so
// generation and writing overlap with at most one write in flight. Does not
// open or close the descriptor.
// REQUIRES: one producer per DoubleBuffer; a buffer handed to writeAll is left
// untouched until its promise settles.

import { write as fsWrite } from 'node:fs';

/** Writes buf[0, len) fully (looping on short writes); resolves when done. */
export function writeAll(fd: number, buf: Buffer, len = buf.length): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (off: number): void => {
      if (off >= len) return resolve();
      fsWrite(fd, buf, off, len - off, null, (err, n) => (err ? reject(err) : step(off + n)));
    };
    step(0);
  });
}

/** Two buffers of `size` bytes: the producer fills `buf` while the other one is written. */
export class DoubleBuffer {
  private readonly bufs: [Buffer, Buffer];
  private pending: Promise<void> = Promise.resolve();
  private flips = 0;
  /** The buffer to fill. */
  buf: Buffer;
  /** Bytes handed to writes so far. */
  bytes = 0;

  constructor(private readonly fd: number, size: number) {
    this.bufs = [Buffer.allocUnsafe(size), Buffer.allocUnsafe(size)];
    this.buf = this.bufs[0];
  }

  /** Once the previous write is done, starts writing buf[0, len); returns the other buffer, now `buf`, to fill. */
  async flush(len: number): Promise<Buffer> {
    await this.pending;
    this.pending = writeAll(this.fd, this.buf, len);
    this.bytes += len;
    this.buf = this.bufs[++this.flips & 1]!;
    return this.buf;
  }

  /** Resolves when the last write is done. */
  done(): Promise<void> {
    return this.pending;
  }
}
