// The file-system seam every state-directory and output write goes through.
// It counts bytes, opens and seeks (a read or write that does not continue
// where the last one on that descriptor ended), wraps OS errors as DRUM_IO,
// and lets tests inject faults (a simulated crash, ENOSPC, EIO) before any
// mutating operation. Synchronous by design: drum's IO is large sequential
// blocks on the main thread while worker threads parse. Does not buffer.
// A read-only store's pinned files are kept by pins.ts.

import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { mkdirpSync } from './mkdirp.js';
import { ioError } from '../errors.js';
import { newIoCounters, type FaultHook, type FsOp, type IoCounters } from './io-counters.js';
import { PinnedFiles } from './pins.js';

export { newIoCounters, type FaultHook, type FsOp, type IoCounters };

export class DrumFs {
  readonly counters: IoCounters;
  faultHook: FaultHook | null;
  private readonly pos = new Map<number, number>();
  private readonly paths = new Map<number, string>();
  private readonly pins = new PinnedFiles();
  private readonly later = new Set<Promise<unknown>>();

  constructor(counters: IoCounters = newIoCounters(), faultHook: FaultHook | null = null) {
    this.counters = counters;
    this.faultHook = faultHook;
  }

  /** Runs the fault hook: an injected OS error (with an errno code) becomes DRUM_IO, anything else propagates as is. */
  private fault(op: FsOp, path: string): void {
    if (this.faultHook === null) return;
    try {
      this.faultHook(op, path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) throw ioError(`cannot ${op}`, e, path);
      throw e;
    }
  }

  /**
   * Opens `path` for reading now; later open(path, 'r') calls get this
   * descriptor (reads are positional, so readers can share it) and close()
   * leaves it open until unpinAll(). The file then stays readable after
   * another process deletes it (POSIX keeps an unlinked open file): a
   * read-only store pins the files of the manifest it read, so a writer's
   * next commit cannot pull them away. Throws DRUM_IO (e.g. ENOENT, EMFILE).
   */
  pin(path: string): void {
    const fd = this.pins.pin(path);
    if (fd !== null) this.paths.set(fd, path);
  }

  /** Closes the pinned descriptor of `path`, if it has one. */
  unpin(path: string): void {
    const fd = this.pins.unpin(path);
    if (fd === undefined) return;
    this.pos.delete(fd);
    this.paths.delete(fd);
  }

  /** Closes every pinned descriptor. */
  unpinAll(): void {
    for (const fd of this.pins.closeAll()) {
      this.pos.delete(fd);
      this.paths.delete(fd);
    }
  }

  /** Size in bytes of `path` (of the pinned file when pinned, even if since deleted). */
  size(path: string): number {
    const fd = this.pins.fdOf(path);
    if (fd !== undefined) return this.sizeOf(fd, path);
    try {
      return fs.statSync(path).size;
    } catch (e) {
      throw ioError('cannot stat', e, path);
    }
  }

  /** Size in bytes of the file open as `fd` (right even if its path has since been deleted or replaced). */
  sizeOf(fd: number, path = this.paths.get(fd)): number {
    try {
      return fs.fstatSync(fd).size;
    } catch (e) {
      throw ioError('cannot stat', e, path);
    }
  }

  /** Opens a file; flags as in fs.openSync. Counts as one open and one seek. */
  open(path: string, flags: string): number {
    const pin = flags === 'r' ? this.pins.fdOf(path) : undefined;
    if (pin !== undefined) {
      this.counters.fileOpens++;
      this.counters.seeks++;
      this.pos.set(pin, 0);
      return pin;
    }
    if (flags !== 'r') this.fault('open-write', path);
    try {
      const fd = fs.openSync(path, flags);
      this.counters.fileOpens++;
      this.counters.seeks++;
      this.pos.set(fd, flags.startsWith('a') ? -1 : 0);
      this.paths.set(fd, path);
      return fd;
    } catch (e) {
      throw ioError('cannot open', e, path);
    }
  }

  /** Reads at `position` (or at the current position when null). */
  read(fd: number, buf: Uint8Array, off: number, len: number, position: number | null): number {
    this.track(fd, position);
    let n: number;
    try {
      n = fs.readSync(fd, buf, off, len, position);
    } catch (e) {
      throw ioError('cannot read', e, this.paths.get(fd));
    }
    this.counters.bytesRead += n;
    this.advance(fd, position, n);
    return n;
  }

  /** Reads exactly len bytes or fewer only at end of file. */
  readFully(fd: number, buf: Uint8Array, off: number, len: number, position: number | null): number {
    let done = 0;
    while (done < len) {
      const n = this.read(fd, buf, off + done, len - done, position === null ? null : position + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  /** Writes all of buf[off, off+len) at `position` (or appends/continues when null). */
  write(fd: number, buf: Uint8Array, off: number, len: number, position: number | null = null): void {
    const path = this.paths.get(fd) ?? '?';
    this.fault('write', path);
    this.track(fd, position);
    let done = 0;
    try {
      while (done < len) {
        done += fs.writeSync(fd, buf, off + done, len - done, position === null ? null : position + done);
      }
    } catch (e) {
      throw ioError('cannot write', e, path);
    }
    this.counters.bytesWritten += len;
    this.advance(fd, position, len);
  }

  fsync(fd: number): void {
    const path = this.paths.get(fd) ?? '?';
    this.fault('fsync', path);
    try {
      fs.fsyncSync(fd);
      this.counters.fsyncs++;
    } catch (e) {
      throw ioError('cannot fsync', e, path);
    }
  }

  /**
   * fsync on libuv's thread pool, so several files' fsyncs overlap (a merge
   * makes each bucket file durable before the manifest names it). The fault
   * hook runs first, on the caller's thread, as for fsync().
   */
  async fsyncAsync(fd: number): Promise<void> {
    const path = this.paths.get(fd) ?? '?';
    this.fault('fsync', path);
    try {
      await new Promise<void>((resolve, reject) => fs.fsync(fd, (e) => (e ? reject(e) : resolve())));
      this.counters.fsyncs++;
    } catch (e) {
      throw ioError('cannot fsync', e, path);
    }
  }

  truncate(fd: number, len: number): void {
    const path = this.paths.get(fd) ?? '?';
    this.fault('truncate', path);
    try {
      fs.ftruncateSync(fd, len);
    } catch (e) {
      throw ioError('cannot truncate', e, path);
    }
  }

  close(fd: number): void {
    if (this.pins.has(fd)) return; // stays open until unpinAll()
    this.pos.delete(fd);
    const path = this.paths.get(fd);
    this.paths.delete(fd);
    try {
      fs.closeSync(fd);
    } catch (e) {
      throw ioError('cannot close', e, path);
    }
  }

  rename(from: string, to: string): void {
    this.fault('rename', to);
    try {
      fs.renameSync(from, to);
    } catch (e) {
      throw ioError('cannot rename', e, from);
    }
  }

  unlink(path: string, missingOk = true): void {
    this.fault('unlink', path);
    try {
      fs.unlinkSync(path);
    } catch (e) {
      if (missingOk && (e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw ioError('cannot delete', e, path);
    }
  }

  /**
   * Deletes a file nobody needs any more (one a commit replaced) on the
   * thread pool, off the caller's clock: an error only leaves garbage, which
   * the next writer's open collects. The fault hook runs now, on the
   * caller's thread. settle() waits for every such delete.
   */
  unlinkLater(path: string): void {
    this.fault('unlink', path);
    const p = fs.promises.unlink(path).catch(() => undefined);
    this.later.add(p);
    void p.finally(() => this.later.delete(p));
  }

  /** Waits for the deletes unlinkLater started. */
  async settle(): Promise<void> {
    await Promise.all([...this.later]);
  }

  /** Writes `data` as the whole of the file at `path` (created or truncated; not fsynced): a work file, a small output. */
  writeFile(path: string, data: string | Uint8Array): void {
    const buf = typeof data === 'string' ? Buffer.from(data) : data;
    const fd = this.open(path, 'w');
    try {
      this.write(fd, buf, 0, buf.length, 0);
    } finally {
      this.close(fd);
    }
  }

  /**
   * mkdir -p; returns the directories it made, outermost first. `durable`:
   * fsyncs the directory holding each, deepest first, so their names survive
   * a power loss (files later created in `path` still need fsyncDir).
   */
  mkdirp(path: string, durable = false): string[] {
    this.fault('mkdir', path);
    let made: string[] = [];
    try {
      made = mkdirpSync(path);
    } catch (e) {
      throw ioError('cannot create directory', e, path);
    }
    if (durable) for (let i = made.length - 1; i >= 0; i--) this.fsyncDir(dirname(made[i]!));
    return made;
  }

  /** fsyncs a directory so a rename or create inside it is durable. */
  fsyncDir(path: string): void {
    this.fault('fsync', path);
    let fd: number;
    try {
      fd = fs.openSync(path, 'r');
    } catch (e) {
      throw ioError('cannot open directory', e, path);
    }
    try {
      fs.fsyncSync(fd);
      this.counters.fsyncs++;
    } catch (e) {
      // Some file systems refuse fsync on directories (EINVAL); the rename is still atomic.
      if ((e as NodeJS.ErrnoException).code !== 'EINVAL') throw ioError('cannot fsync directory', e, path);
    } finally {
      fs.closeSync(fd);
    }
  }

  private track(fd: number, position: number | null): void {
    if (position === null) return;
    const at = this.pos.get(fd);
    if (at !== position) this.counters.seeks++;
  }

  private advance(fd: number, position: number | null, n: number): void {
    const at = position ?? this.pos.get(fd) ?? 0;
    if (at >= 0) this.pos.set(fd, at + n);
  }
}
