// Test helper: reads a run's output files back (unique-NNNNN.txt,
// revisit-NNNNN.txt, ...) as the lines they hold, in file order then line
// order, for tests that compare a run's output with a model. Test-only;
// does not parse binary outputs (graph files) or report.json.
// REQUIRES: `dir` is a run's output directory.

import * as fs from 'node:fs';
import { join } from 'node:path';

/** The non-empty lines of every `<prefix>-*` file in `dir`, files in name order. */
export function outputLines(dir: string, prefix: string): string[] {
  return fs.readdirSync(dir).filter((f) => f.startsWith(`${prefix}-`)).sort()
    .flatMap((f) => fs.readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => l !== ''));
}
