// Test helper: the files of a state directory with their sizes and mtimes,
// for "nothing changed" checks. The LevelDB catalog is left out (merely
// opening it rewrites its log, so tests compare it by content), and so is
// writer-lock/, a LevelDB holding no data that every writer opens for its
// lock. Test-only; asserts nothing.

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file and directory under `dir` but catalog/ and writer-lock/, sorted, a file with its size and mtime. */
export function stateFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => !['catalog', 'writer-lock'].some((d) => f === d || f.startsWith(`${d}/`)))
    .sort()
    .map((f) => {
      const s = statSync(join(dir, f));
      return s.isDirectory() ? f : `${f} ${s.size} ${s.mtimeMs}`;
    });
}
