// Where a `drum content` run may write its outputs: refuses (DRUM_CLOBBER),
// before the store is opened, an --out that is a state directory or inside
// its managed parts (store/, work/, catalog/, and content/, whose work/ the
// next open empties), one that is not a directory, and a non-empty directory
// holding anything but a content run's own two files (an earlier or crashed
// run's outputs, which the same command run again replaces); and an input
// file inside the state's managed parts or its content store (DRUM_BAD_OPTION:
// the open would delete it before it is read).
// Does not make the directory (content-run.ts does, after the store opens).
// REQUIRES: absolute or cwd-relative paths; the ingest checks of run-setup.ts.

import * as fs from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { DrumError } from '../errors.js';
import { checkOutDir, checkOutDirPlace, refuseInputsInState } from '../engine/jobs/ingest/run-setup.js';
import { CONTENT_DIR } from './content-manifest.js';

/** The files a content run writes into its output directory. */
export const CONTENT_OUT_FILES: readonly string[] = ['content-duplicates.tsv', 'content-report.json'];

/** Throws DRUM_CLOBBER when a content run must not write into `outDir` (see the header). */
export function checkContentOutDir(stateDir: string, outDir: string): void {
  const out = resolve(outDir);
  const content = resolve(stateDir, CONTENT_DIR);
  if (out === content || out.startsWith(`${content}${sep}`)) {
    throw new DrumError('DRUM_CLOBBER', `--out ${out} is inside the content store ${content} (drum deletes or owns what is there)`, { file: out });
  }
  checkOutDirPlace(stateDir, out);
  checkOutDir(out, true, CONTENT_OUT_FILES);
}

/** Throws DRUM_BAD_OPTION for an input inside the state's store/, work/, catalog/ or content/ (through symlinks). */
export function refuseContentInputs(stateDir: string, inputs: readonly string[]): void {
  refuseInputsInState(stateDir, inputs);
  const real = (p: string): string => {
    try {
      return fs.realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const content = join(real(stateDir), CONTENT_DIR);
  for (const p of inputs) {
    if (p === '-') continue;
    const abs = real(p);
    if (abs === content || abs.startsWith(`${content}${sep}`)) {
      throw new DrumError('DRUM_BAD_OPTION', `input ${abs} is inside the content store ${content}, which drum content owns and cleans when it opens; move it out first`, { file: abs });
    }
  }
}
