// Copies a live LevelDB directory (minus its LOCK) into a temp directory, so
// a read-only command (`drum runs`, `drum hosts`) reads the catalog without
// opening it in place, whether or not an ingest holds it (LevelDB locks and
// rewrites a database it opens). LevelDB's table files are immutable and its logs are
// append-only, so a copy is a consistent past state unless a compaction
// deletes a file mid-copy; the caller (catalog.ts) then copies and opens
// again. Does not open the copy; the caller removes the temp directory.

import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Copies (and opens, in the caller) tried this many times before the error is reported. */
export const SNAPSHOT_ATTEMPTS = 5;

/**
 * One copy of `dir` into a new temp directory: CURRENT and the MANIFEST it
 * names first, then the listing of the rest, so every table that manifest
 * names was there when the listing was taken unless a compaction deleted it
 * since (then the copy, or the open of the copy, fails, and the caller tries
 * again). Throws the OS error; removes its temp directory on failure.
 */
export function snapshotOnce(dir: string): string {
  const temp = mkdtempSync(join(tmpdir(), 'drum-catalog-'));
  try {
    copyFileSync(join(dir, 'CURRENT'), join(temp, 'CURRENT'));
    const manifest = readFileSync(join(temp, 'CURRENT'), 'utf8').trim();
    try {
      copyFileSync(join(dir, manifest), join(temp, manifest));
    } catch (e) {
      // A CURRENT that names no manifest is damage, which opening the copy reports; one rewritten meanwhile is a race.
      if (readFileSync(join(dir, 'CURRENT'), 'utf8').trim() !== manifest) throw e;
    }
    for (const n of readdirSync(dir)) {
      if (n === 'LOCK' || n === 'LOG' || n === 'LOG.old' || n === 'CURRENT' || n.startsWith('MANIFEST-')) continue;
      copyFileSync(join(dir, n), join(temp, n));
    }
    return temp;
  } catch (e) {
    rmSync(temp, { recursive: true, force: true });
    throw e;
  }
}

/** A pause between attempts, longer each time (a compaction takes a moment). */
export function snapshotPause(attempt: number): Promise<void> {
  return new Promise((r) => setTimeout(r, 20 * (attempt + 1)));
}
