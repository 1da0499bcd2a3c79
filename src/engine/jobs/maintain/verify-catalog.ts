// The run catalog's part of `drum verify`: reads the whole catalog (runs,
// inputs, host table and its file under hosts/) read-only and turns what LevelDB reports, or a
// rebuild `drum repair --catalog` did not finish (rebuild-marker.ts), into one
// verify problem, or none. Does not check the URL store (Drum.verify does)
// and writes nothing.
// REQUIRES: stateDir is a drum state directory (its MANIFEST was read).

import * as fs from 'node:fs';
import { join } from 'node:path';
import { isDrumError } from '../../../errors.js';
import { Catalog } from '../../../catalog/catalog.js';
import { UNFINISHED_REBUILD, unfinishedRebuild } from '../../../catalog/rebuild-marker.js';
import type { VerifyProblem } from '../../api.js';

/**
 * Reads the whole run catalog (runs, inputs, host table) read-only (from a
 * copy when the catalog is locked or on read-only media). A catalog that
 * LevelDB reports corrupt, or that is missing although runs were committed,
 * is a problem naming the catalog directory; one that cannot be opened or
 * copied for an OS reason (DRUM_IO) is returned as DRUM_IO: not checked.
 * `writerLockHeld`: the caller holds the writer lock (`drum repair
 * --catalog` checks before it rebuilds), so damage is reported at once.
 */
export async function checkCatalog(stateDir: string, expected: boolean, writerLockHeld = false): Promise<VerifyProblem | null> {
  const dir = join(stateDir, 'catalog');
  if (unfinishedRebuild(stateDir) !== null) {
    return { file: dir, code: 'DRUM_CORRUPT_FILE', message: `${UNFINISHED_REBUILD}: the host counts are partial; run it again` };
  }
  if (!fs.existsSync(join(dir, 'CURRENT'))) {
    return expected
      ? { file: dir, code: 'DRUM_CORRUPT_FILE', message: 'the run catalog is missing (no CURRENT) although runs were committed' }
      : null;
  }
  let cat: Catalog | null = null;
  try {
    cat = await Catalog.open(stateDir, { readOnly: true, writerLockHeld });
    await cat.listRuns(1_000_000);
    await cat.topHosts(1);
    return null;
  } catch (e) {
    if (!isDrumError(e)) throw e;
    // The OS refused access (read-only media, permissions, descriptors, a temp dir that takes no copy): not checked.
    const refused = e.code === 'DRUM_IO' && /Read-only file system|Permission denied|Operation not permitted|Too many open files|No space left|E(ROFS|ACCES|PERM|MFILE|NFILE|NOSPC)\b|^cannot copy the run catalog/.test(e.message);
    // A damaged host table file is named itself; LevelDB's damage names the catalog directory.
    const file = e.code === 'DRUM_CORRUPT_FILE' && e.file !== undefined && e.file.includes(join(stateDir, 'hosts')) ? e.file : dir;
    return { file, code: refused ? 'DRUM_IO' : e.code === 'DRUM_IO' ? 'DRUM_CORRUPT_FILE' : e.code, message: e.message };
  } finally {
    await cat?.close().catch(() => undefined);
  }
}
