// Replaces a file the LevelDB way through DrumFs: write `path.tmp`, fsync it,
// close, rename it over `path`, fsync the directory. Never deletes the old
// file first, so a crash leaves the old file or the new one, whole. Used for
// the manifest, report.json, the saved caches and the Bloom file. A cache
// (`cache: true`) is the one exception: its old file is deleted after the
// new one is written, just before the rename. Does not decide what to write
// or whether to fsync (callers pass their options).

import { isDrumError } from '../errors.js';
import type { DrumFs } from './fs.js';

export interface ReplaceOptions {
  /** fsync the tmp file before the rename. Default false. */
  fsync?: boolean;
  /** fsync this directory after the rename (the one holding `path`). */
  fsyncDir?: string;
  /**
   * `path` is a cache, which a crash may lose: delete the old file just
   * before the rename. Renaming over an existing file makes ext4
   * (auto_da_alloc) write the new file's data before the rename returns:
   * 13–16 ms for the 8 MiB memo.cache in every process, against under 1 ms
   * for the delete. A crash between the two leaves no cache (the next run
   * starts cold); a failed write still keeps the old one. Default false.
   */
  cache?: boolean;
}

/**
 * `write(fd)` fills `path.tmp`; then it is fsynced (`fsync`), closed and
 * renamed over `path`, and the directory fsynced (`fsyncDir`). After an IO
 * error (DRUM_IO) the tmp file is removed, best effort; after anything else
 * (a simulated crash) it is left, as a crash would leave it.
 */
export function replaceFile(dfs: DrumFs, path: string, write: (fd: number) => void, o: ReplaceOptions = {}): void {
  const tmp = `${path}.tmp`;
  const fd = dfs.open(tmp, 'w');
  try {
    write(fd);
    if (o.fsync === true) dfs.fsync(fd);
  } catch (e) {
    try {
      dfs.close(fd);
    } catch {
      // the descriptor is gone: nothing more to do
    }
    removeAfter(dfs, e, tmp);
    throw e;
  }
  dfs.close(fd);
  try {
    if (o.cache === true) dfs.unlink(path);
    dfs.rename(tmp, path);
  } catch (e) {
    removeAfter(dfs, e, tmp);
    throw e;
  }
  if (o.fsyncDir !== undefined) dfs.fsyncDir(o.fsyncDir);
}

/** Deletes `tmp` after an IO error only (a leftover is overwritten next time). */
function removeAfter(dfs: DrumFs, cause: unknown, tmp: string): void {
  if (!isDrumError(cause, 'DRUM_IO')) return;
  try {
    dfs.unlink(tmp);
  } catch {
    // a leftover tmp file is overwritten next time
  }
}
