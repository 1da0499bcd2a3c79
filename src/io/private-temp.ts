// Private temporary directories of read-only jobs (a `drum check`'s spills,
// aux log and overlay key files): made under the system temp directory with
// the owner's pid in the name (`drum-check-<pid>-XXXXXX`), removed by their
// owner on close and on signals, and swept by the next read-only open once
// their owner process is gone. Does not decide what goes into them.
// REQUIRES: the directories are private to drum (never a state directory):
// the sweep deletes any `<prefix><pid>-*` whose pid no longer runs.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { ioError, type DrumError } from '../errors.js';

export const CHECK_TEMP_PREFIX = 'drum-check-';

/** A new private directory `<root>/<prefix><pid>-XXXXXX`, owned by this process. */
export function makePrivateTemp(prefix = CHECK_TEMP_PREFIX, root = tmpdir()): string {
  return fs.mkdtempSync(join(root, `${prefix}${process.pid}-`));
}

/**
 * The private work directory of a read-only open: directories of owners that
 * are gone are swept first, then one is made. When the temp directory refuses
 * it (read-only, full), `dir` is null and `fault` says why (DRUM_IO): the open
 * still reads, and only a check, which spills, fails.
 */
export function readOnlyWorkDir(root = tmpdir()): { dir: string | null; fault: DrumError | null } {
  sweepStaleTemps(CHECK_TEMP_PREFIX, root);
  try {
    return { dir: makePrivateTemp(CHECK_TEMP_PREFIX, root), fault: null };
  } catch (e) {
    return { dir: null, fault: ioError('cannot make a private work directory for a check in', e, root) };
  }
}

/** True while process `pid` exists (EPERM: it exists, owned by someone else). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The owner pid of a `<prefix><pid>-XXXXXX` name, or null for another name. */
export function ownerOf(name: string, prefix = CHECK_TEMP_PREFIX): number | null {
  if (!name.startsWith(prefix)) return null;
  const m = /^(\d+)-[^-]+$/.exec(name.slice(prefix.length));
  return m ? Number(m[1]) : null;
}

/**
 * Removes the directories of owners that are gone (a check killed by a signal
 * it could not catch, or a power loss). Returns the names removed. Never
 * throws: a directory it cannot remove stays for the next sweep.
 */
export function sweepStaleTemps(prefix = CHECK_TEMP_PREFIX, root = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = ownerOf(name, prefix);
    if (pid === null || pid === process.pid || alive(pid)) continue;
    try {
      fs.rmSync(join(root, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // not ours to fight over (permissions); left for its owner or the operator
    }
  }
  return removed;
}

/** Removes this process's own directories (on a signal, before exiting). Never throws. */
export function removeOwnTemps(prefix = CHECK_TEMP_PREFIX, root = tmpdir()): void {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return;
  }
  for (const name of names) {
    if (ownerOf(name, prefix) !== process.pid) continue;
    try {
      fs.rmSync(join(root, name), { recursive: true, force: true });
    } catch {
      // swept by the next check once this process is gone
    }
  }
}
