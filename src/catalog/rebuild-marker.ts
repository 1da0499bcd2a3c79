// The marker of a run catalog rebuild in progress: `drum repair --catalog`
// writes `<state>/catalog.rebuilding` (tmp, fsync, rename) before it moves
// the old catalog aside, and removes it once the new catalog holds every
// run and its host counts, or at once when the old one could not be moved
// (nothing was rebuilt). A rebuild cut short (kill -9, power loss, a
// failure part-way) leaves a catalog with some runs' host counts and not
// others, which LevelDB reads as sound: the marker is how a writer's open
// and `drum verify` tell it from a finished one. Does not rebuild anything
// (repair.ts does) and does not decide what a refusal says to the user
// (session-open.ts and verify-catalog.ts do).
// REQUIRES: written and removed by the holder of the state directory's writer lock.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DrumFs } from '../io/fs.js';
import { replaceFile } from '../io/replace-file.js';

export const REBUILD_MARKER = 'catalog.rebuilding';

/** What writers and verify say of an unfinished rebuild. */
export const UNFINISHED_REBUILD = `a \`drum repair --catalog\` did not finish (${REBUILD_MARKER} is present)`;

/** Where the catalog the unfinished rebuild replaced was moved (as the marker says), or null when no rebuild is unfinished. */
export function unfinishedRebuild(stateDir: string): string | null {
  const path = join(stateDir, REBUILD_MARKER);
  if (!existsSync(path)) return null;
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

/** Marks a rebuild as started, durably, before anything of the old catalog moves. */
export function markRebuild(dfs: DrumFs, stateDir: string, movedTo: string, fsync: boolean): void {
  const bytes = Buffer.from(`${movedTo}\n`);
  replaceFile(dfs, join(stateDir, REBUILD_MARKER), (fd) => dfs.write(fd, bytes, 0, bytes.length, 0), { fsync, ...(fsync ? { fsyncDir: stateDir } : {}) });
}

/** Marks the rebuild finished: the new catalog is closed and whole. */
export function clearRebuild(dfs: DrumFs, stateDir: string, fsync: boolean): void {
  dfs.unlink(join(stateDir, REBUILD_MARKER));
  if (fsync) dfs.fsyncDir(stateDir);
}
