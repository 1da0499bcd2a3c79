// Brings the run catalog back in line with the manifest when a writer opens
// the store: a run the manifest's history names but the catalog lacks (its
// final catalog write failed, e.g. a full disk under catalog/ after the
// run's last commit) is recorded again from the history, so `drum runs`
// lists it. Also the record `drum repair --catalog` rebuilds runs from.
// Does not touch runs the catalog has, and does not recount host counts
// (the next ingest recovers the last round's, host-recovery.ts).
// REQUIRES: the catalog is open for writing under the store's writer lock.

import { listUniqueFiles } from '../output/unique-writer.js';
import type { RunSummary } from '../store/manifest.js';
import type { Catalog, RunRecord } from './catalog.js';

/** The catalog record of a run, from its manifest summary and the unique files in its output directory. */
export function runRecordFromSummary(h: RunSummary, options: RunRecord['options']): RunRecord {
  return {
    runId: h.runId, startedAt: h.startedAt, finishedAt: h.finishedAt,
    status: h.status === 'complete' || h.status === 'abandoned' ? h.status : 'failed',
    // damaged / sampled / sample travel with the input: without them a rebuilt record would index a
    // damaged or never-wholly-hashed input as ingested, and the next run would skip it.
    inputs: h.inputs.map((i) => ({
      path: i.path, bytes: i.bytes, sha256: i.path === '-' ? null : i.sha256,
      ...(i.damaged ? { damaged: i.damaged } : {}), ...(i.sampled ? { sampled: true } : {}), ...(i.sample ? { sample: i.sample } : {}), ...(i.read ? { read: i.read } : {}),
    })),
    counts: { linksRead: h.linksRead, uniqueUrls: h.uniqueUrls, duplicateUrls: 0, rejectedLines: 0 },
    outDir: h.outDir, outputFiles: listUniqueFiles(h.outDir).map((f) => f.name), options,
    // A forget stays a forget: recorded as one, it clears the ingested-input index again and is never an ingest.
    ...(h.kind === 'forget' ? { kind: 'forget' as const, forget: { ...h.forget! } } : {}),
  };
}

/** Records every run of `history` the catalog lacks; returns their ids. */
export async function reconcileRuns(catalog: Catalog, history: readonly RunSummary[]): Promise<string[]> {
  const missing = new Set(await catalog.missingRuns(history.map((h) => h.runId)));
  for (const h of history) if (missing.has(h.runId)) await catalog.putRun(runRecordFromSummary(h, { reconciled: true }));
  return [...missing];
}
