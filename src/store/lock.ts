// The state directory's writer lock: LOCK created exclusively (O_EXCL) and
// holding "pid hostname startedAt". A lock whose process is gone on this
// host (kill -9) is stale and taken over. A live holder -> DRUM_LOCKED.
// Does not protect readers (they read the last committed manifest).

import * as fs from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { DrumError, ioError } from '../errors.js';

export const LOCK_NAME = 'LOCK';

export interface LockInfo {
  pid: number;
  host: string;
  startedAt: string;
}

function alive(pid: number): boolean {
  if (pid === 0) return false;
  if (pid < 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function readLock(stateDir: string): LockInfo | null {
  try {
    const file = join(stateDir, LOCK_NAME);
    const [pid, host, startedAt] = fs.readFileSync(file, 'utf8').trim().split(' ');
    const n = Number(pid);
    if (!Number.isInteger(n) || n <= 0) {
      // Being written right now, or left empty by a crash: only stale once it is old.
      const ageMs = Date.now() - fs.statSync(file).mtimeMs;
      return { pid: ageMs > 10_000 ? 0 : -1, host: hostname(), startedAt: '' };
    }
    return { pid: n, host: host ?? '', startedAt: startedAt ?? '' };
  } catch {
    return null;
  }
}

/** Takes the lock or throws DRUM_LOCKED; returns a release function. */
export function acquireLock(stateDir: string): () => void {
  const file = join(stateDir, LOCK_NAME);
  const me = `${process.pid} ${hostname()} ${new Date().toISOString()}\n`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx');
      fs.writeSync(fd, me);
      fs.closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try {
          if (readLock(stateDir)?.pid === process.pid) fs.unlinkSync(file);
        } catch {
          // best effort: a stale lock is detected next time
        }
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('cannot create lock', e, file);
    }
    const held = readLock(stateDir);
    if (held !== null && held.pid !== process.pid && (held.host !== hostname() || alive(held.pid))) {
      throw new DrumError('DRUM_LOCKED', `${stateDir} is locked by process ${held.pid} on ${held.host} since ${held.startedAt}`, { file });
    }
    if (held !== null && held.pid === process.pid) {
      throw new DrumError('DRUM_LOCKED', `${stateDir} is already open in this process`, { file });
    }
    // Stale (holder gone) or unreadable: remove and retry.
    try {
      fs.unlinkSync(file);
    } catch {
      // raced with another taker; retry
    }
  }
  throw new DrumError('DRUM_LOCKED', `${stateDir}: could not take the lock`, { file });
}
