// What a finished run leaves in the records: its summary in the manifest's
// short history (the last HISTORY_KEEP runs) and its record in the catalog.
// Pure: builds the values, writes nothing.

import type { RunCounters } from '../../../stats/counters.js';
import type { RunInput } from '../../../catalog/records.js';
import type { InputRecord, RunState, RunSummary } from '../../../store/manifest.js';
import type { RunReport } from '../../api.js';

export const HISTORY_KEEP = 20;

/** The history with `run` (its counters `c`) replacing any earlier entry of the same run, last HISTORY_KEEP kept. */
export function pushHistory(h: RunSummary[], run: RunState, c: RunCounters): RunSummary[] {
  const entry: RunSummary = {
    runId: run.runId, status: run.status, startedAt: run.startedAt, finishedAt: run.finishedAt,
    linksRead: c.linksRead, uniqueUrls: c.uniqueUrls, outDir: run.outDir, inputs: run.inputs,
  };
  return [...h.filter((x) => x.runId !== run.runId), entry].slice(-HISTORY_KEEP);
}

/** An input as the catalog records it: identity, and whatever keeps it from counting as ingested. */
export function catalogInput(i: InputRecord, skipped: boolean): RunInput {
  return {
    path: i.path, bytes: i.bytes, sha256: i.path === '-' || i.sha256 === '' ? null : i.sha256, skipped,
    ...(i.sampled ? { sampled: true } : {}), ...(i.sample ? { sample: i.sample } : {}), ...(i.damaged ? { damaged: i.damaged } : {}),
    ...(i.read ? { read: i.read } : {}),
  };
}

/** The catalog's record of a complete run. */
export function catalogRecord(run: RunState, r: RunReport) {
  return {
    runId: run.runId, startedAt: run.startedAt, finishedAt: new Date().toISOString(), status: 'complete' as const,
    inputs: run.inputs.map((i, k) => catalogInput(i, r.inputs[k]?.skipped ?? false)),
    counts: { linksRead: r.linksRead, uniqueUrls: r.uniqueUrls, duplicateUrls: r.duplicateUrls, rejectedLines: r.rejectedLines },
    outDir: run.outDir, outputFiles: r.outputFiles, options: { ...run.options },
  };
}
