// The life of a store file written the LevelDB way: opened as `<name>.tmp`,
// filled by a subclass (KeyWriter, ValueWriter), then its last bytes and
// header written (the subclass's written()), fsynced — now, or on the
// thread pool so a round's files become durable together — closed and
// renamed over the final name; or abandoned, its tmp deleted. Does not
// decide the bytes.
// REQUIRES: the subclass writes only through `fd`, and written() is called once.

import type { DrumFs } from '../io/fs.js';

/** What a finished store file holds: its keys (or values) and body bytes. */
export interface WrittenFile {
  keys: number;
  bytes: number;
  /** CRC of every byte after the header. */
  crc: number;
}

export abstract class TmpFileWriter {
  protected readonly fd: number;
  private readonly tmp: string;
  private closed = false;

  constructor(protected readonly fs: DrumFs, readonly path: string, private readonly doFsync: boolean) {
    this.tmp = `${path}.tmp`;
    this.fd = fs.open(this.tmp, 'w');
  }

  /** Writes what is left of the body and the header; returns what the file holds. */
  protected abstract written(): WrittenFile;

  /** Completes the file: its last bytes and header, fsync, close, rename over the final name. */
  finish(): WrittenFile {
    const w = this.written();
    if (this.doFsync) this.fs.fsync(this.fd);
    this.seal();
    return w;
  }

  /**
   * finish() with the fsync on the thread pool: the last bytes and header
   * are written now; fsync, close and rename run when awaited, so a round's
   * files become durable together, all before the manifest that names them.
   */
  finishLater(): { file: WrittenFile; done: Promise<void> } {
    const file = this.written();
    const done = (async () => {
      if (this.doFsync) await this.fs.fsyncAsync(this.fd);
      this.seal();
    })();
    return { file, done };
  }

  private seal(): void {
    this.closed = true;
    this.fs.close(this.fd);
    this.fs.rename(this.tmp, this.path);
  }

  /** Abandons the file (a failed round): closes it unless done, and deletes the tmp file. */
  abort(): void {
    if (!this.closed) {
      this.closed = true;
      try {
        this.fs.close(this.fd);
      } catch {
        // already closed
      }
    }
    this.fs.unlink(this.tmp);
  }
}
