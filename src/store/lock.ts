// The state directory's writer lock, held by the kernel: <state>/writer-lock/
// is a tiny LevelDB database opened only for its LOCK file, on which LevelDB
// takes an fcntl lock (and, within one process, an entry in its lock table).
// The kernel drops the lock when the holder exits or is killed, so a crashed
// writer never leaves a lock behind: no pid or host checks, no takeover.
// A held lock -> DRUM_LOCKED at once (never waits). Does not protect readers
// (they read the last committed manifest and need no lock); a reader asks
// whether a writer is live with writerLockHeld, which only reads the
// kernel's lock table and so can never make a writer fail.
// REQUIRES: the state directory exists and is writable; the caller takes the
// lock before it deletes or rewrites anything in the state directory.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { causeMessages, DrumError } from '../errors.js';

/** The lock's directory under the state directory (a LevelDB database holding no data). */
export const WRITER_LOCK_DIR = 'writer-lock';
/** Written by drum versions before the kernel-held lock; ignored, and removed by the next writer. */
export const LEGACY_LOCK_NAME = 'LOCK';

export interface WriterLock {
  /** Releases the lock; idempotent. The kernel releases it anyway when the process ends. */
  release(): Promise<void>;
}

/** Takes the writer lock of `stateDir` or throws DRUM_LOCKED (held) / DRUM_IO (cannot create it). */
export async function acquireLock(stateDir: string): Promise<WriterLock> {
  const dir = join(stateDir, WRITER_LOCK_DIR);
  // Small: the database never holds a key; only its LOCK file matters.
  const db = new Level<string, string>(dir, { createIfMissing: true, cacheSize: 0, writeBufferSize: 4096 });
  try {
    await db.open();
  } catch (e) {
    if (lockedError(e)) {
      throw new DrumError('DRUM_LOCKED', `${stateDir} is open for writing by another drum process or store (its writer lock ${dir} is held)`, { cause: e, file: dir });
    }
    throw new DrumError('DRUM_IO', `cannot take the writer lock ${dir}: ${causeMessages(e) || String(e)}`, { cause: e, file: dir });
  }
  removeLegacyLock(stateDir);
  let released: Promise<void> | null = null;
  return {
    release: () => (released ??= db.close().catch(() => undefined)),
  };
}

/**
 * Whether a live process holds `stateDir`'s writer lock, read from the
 * kernel's table of file locks (/proc/locks) without taking it: true or
 * false, or null where that table cannot be read (not Linux). A state with
 * no lock file has no writer.
 */
export function writerLockHeld(stateDir: string, locksTable = '/proc/locks'): boolean | null {
  let st: fs.BigIntStats;
  try {
    st = fs.statSync(join(stateDir, WRITER_LOCK_DIR, 'LOCK'), { bigint: true });
  } catch {
    return false;
  }
  let table: string;
  try {
    table = fs.readFileSync(locksTable, 'utf8');
  } catch {
    return null;
  }
  // Lines read "1: POSIX  ADVISORY  WRITE 4735 fe:00:2195524 0 EOF": major:minor in hex, then the inode.
  const dev = st.dev;
  const major = Number(((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn));
  const minor = Number((dev & 0xffn) | ((dev >> 12n) & ~0xffn));
  for (const m of table.matchAll(/ ([0-9a-f]+):([0-9a-f]+):(\d+) /g)) {
    if (BigInt(m[3]!) === st.ino && parseInt(m[1]!, 16) === major && parseInt(m[2]!, 16) === minor) return true;
  }
  return false;
}

function lockedError(e: unknown): boolean {
  for (let cur = e as { code?: unknown; cause?: unknown } | undefined, depth = 0; cur && depth < 4; cur = cur.cause as typeof cur, depth++) {
    if (cur.code === 'LEVEL_LOCKED') return true;
  }
  return false;
}

/** An old pid-file LOCK means nothing now (its writer, if alive, would use the same kernel lock). */
function removeLegacyLock(stateDir: string): void {
  try {
    if (fs.lstatSync(join(stateDir, LEGACY_LOCK_NAME)).isFile()) fs.unlinkSync(join(stateDir, LEGACY_LOCK_NAME));
  } catch {
    // absent, or not ours to remove: harmless either way
  }
}
