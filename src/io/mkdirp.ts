// mkdir -p for drum's own directories (state, catalog, outputs), and its
// probe: whether a directory could be made, leaving nothing made. Does not
// go through DrumFs's fault seam (DrumFs.mkdirp calls it after its hook).
// REQUIRES: nothing.

import * as fs from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';

/**
 * mkdir -p without Node's recursive mode, which loops for ever where a
 * parent exists but a child cannot be made with ENOENT (a path under
 * /proc): makes each missing directory from the deepest existing one down,
 * and throws the first error (an errno error, as fs does). Returns the
 * directories it made, outermost first (absolute paths; none when `path`
 * existed): each new name is durable only once its parent is fsynced.
 */
export function mkdirpSync(path: string): string[] {
  const made: string[] = [];
  makeMissing(path, made);
  return made;
}

/**
 * Throws what mkdirpSync(path) would throw (a path under /proc, a file on
 * the way, no permission), without leaving anything made: the missing
 * directories are made and removed again, deepest first.
 */
export function probeMkdirp(path: string): void {
  const made: string[] = [];
  try {
    makeMissing(path, made);
  } finally {
    for (let i = made.length - 1; i >= 0; i--) {
      try {
        fs.rmdirSync(made[i]!);
      } catch {
        // something else put a file there meanwhile: it stays
      }
    }
  }
}

/** mkdirpSync's work; appends each directory it made to `made`, outermost first. */
function makeMissing(path: string, made: string[]): void {
  const missing: string[] = [];
  for (let p = resolvePath(path); !fs.existsSync(p); p = dirname(p)) {
    missing.push(p);
    if (dirname(p) === p) break;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      fs.mkdirSync(missing[i]!);
      made.push(missing[i]!);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  if (!fs.statSync(path).isDirectory()) throw Object.assign(new Error(`not a directory: ${path}`), { code: 'ENOTDIR' });
}
