// Where a `drum content` run may write its outputs: refuses (DRUM_CLOBBER),
// before the store is opened, an --out that is a state directory or inside
// its managed parts (store/, work/, catalog/, and content/, whose work/ the
// next open empties; the refusal names content's default place,
// <state>/content-runs/), one that is not a directory, and a non-empty
// directory holding anything but a content run's own files (an earlier or
// crashed run's outputs and the report's temporary file, which the same
// command run again replaces); and an input file inside the state's
// managed parts or its content store (DRUM_BAD_OPTION: the open would delete
// it before it is read).
// Does not make the directory (content-run.ts does, after the store opens).
// REQUIRES: absolute or cwd-relative paths. The checks are ingest's
// (run-setup.ts), given content/ as one more managed folder.

import { resolve } from 'node:path';
import { checkOutDir, checkOutDirPlace, MANAGED_PARTS, refuseInputsInState } from '../engine/jobs/ingest/run-setup.js';
import { CONTENT_DIR, CONTENT_RUNS_DIR } from './content-manifest.js';

/**
 * The files a content run writes into its output directory: its two
 * outputs, and the report's temporary file, which a run killed or cut by a
 * power loss while it wrote its report leaves (the same command run again
 * overwrites it and renames it into place).
 */
export const CONTENT_OUT_FILES: readonly string[] = ['content-duplicates.tsv', 'content-report.json', 'content-report.json.tmp'];

/** What a content run's open empties or owns: the store's managed folders and the content store. */
const CONTENT_PARTS: readonly string[] = [...MANAGED_PARTS, CONTENT_DIR];

/** Throws DRUM_CLOBBER when a content run must not write into `outDir` (see the header). */
export function checkContentOutDir(stateDir: string, outDir: string): void {
  checkOutDirPlace(stateDir, outDir, CONTENT_PARTS, CONTENT_RUNS_DIR);
  checkOutDir(resolve(outDir), true, CONTENT_OUT_FILES);
}

/** Throws DRUM_BAD_OPTION for an input inside the state's store/, work/, catalog/ or content/ (through symlinks). */
export function refuseContentInputs(stateDir: string, inputs: readonly string[]): void {
  refuseInputsInState(stateDir, inputs, CONTENT_PARTS);
}
