// Writes a run's new URLs to unique-00001.txt, unique-00002.txt, ... in the
// output directory, one per line, rotating every `urlsPerFile` URLs, through
// one large buffer. Exposes a commit point (file, bytes, urls) that the
// engine records in the manifest after sync(); reopening at a commit point
// truncates the current file to it and deletes later files, so a resumed run
// writes byte-identical files. Durability: each file's writeback starts as
// it grows (io/write-behind.ts), a full file's last fsync runs on the
// thread pool, and sync() waits for all of them, fsyncs the current file and,
// after a file was created, the directory. Does not make the directory, nor
// its own name durable (its maker does: DrumFs.mkdirp with `durable`). Does
// not decide which URLs are new.
// The same writer, with a prefix and extension of its own, writes the
// revisit-NNNNN.txt files and the binary graph-NNNNN.bin files (fixed-size
// records through writeRecord, counted like URLs).

import * as fs from 'node:fs';
import { join } from 'node:path';
import type { DrumFs } from '../io/fs.js';
import { RangeCopier } from '../io/range-copy.js';
import { WriteBehind } from '../io/write-behind.js';

export interface UniquePoint {
  file: number;
  bytes: number;
  urls: number;
  urlsPerFile: number;
}

export function uniqueFileName(i: number, prefix = 'unique', ext = 'txt'): string {
  return `${prefix}-${String(i).padStart(5, '0')}.${ext}`;
}

const NL = 0x0a;
/**
 * Full files whose last fsync may run on the thread pool at once. Each holds
 * its descriptor until its fsync's callback, which runs only once the event
 * loop turns: a round that dispatches its new URLs on this thread, in one
 * loop, would otherwise hold a descriptor for every file it fills.
 */
const MAX_ROTATING = 4;

export class UniqueWriter {
  private fd = -1;
  /** Starts the current file's writeback as it grows. */
  private wb: WriteBehind;
  /** Full files' fsyncs under way (each closes its file when done); sync() waits for them. */
  private rotated: Promise<void>[] = [];
  /** Full files whose fsync runs on the thread pool now (each holds its descriptor until then). */
  private rotating = 0;
  private readonly buf: Buffer;
  private readonly copier = new RangeCopier();
  private used = 0;
  private file: number;
  private bytes: number; // bytes of the current file, written or buffered
  private urls: number; // URLs in the current file
  /** URLs written through this writer since it was opened. */
  written = 0;
  /** Files created since the last sync: their names become durable with an fsync of the directory. */
  private created = false;
  /** What made a sync fail: every later sync throws it too. */
  private syncFailed: unknown = null;

  constructor(
    private readonly dfs: DrumFs,
    readonly outDir: string,
    at: UniquePoint,
    private readonly doFsync: boolean,
    bufferBytes = 1 << 20,
    /** File names: `<prefix>-NNNNN.<ext>` (unique, revisit for the URLs due again, graph for the link graph's pairs). */
    private readonly prefix = 'unique',
    private readonly ext = 'txt',
  ) {
    this.buf = Buffer.allocUnsafe(Math.max(bufferBytes, 1 << 17));
    this.file = at.file;
    this.bytes = at.bytes;
    this.urls = at.urls;
    this.urlsPerFile = at.urlsPerFile;
    // Drop whatever an interrupted attempt wrote past the commit point.
    dropLaterFiles(dfs, outDir, at.file, prefix, ext);
    const first = join(outDir, uniqueFileName(this.file, prefix, ext));
    this.created = !fs.existsSync(first);
    this.fd = dfs.open(first, this.created ? 'w' : 'r+');
    this.wb = new WriteBehind(dfs, this.fd, doFsync);
    try {
      dfs.truncate(this.fd, at.bytes);
    } catch (e) {
      // Nobody else can close it: the writer is never handed out. The truncate's error is the one to report.
      try {
        this.wb.close();
      } catch {
        // see above
      }
      throw e;
    }
  }

  readonly urlsPerFile: number;

  /** Appends one URL (bytes src[start,end)) and a newline. */
  write(src: Uint8Array, start: number, end: number): void {
    if (this.urls === this.urlsPerFile) this.rotate();
    const len = end - start + 1;
    if (this.used + len > this.buf.length) this.flush(); // URLs are <= 64 KiB, the buffer >= 128 KiB
    const at = this.copier.copy(src, start, end, this.buf, this.used);
    this.buf[at] = NL;
    this.used = at + 1;
    this.urls++;
    this.written++;
  }

  /** Appends one record src[start, end) as it is (no newline), counted as one item of the file. */
  writeRecord(src: Uint8Array, start: number, end: number): void {
    if (this.urls === this.urlsPerFile) this.rotate();
    if (this.used + end - start > this.buf.length) this.flush();
    this.used = this.copier.copy(src, start, end, this.buf, this.used);
    this.urls++;
    this.written++;
  }

  /** URLs the current file still takes before it rotates (a full file rotates first, so 1..urlsPerFile). */
  room(): number {
    return this.urls === this.urlsPerFile ? this.urlsPerFile : this.urlsPerFile - this.urls;
  }

  /**
   * Appends n whole lines ("URL\n" each) held in bytes[0, len), written as
   * they are. REQUIRES: n <= room() (a block never spans a rotation).
   */
  writeLines(bytes: Uint8Array, len: number, n: number): void {
    if (this.urls === this.urlsPerFile) this.rotate();
    if (this.urls + n > this.urlsPerFile) throw new RangeError(`writeLines: ${n} URLs do not fit the ${this.urlsPerFile - this.urls} left in this file`);
    this.flush();
    this.dfs.write(this.fd, bytes, 0, len, this.bytes);
    this.wb.wrote(len);
    this.bytes += len;
    this.urls += n;
    this.written += n;
  }

  private flush(): void {
    if (this.used === 0) return;
    this.dfs.write(this.fd, this.buf, 0, this.used, this.bytes);
    this.wb.wrote(this.used);
    this.bytes += this.used;
    this.used = 0;
  }

  /** Starts the full file's last fsync (on the thread pool while few are under way) and opens the next file. */
  private rotate(): void {
    this.flush();
    if (this.doFsync && this.rotating < MAX_ROTATING) this.rotateBehind();
    else this.rotateHere();
    this.file++;
    this.bytes = 0;
    this.urls = 0;
    this.fd = this.dfs.open(join(this.outDir, uniqueFileName(this.file, this.prefix, this.ext)), 'w');
    this.created = true;
    this.wb = new WriteBehind(this.dfs, this.fd, this.doFsync);
  }

  /** The full file's last fsync on the thread pool; the file is closed when it is done. */
  private rotateBehind(): void {
    const { fd, wb } = this;
    this.fd = -1;
    this.rotating++;
    const done = (async () => {
      await wb.settle();
      await this.dfs.fsyncAsync(fd);
    })();
    // Never throws: a rejection here would be nobody's, and Node ends the process on one.
    const release = (): void => {
      this.rotating--;
      try {
        wb.close();
      } catch {
        // its fsync is over (and sync() reports a failed one): a close error loses nothing it made durable
      }
    };
    void done.then(release, release);
    done.catch(() => undefined); // thrown by sync(), or dropped by an abandoned run
    this.rotated.push(done);
  }

  /**
   * Without fsync, or with MAX_ROTATING fsyncs under way: the full file is
   * fsynced and closed here, as before write-behind (the close waits only
   * for a write-behind fsync still running on it, whose failure sync() throws).
   */
  private rotateHere(): void {
    if (this.doFsync) this.dfs.fsync(this.fd); // throws: the file stays the current one, and close() releases it
    const wb = this.wb;
    this.fd = -1;
    if (this.doFsync) {
      const settled = wb.settle();
      settled.catch(() => undefined); // thrown by sync(), or dropped by an abandoned run
      this.rotated.push(settled);
    }
    wb.close();
  }

  /** Flushes and fsyncs every file written since the last sync (and the directory, after a file was created); returns the commit point to record in the manifest. */
  async sync(): Promise<UniquePoint> {
    // A failed sync stays failed: a later fsync of the same file may report success for bytes the first one lost.
    if (this.syncFailed !== null) throw this.syncFailed;
    try {
      this.flush();
      const rotated = this.rotated.splice(0);
      const results = await Promise.allSettled(rotated);
      const failed = results.find((x) => x.status === 'rejected');
      if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
      await this.wb.settle();
      if (this.doFsync) {
        this.dfs.fsync(this.fd);
        // The new files' names (the directory's own was made durable by whoever made it).
        if (this.created) this.dfs.fsyncDir(this.outDir);
      }
    } catch (e) {
      this.syncFailed = e;
      throw e;
    }
    this.created = false;
    return { file: this.file, bytes: this.bytes, urls: this.urls, urlsPerFile: this.urlsPerFile };
  }

  /** Names of the files written so far, in order. */
  fileNames(): string[] {
    const out: string[] = [];
    for (let i = 1; i <= this.file; i++) out.push(uniqueFileName(i, this.prefix, this.ext));
    return out;
  }

  /** Flushes and closes; the descriptor is released even when the flush fails (a full disk), and the error thrown. */
  close(): void {
    if (this.fd < 0) return;
    try {
      this.flush();
    } finally {
      this.fd = -1;
      this.wb.close();
    }
  }
}

function dropLaterFiles(dfs: DrumFs, outDir: string, file: number, prefix = 'unique', ext = 'txt'): void {
  for (const f of listUniqueFiles(outDir, prefix, ext)) {
    if (f.index > file) dfs.unlink(join(outDir, f.name));
  }
}

/**
 * Cuts a run's unique files back to a commit point without reopening them for
 * writing: files past it go and the current one is truncated to it, so what
 * stays is exactly the URLs the store committed (an abandoned run's outputs).
 * A file already shorter, or missing, is left as it is.
 */
export function cutToCommitPoint(dfs: DrumFs, outDir: string, at: { file: number; bytes: number }, prefix = 'unique', ext = 'txt'): void {
  dropLaterFiles(dfs, outDir, at.file, prefix, ext);
  const path = join(outDir, uniqueFileName(at.file, prefix, ext));
  if (!fs.existsSync(path) || fs.statSync(path).size <= at.bytes) return;
  const fd = dfs.open(path, 'r+');
  try {
    dfs.truncate(fd, at.bytes);
  } finally {
    dfs.close(fd);
  }
}

export function listUniqueFiles(dir: string, prefix = 'unique', ext = 'txt'): { name: string; index: number }[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return [];
  }
  const out: { name: string; index: number }[] = [];
  for (const name of names) {
    const m = /^([a-z]+)-(\d{5,})\.([a-z]+)$/.exec(name);
    if (m && m[1] === prefix && m[3] === ext) out.push({ name, index: Number(m[2]) });
  }
  return out.sort((a, b) => a.index - b.index);
}
