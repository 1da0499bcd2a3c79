// A plain file of lines written once, front to back, through one buffer and
// the DrumFs seam: a forget's forgotten.txt (the URLs it removed, in list
// order). sync() makes everything written so far durable before the commit
// that names it. Does not rotate, resume or truncate (UniqueWriter does, for
// a run's new URLs): a forget commits once, and a crashed forget leaves a
// file no manifest names.
// REQUIRES: the directory exists; one writer per file.

import type { DrumFs } from '../io/fs.js';

const BUFFER_BYTES = 1 << 20;
const NL = 0x0a;

export class LineFile {
  private readonly fd: number;
  private readonly buf = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  /** Lines written. */
  lines = 0;

  constructor(
    private readonly dfs: DrumFs,
    readonly path: string,
    private readonly fsync: boolean,
  ) {
    this.fd = dfs.open(path, 'w');
  }

  /** Appends bytes [start, end) of `src` and a newline. */
  write(src: Uint8Array, start: number, end: number): void {
    const len = end - start;
    if (this.used + len + 1 > this.buf.length) this.flush();
    if (len + 1 > this.buf.length) {
      this.dfs.write(this.fd, src, start, len);
      this.buf[0] = NL;
      this.used = 1;
    } else {
      this.buf.set(src.subarray(start, end), this.used);
      this.used += len;
      this.buf[this.used++] = NL;
    }
    this.lines++;
  }

  /** Writes the buffer and fsyncs (unless opened without fsync). */
  sync(): void {
    this.flush();
    if (this.fsync) this.dfs.fsync(this.fd);
  }

  close(): void {
    this.dfs.close(this.fd);
  }

  private flush(): void {
    if (this.used > 0) this.dfs.write(this.fd, this.buf, 0, this.used);
    this.used = 0;
  }
}
