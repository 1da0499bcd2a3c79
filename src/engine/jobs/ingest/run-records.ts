// What a run leaves in the run catalog before it completes, and what happens
// to an unfinished run that a new run replaces: the catalog record of a run
// when it starts (status `running`) and when it is abandoned (run-history.ts
// has the complete run's); cutting an
// abandoned run's outputs back to its last commit, so its unique files hold
// exactly the new URLs the store committed for it (none of them is new to a
// later run, so no URL appears in two runs' outputs). Does not decide whether
// a run resumes or is abandoned (run-setup.ts does) and does not commit the
// manifest (ingest.ts does).
// REQUIRES: the writer lock is held; the abandoned run is the manifest's
// unfinished run, not yet replaced.

import * as fs from 'node:fs';
import { join } from 'node:path';
import type { RunRecord } from '../../../catalog/catalog.js';
import type { DrumFs } from '../../../io/fs.js';
import { cutToCommitPoint, uniqueFileName } from '../../../output/unique-writer.js';
import type { RunState } from '../../../store/manifest.js';
import type { AbandonedRun } from '../../api.js';

/** New URLs a run had committed, from its manifest counters. */
export function committedUrls(run: RunState): number {
  return run.counters.uniqueUrls ?? 0;
}

function countsOf(run: RunState): RunRecord['counts'] {
  const c = run.counters;
  return { linksRead: c.linksRead ?? 0, uniqueUrls: c.uniqueUrls ?? 0, duplicateUrls: c.duplicateUrls ?? 0, rejectedLines: c.rejectedLines ?? 0 };
}

function inputsOf(run: RunState): RunRecord['inputs'] {
  return run.inputs.map((i, k) => ({ path: i.path, bytes: i.bytes, sha256: i.path === '-' ? null : i.sha256, skipped: run.skipped[k] ?? false }));
}

function filesOf(run: RunState): string[] {
  const out: string[] = [];
  for (let i = 1; i <= run.unique.file; i++) out.push(uniqueFileName(i));
  return out;
}

/** The catalog record of an unfinished run (`running`; `drum runs` shows it as interrupted once no writer holds the store). */
export function runningRecord(run: RunState): RunRecord {
  return {
    runId: run.runId, startedAt: run.startedAt, finishedAt: null, status: 'running', inputs: inputsOf(run), counts: countsOf(run),
    outDir: run.outDir, outputFiles: filesOf(run), options: { ...run.options },
  };
}

/** The catalog record of a run a later run abandoned, with what it had committed. */
export function abandonedRecord(run: RunState): RunRecord {
  return { ...runningRecord(run), status: 'abandoned' };
}

/**
 * Cuts the outputs of the run being abandoned back to its last commit (an
 * interrupted round may have written past it: those URLs were never stored,
 * and a later run may find them new) and describes where its URLs are.
 */
export function settleAbandoned(dfs: DrumFs, run: RunState): AbandonedRun {
  if (fs.existsSync(run.outDir)) {
    cutToCommitPoint(dfs, run.outDir, run.unique);
    if (run.revisit !== undefined) cutToCommitPoint(dfs, run.outDir, run.revisit, 'revisit');
    if (run.graph !== undefined) cutToCommitPoint(dfs, run.outDir, run.graph, 'graph', 'bin');
    const rejects = join(run.outDir, 'rejects.tsv');
    if (run.rejectsBytes > 0 && fs.existsSync(rejects) && fs.statSync(rejects).size > run.rejectsBytes) {
      const fd = dfs.open(rejects, 'r+');
      try {
        dfs.truncate(fd, run.rejectsBytes);
      } finally {
        dfs.close(fd);
      }
    }
  }
  return { runId: run.runId, startedAt: run.startedAt, outDir: run.outDir, committedUrls: committedUrls(run), inputs: run.inputs.map((i) => i.path) };
}
