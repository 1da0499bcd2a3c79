// The run-catalog record of a run, rebuilt from what the store keeps of it:
// for `drum repair --catalog` (repair.ts) and for a writer's open that finds
// a committed run's record lost (reconcile.ts). It never holds a number the
// store does not: where a count cannot be learned it is null, and the record
// is marked `rebuilt`. What it takes, best first:
// - the manifest's current run (`run`, the last one): its committed counters
//   and its options, exactly;
// - the run's report.json in its output directory, when it names the run
//   and agrees with the history's linksRead and uniqueUrls: its duplicate
//   and rejected counts, each input's `skipped` and its output files;
// - the manifest history entry: status, times, inputs, linksRead and
//   uniqueUrls. Without either source above, duplicateUrls and rejectedLines
//   are null (only their sum, linksRead - uniqueUrls, is known) and the
//   options are empty.
// A forget's record comes from its history entry, which keeps all its counts
// (its options are the store's policy), less its first rejects (rejects.tsv
// in its output directory has them all).
// Does not write the catalog (repair.ts and reconcile.ts do).
// REQUIRES: `h` is an entry of `body.history`.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { splitOrUnknown, type RunCounts, type RunInput, type RunRecord } from '../../../catalog/records.js';
import { listUniqueFiles } from '../../../output/unique-writer.js';
import type { ManifestBody, RunState, RunSummary } from '../../../store/manifest.js';
import { catalogInput } from '../ingest/run-history.js';
import { forgetRecord } from './forget-records.js';

/** What a run's report.json tells of it, beyond the manifest history. */
interface ReportFacts {
  duplicateUrls: unknown;
  rejectedLines: unknown;
  skipped: (boolean | undefined)[];
  outputFiles: string[] | null;
}

/** The run's report.json, when it is this run's (its id, and the history's linksRead and uniqueUrls); else null. */
function reportOf(h: RunSummary): ReportFacts | null {
  let x: Record<string, unknown>;
  try {
    const r: unknown = JSON.parse(fs.readFileSync(join(h.outDir, 'report.json'), 'utf8'));
    if (typeof r !== 'object' || r === null) return null;
    x = r as Record<string, unknown>;
  } catch {
    return null; // gone, unreadable or cut short: nothing learned from it
  }
  if (x.runId !== h.runId || x.linksRead !== h.linksRead || x.uniqueUrls !== h.uniqueUrls) return null;
  const inputs: unknown[] = Array.isArray(x.inputs) && x.inputs.length === h.inputs.length ? x.inputs : [];
  const files = x.outputFiles;
  return {
    duplicateUrls: x.duplicateUrls,
    rejectedLines: x.rejectedLines,
    skipped: h.inputs.map((_, k) => {
      const s = (inputs[k] as { skipped?: unknown } | undefined)?.skipped;
      return typeof s === 'boolean' ? s : undefined;
    }),
    outputFiles: Array.isArray(files) && files.every((f) => typeof f === 'string') ? (files as string[]) : null,
  };
}

/** The counts: the history's, split into duplicates and rejects by the current run's counters or the report when they add up. */
function countsOf(h: RunSummary, run: RunState | null, report: ReportFacts | null): RunCounts {
  let split = splitOrUnknown(h.linksRead, h.uniqueUrls, run?.counters.duplicateUrls, run?.counters.rejectedLines);
  if (split.duplicateUrls === null && report !== null) split = splitOrUnknown(h.linksRead, h.uniqueUrls, report.duplicateUrls, report.rejectedLines);
  return { linksRead: h.linksRead, uniqueUrls: h.uniqueUrls, ...split };
}

/** An input as the catalog records it; `skipped` left out when unknown. */
function inputOf(h: RunSummary, k: number, run: RunState | null, report: ReportFacts | null): RunInput {
  const skipped = run?.skipped[k] ?? report?.skipped[k];
  const rec = catalogInput(h.inputs[k]!, skipped ?? false);
  if (skipped === undefined) delete rec.skipped;
  return rec;
}

/** The record of history entry `h`, rebuilt from the manifest `body` and the run's output directory. */
export function rebuiltRecord(h: RunSummary, body: Pick<ManifestBody, 'run' | 'params'>, by: NonNullable<RunRecord['rebuilt']>): RunRecord {
  if (h.kind === 'forget' && h.forget !== undefined) {
    const rec = forgetRecord(h, [], { kind: 'forget', policy: body.params.policy });
    delete rec.forget!.rejects; // not kept outside the lost record: unknown, not none
    return { ...rec, rebuilt: by };
  }
  const run = body.run !== null && body.run.runId === h.runId ? body.run : null;
  const report = reportOf(h);
  const rec: RunRecord = {
    runId: h.runId, startedAt: h.startedAt, finishedAt: h.finishedAt,
    status: h.status === 'complete' || h.status === 'abandoned' ? h.status : 'failed',
    // damaged / sampled / sample / read travel with the input (catalogInput): without them a rebuilt record
    // would index a damaged or never-wholly-hashed input as ingested, and the next run would skip it.
    inputs: h.inputs.map((_, k) => inputOf(h, k, run, report)),
    counts: countsOf(h, run, report),
    outDir: h.outDir,
    outputFiles: report?.outputFiles ?? listUniqueFiles(h.outDir).map((f) => f.name),
    options: run !== null ? { ...run.options } : {},
    rebuilt: by,
  };
  // A forget stays a forget (a history entry without its counts, which drum never writes, keeps its kind):
  // recorded as one, it clears the ingested-input index again and is never an ingest.
  return h.kind === 'forget' ? { ...rec, kind: 'forget' } : rec;
}
