// The run listing of `drum runs`: the catalog's run records, with each run's
// status and committed counts settled against the MANIFEST, which is the
// committed truth. The manifest's unfinished run is `running` while a writer
// holds the store and `interrupted` otherwise, with the new URLs it
// committed so far; runs the manifest history calls abandoned are
// `abandoned`; a catalog record still `running` that the manifest no longer
// names was replaced, so `abandoned` too; runs the manifest knows and the
// catalog lost (a full disk under catalog/) are listed from the manifest,
// their duplicate and rejected counts unknown (null): the history keeps
// only linksRead and uniqueUrls.
// Pure: reads nothing itself.

import type { ManifestBody, RunState, RunSummary } from '../store/manifest.js';
import { splitOrUnknown, type RunRecord, type RunStatus } from './records.js';

function counts(c: Record<string, number>): RunRecord['counts'] {
  return { linksRead: c.linksRead ?? 0, uniqueUrls: c.uniqueUrls ?? 0, duplicateUrls: c.duplicateUrls ?? 0, rejectedLines: c.rejectedLines ?? 0 };
}

function fromRunState(run: RunState, status: RunStatus, rec: RunRecord | undefined): RunRecord {
  return {
    runId: run.runId, startedAt: run.startedAt, finishedAt: run.finishedAt, status,
    inputs: run.inputs.map((i, k) => ({
      path: i.path, bytes: i.bytes, sha256: i.path === '-' ? null : i.sha256, skipped: run.skipped[k] ?? false, ...(i.damaged ? { damaged: i.damaged } : {}),
    })),
    counts: counts(run.counters), outDir: run.outDir, outputFiles: rec?.outputFiles ?? [], options: rec?.options ?? { ...run.options },
  };
}

/**
 * A run as the manifest history has it, over the catalog's record of it if any (one still `running`).
 * The history keeps only linksRead and uniqueUrls: the record's duplicates and rejects stay when they
 * add up with them, else they are unknown (null), never 0.
 */
function fromSummary(h: RunSummary, status: RunStatus, rec: RunRecord | undefined): RunRecord {
  const base: RunRecord = rec ?? {
    runId: h.runId, startedAt: h.startedAt, finishedAt: h.finishedAt, status, outDir: h.outDir, outputFiles: [], options: {},
    inputs: h.inputs.map((i) => ({ path: i.path, bytes: i.bytes, sha256: i.path === '-' ? null : i.sha256, ...(i.damaged ? { damaged: i.damaged } : {}) })),
    counts: { linksRead: h.linksRead, uniqueUrls: h.uniqueUrls, duplicateUrls: null, rejectedLines: null },
    ...(h.kind === 'forget' && h.forget !== undefined ? { kind: 'forget' as const, forget: { ...h.forget } } : {}),
  };
  // A forget's counts are its own (RunRecord.forget), kept whole by the history.
  if (base.kind === 'forget') return { ...base, status };
  const split = splitOrUnknown(h.linksRead, h.uniqueUrls, base.counts.duplicateUrls, base.counts.rejectedLines);
  return { ...base, status, counts: { linksRead: h.linksRead, uniqueUrls: h.uniqueUrls, ...split } };
}

/**
 * Settles `records` (newest first, as the catalog lists them) against the
 * manifest `body` (null: no store). `writerLive`: a writer holds the store
 * now. Returns at most `limit` runs, newest first.
 */
export function settleRuns(records: readonly RunRecord[], body: ManifestBody | null, writerLive: boolean, limit: number): RunRecord[] {
  const byId = new Map(records.map((r) => [r.runId, r]));
  const out = new Map<string, RunRecord>();
  for (const r of records) out.set(r.runId, r.status === 'running' ? { ...r, status: 'abandoned' } : r);
  for (const h of body?.history ?? []) {
    const rec = byId.get(h.runId);
    if (h.status === 'abandoned') out.set(h.runId, fromSummary(h, 'abandoned', rec));
    else if (h.status === 'complete' && (rec === undefined || rec.status === 'running')) out.set(h.runId, fromSummary(h, 'complete', rec));
  }
  const run = body?.run ?? null;
  if (run !== null) {
    const rec = byId.get(run.runId);
    if (run.status === 'running') out.set(run.runId, fromRunState(run, writerLive ? 'running' : 'interrupted', rec));
    else if (rec === undefined || rec.status === 'running') out.set(run.runId, fromRunState(run, run.status === 'complete' ? 'complete' : 'abandoned', rec));
  }
  return [...out.values()]
    .sort((a, b) => (a.startedAt === b.startedAt ? (a.runId < b.runId ? 1 : -1) : a.startedAt < b.startedAt ? 1 : -1))
    .slice(0, limit);
}
