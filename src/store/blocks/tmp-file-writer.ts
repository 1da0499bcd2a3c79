// The life of a store file written the LevelDB way: opened as `<name>.tmp`,
// filled by a subclass (KeyWriter, ValueWriter), then its last bytes and
// header written (the subclass's written()), fsynced — now, or on the
// thread pool so a round's files become durable together — closed and
// renamed over the final name; or abandoned, its tmp deleted. Does not
// decide the bytes.
// REQUIRES: the subclass writes only through `fd`, and written() is called once.

import type { DrumFs } from '../../io/fs.js';

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

/**
 * A round's files finishing on the thread pool (finishLater): settled
 * together before the manifest names them, or abandoned together.
 */
export class FinishingFiles {
  private readonly files: { writer: TmpFileWriter; done: Promise<void> }[] = [];

  /** Finishes `writer` on the thread pool; returns what its file holds. */
  finish(writer: TmpFileWriter): WrittenFile {
    const f = writer.finishLater();
    f.done.catch(() => undefined); // settled by settle() or abandon()
    this.files.push({ writer, done: f.done });
    return f.file;
  }

  /** Every file durable and renamed; throws the first failure. */
  async settle(): Promise<void> {
    const results = await Promise.allSettled(this.files.map((f) => f.done));
    const failed = results.find((x) => x.status === 'rejected');
    if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
  }

  /** After a failure: waits for every file, then deletes the tmp of each not renamed (the caller unlinks renamed ones). Never throws. */
  async abandon(): Promise<void> {
    await Promise.allSettled(this.files.map((f) => f.done));
    for (const f of this.files) {
      try {
        f.writer.abort();
      } catch {
        // best effort: work files are removed at the next open anyway
      }
    }
  }
}
