// The files a read-only store holds open so a writer cannot pull them away:
// one read-only descriptor per pinned path, kept until unpin() or closeAll(). POSIX
// keeps an unlinked open file readable, so a reader of one manifest reads
// that manifest's files even after a writer's next commit deletes them.
// Does not count IO or track positions (DrumFs does, and asks here whether
// a path or descriptor is pinned).

import * as fs from 'node:fs';
import { ioError } from '../errors.js';

export class PinnedFiles {
  private readonly byPath = new Map<string, number>();
  private readonly fds = new Set<number>();

  /** Opens `path` for reading and keeps it; null when it was pinned already. Throws DRUM_IO (e.g. ENOENT, EMFILE). */
  pin(path: string): number | null {
    if (this.byPath.has(path)) return null;
    let fd: number;
    try {
      fd = fs.openSync(path, 'r');
    } catch (e) {
      throw ioError('cannot open', e, path);
    }
    this.byPath.set(path, fd);
    this.fds.add(fd);
    return fd;
  }

  /** The pinned descriptor of `path`, if any. */
  fdOf(path: string): number | undefined {
    return this.byPath.get(path);
  }

  has(fd: number): boolean {
    return this.fds.has(fd);
  }

  /** Closes the pinned descriptor of `path` and returns it; undefined when `path` is not pinned. */
  unpin(path: string): number | undefined {
    const fd = this.byPath.get(path);
    if (fd === undefined) return undefined;
    this.byPath.delete(path);
    this.fds.delete(fd);
    try {
      fs.closeSync(fd);
    } catch {
      // read-only descriptor: nothing to lose
    }
    return fd;
  }

  /** Closes every pinned descriptor and returns them (read-only: a failed close loses nothing). */
  closeAll(): number[] {
    const fds = [...this.fds];
    for (const fd of fds) {
      try {
        fs.closeSync(fd);
      } catch {
        // read-only descriptors: nothing to lose
      }
    }
    this.byPath.clear();
    this.fds.clear();
    return fds;
  }
}
