// Copies a live LevelDB directory (minus its LOCK) into a temp directory, so
// a read-only command (`drum runs`, `drum hosts`) reads the catalog without
// opening it in place, whether or not an ingest holds it (LevelDB locks and
// rewrites a database it opens). LevelDB's table files are immutable and its logs are
// append-only, so a copy is a consistent past state unless a compaction
// deletes a file mid-copy; then it copies and opens again (openReaderDb),
// unless no writer runs (then nothing can have changed it, and a copy that
// will not open is damage at once).
// Does not wrap the database in a Catalog (catalog.ts does, and removes the
// temp directory at close).

import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DrumError } from '../errors.js';
import { writerLockHeld } from '../store/lock.js';
import { levelError } from './level-errors.js';
import { openLevel, type Db } from './records.js';

/** Copies (and opens, in the caller) tried this many times before the error is reported. */
const SNAPSHOT_ATTEMPTS = 10;

/**
 * One copy of `dir` into a new temp directory: CURRENT and the MANIFEST it
 * names first, then the listing of the rest, so every table that manifest
 * names was there when the listing was taken unless a compaction deleted it
 * since (then the copy, or the open of the copy, fails, and the caller tries
 * again). LevelDB deletes a log only after the manifest says it is flushed,
 * and the copy's manifest may predate that: so every log listed before the
 * manifest was copied must be copied (else it throws). A table deleted since
 * the listing is left out: if the manifest names it, the open fails.
 * Throws the OS error; removes its temp directory on failure.
 */
function snapshotOnce(dir: string): { temp: string; mark: string } {
  const temp = mkdtempSync(join(tmpdir(), 'drum-catalog-'));
  try {
    const logsBefore = readdirSync(dir).filter((n) => n.endsWith('.log'));
    copyFileSync(join(dir, 'CURRENT'), join(temp, 'CURRENT'));
    const manifest = readFileSync(join(temp, 'CURRENT'), 'utf8').trim();
    try {
      copyFileSync(join(dir, manifest), join(temp, manifest));
    } catch (e) {
      // A CURRENT that names no manifest is damage, which opening the copy reports; one rewritten meanwhile is a race.
      if (readFileSync(join(dir, 'CURRENT'), 'utf8').trim() !== manifest) throw e;
    }
    const copied = new Set<string>();
    for (const n of readdirSync(dir)) {
      if (n === 'LOCK' || n === 'LOG' || n === 'LOG.old' || n === 'CURRENT' || n.startsWith('MANIFEST-')) continue;
      try {
        copyFileSync(join(dir, n), join(temp, n));
        copied.add(n);
      } catch (e) {
        // A table deleted since the listing: if the manifest names it, the open fails. A log: taken again
        // (its records may be ones the copied manifest has not seen flushed).
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || n.endsWith('.log')) throw e;
      }
    }
    // A log that went since the first listing may be one the copied manifest still needs (a flush finished
    // meanwhile): the copy would open without its records and without an error, so it is taken again.
    if (logsBefore.some((n) => !copied.has(n))) throw new Error('a flush of the catalog went by while it was copied');
    return { temp, mark: manifestMark(temp) };
  } catch (e) {
    rmSync(temp, { recursive: true, force: true });
    throw e;
  }
}

/** Which manifest CURRENT names and its length: it grows with every flush and compaction. */
function manifestMark(dir: string): string {
  try {
    const manifest = readFileSync(join(dir, 'CURRENT'), 'utf8').trim();
    return `${manifest}:${statSync(join(dir, manifest)).size}`;
  } catch {
    return 'unreadable';
  }
}

/** A pause between attempts, doubling each time (a compaction, or a burst of them, takes a moment). */
function snapshotPause(attempt: number): Promise<void> {
  // 20, 40, 80 ms … up to 1 s: about 4 s over the ten attempts, for a writer busy with a burst of commits.
  return new Promise((r) => setTimeout(r, Math.min(1000, 20 * 2 ** attempt)));
}

/**
 * A reader's database: a copy, opened (`temp`: its directory); copied and
 * opened again when a compaction pulled a file away meanwhile. When no
 * temporary directory takes the copy and no writer runs, the catalog is
 * opened in place (`temp` null), as drum did before it always copied
 * (LevelDB then rewrites its own log files). `ownLock`: the caller holds
 * the writer lock, so no writer runs but the caller, which is not writing.
 */
export async function openReaderDb(stateDir: string, dir: string, ownLock = false): Promise<{ db: Db; temp: string | null }> {
  const noWriter = (): boolean => ownLock || writerLockHeld(stateDir) === false;
  let last: DrumError | null = null;
  let noTemp = false;
  for (let attempt = 0; attempt < SNAPSHOT_ATTEMPTS && !noTemp; attempt++) {
    let temp: string;
    let mark: string;
    try {
      ({ temp, mark } = snapshotOnce(dir));
    } catch (e) {
      // The OS refused the copy (no temp directory, or a file a compaction pulled away): never damage.
      last = new DrumError('DRUM_IO', `cannot copy the run catalog: ${(e as Error).message}`, { cause: e, file: dir });
      noTemp = (e as NodeJS.ErrnoException).syscall === 'mkdtemp';
      // Under the caller's own writer lock no compaction can have raced the copy: trying again would fail again.
      if (!noTemp && ownLock) break;
      if (!noTemp) await snapshotPause(attempt);
      continue;
    }
    try {
      return { db: await openLevel(temp, false), temp };
    } catch (e) {
      rmSync(temp, { recursive: true, force: true });
      // Judged on the copy's paths (a file missing inside it is damage), reported on the catalog's; but a
      // catalog that flushed or compacted meanwhile may have pulled a table away: a race, never damage.
      const err = levelError('cannot open a copy of the run catalog', e, temp);
      const raced = manifestMark(dir) !== mark;
      last = new DrumError(raced ? 'DRUM_IO' : err.code, err.message.split(temp).join(dir) + (raced ? ' (the catalog changed while it was copied)' : ''), { cause: e, file: dir });
      // With no writer, nothing changes the catalog: a copy that did not race and will not open is damage, now.
      if (!raced && last.code === 'DRUM_CORRUPT_FILE' && noWriter()) throw last;
      await snapshotPause(attempt);
    }
  }
  if (noTemp && noWriter()) {
    try {
      return { db: await openLevel(dir, false), temp: null };
    } catch {
      // the copy's error says more
    }
  }
  throw last!;
}
