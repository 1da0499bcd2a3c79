// Brings the run catalog back in line with the manifest when a writer opens
// the store: a run the manifest's history names but the catalog lacks (its
// final catalog write failed, e.g. a full disk under catalog/ after the
// run's last commit) is recorded again, so `drum runs` lists it. The record
// itself is built by the caller from what the store keeps of the run
// (src/engine/jobs/maintain/rebuilt-records.ts, as `drum repair --catalog`
// builds its records). Does not touch runs the catalog has, and does not
// recount host counts (the next ingest recovers the last round's,
// host-recovery.ts).
// REQUIRES: the catalog is open for writing under the store's writer lock.

import type { RunSummary } from '../store/manifest.js';
import type { Catalog, RunRecord } from './catalog.js';

/** Records every run of `history` the catalog lacks, as `recordOf` rebuilds it; returns their ids. */
export async function reconcileRuns(catalog: Catalog, history: readonly RunSummary[], recordOf: (h: RunSummary) => RunRecord): Promise<string[]> {
  const missing = new Set(await catalog.missingRuns(history.map((h) => h.runId)));
  for (const h of history) if (missing.has(h.runId)) await catalog.putRun(recordOf(h));
  return [...missing];
}
