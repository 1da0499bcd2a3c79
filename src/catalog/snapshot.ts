// Copies a live LevelDB directory (minus its LOCK) into a temp directory, so
// a read-only command (`drum runs`, `drum hosts`) reads the catalog without
// opening it in place, whether or not an ingest holds it (LevelDB locks and
// rewrites a database it opens). LevelDB's table files are immutable and its logs are
// append-only, so a copy is a consistent past state unless a compaction
// deletes a file mid-copy; then we retry. Does not open the copy; the caller
// removes the temp directory.

import { copyFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { levelError } from './level-errors.js';

const ATTEMPTS = 5;

export async function snapshotCopy(dir: string): Promise<string> {
  let last: unknown;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    let temp: string | null = null;
    try {
      // A temp directory that refuses it (read-only, full) is reported like any other OS error of the copy.
      temp = mkdtempSync(join(tmpdir(), 'drum-catalog-'));
      // CURRENT and MANIFEST first: files they name are then older than the listing.
      const names = readdirSync(dir).filter((n) => n !== 'LOCK' && n !== 'LOG' && n !== 'LOG.old');
      names.sort((a, b) => rank(a) - rank(b));
      for (const n of names) copyFileSync(join(dir, n), join(temp, n));
      return temp;
    } catch (e) {
      last = e;
      if (temp !== null) rmSync(temp, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 20 * (attempt + 1)));
    }
  }
  throw levelError('cannot copy the run catalog', last, dir);
}

function rank(name: string): number {
  if (name === 'CURRENT') return 0;
  if (name.startsWith('MANIFEST-')) return 1;
  return 2;
}
