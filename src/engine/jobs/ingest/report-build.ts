// Builds the RunReport (src/stats/report.ts, docs/report.md) from a run's
// counters and the session's tiers, store and budget; writes report.json
// (tmp, rename). Arithmetic and formatting of numbers only; counts nothing.

import { join } from 'node:path';
import type { DrumFs } from '../../../io/fs.js';
import { replaceFile } from '../../../io/replace-file.js';
import type { RunCounters } from '../../../stats/counters.js';
import type { GraphReport, RunReport } from '../../../stats/report.js';
import { uniqueFileName } from '../../../output/unique-writer.js';
import type { RunState } from '../../../store/manifest.js';
import { budgetSplit } from '../../session/budget.js';
import type { Session } from '../../session/session.js';

const rate = (hits: number, lookups: number): number => (lookups === 0 ? 0 : hits / lookups);

export function buildReport(
  s: Session,
  run: RunState,
  c: RunCounters,
  skipped: boolean[],
  outputFiles: string[],
  elapsedMs: number,
  status: RunReport['status'],
  inputErrors: { path: string; code: string; message: string }[] = [],
  storeUrls = s.store.body.storeUrls,
): RunReport {
  const bloom = s.front.bloom;
  const mode = s.opts.bloom;
  const tested = c.linksRead - c.rejectedLines;
  const inRam = c.lineRepeats + c.chunkRepeats + c.cacheHits + c.recentHits + c.journalHits + c.lossyDropped;
  // Averaged over how the filter filled during the run (the end-of-run rate overstates it).
  const added = c.bloomDefinitelyNew;
  const expectedFp = bloom === null ? 0 : bloom.meanFpRateOverFill(Math.max(0, bloom.keys - added), added);
  const report: RunReport & { inputErrors: typeof inputErrors; policy: string } = {
    runId: run.runId,
    status,
    lossy: mode === 'lossy',
    policy: s.policy.id,
    inputs: run.inputs.map((i, k) => ({ path: i.path, bytes: i.bytes, sha256: i.path === '-' || i.sha256 === '' ? null : i.sha256, skipped: skipped[k] ?? false })),
    linksRead: c.linksRead,
    uniqueUrls: c.uniqueUrls,
    revisitUrls: c.revisitUrls,
    ...(run.graph === undefined ? {} : { graph: graphReport(run.graph.file, c) }),
    duplicateUrls: c.duplicateUrls,
    rejectedLines: c.rejectedLines,
    rejectsByReason: { ...c.rejectsByReason },
    tiers: {
      lineMemo: {
        lookups: c.lineLookups, hits: c.lineRepeats, hitRate: rate(c.lineRepeats, c.lineLookups),
        entries: s.plan.lineMemoEntries, threads: s.pool.size + 1,
      },
      chunkDedup: { lookups: tested - c.lineRepeats, hits: c.chunkRepeats, hitRate: rate(c.chunkRepeats, tested - c.lineRepeats) },
      hotCache: { lookups: c.cacheLookups, hits: c.cacheHits, hitRate: rate(c.cacheHits, c.cacheLookups), entries: s.front.cache.entries },
      recentTable: { lookups: c.recentLookups, hits: c.recentHits, hitRate: rate(c.recentHits, c.recentLookups), entries: s.front.recent.entries },
      journal: {
        lookups: c.journalLookups, hits: c.journalHits, hitRate: rate(c.journalHits, c.journalLookups),
        keys: s.journal?.count ?? 0, rounds: c.journalRounds, folds: c.journalFolds,
      },
      bloom: {
        mode,
        bitsPerKey: s.opts.bloomBitsPerKey,
        sizeBytes: bloom?.bytes ?? 0,
        definitelyNew: c.bloomDefinitelyNew,
        maybeSeen: c.bloomMaybeSeen,
        falsePositives: c.bloomFalsePositives,
        observedFpRate: rate(c.bloomFalsePositives, c.bloomFalsePositives + c.bloomDefinitelyNew),
        expectedFpRate: expectedFp,
        // New URLs tested = emitted + wrongly dropped; a fraction expectedFp of them were dropped.
        expectedWronglyDropped: mode === 'lossy' && expectedFp < 1 ? (c.uniqueUrls * expectedFp) / (1 - expectedFp) : 0,
      },
    },
    answeredInRam: rate(inRam, tested),
    disk: { lookups: c.diskLookups, hits: c.diskHits },
    io: { merges: c.merges, spills: c.spills, seeks: c.seeks, fileOpens: c.fileOpens, bytesRead: c.bytesRead, bytesWritten: c.bytesWritten },
    seeksPerUrl: rate(c.seeks, tested),
    storeUrls,
    memory: { budgetBytes: s.plan.totalBytes, split: budgetSplit(s.plan) },
    outDir: run.outDir,
    outputFiles,
    elapsedMs: Math.round(elapsedMs),
    linksPerSecond: elapsedMs > 0 ? Math.round((c.linksRead * 1000) / elapsedMs) : 0,
    peakRssBytes: peakRss(),
    stages: roundStages(s.timer.stages),
    parseSplit: {
      workers: s.pool.size, chunksOnWorkers: c.chunksOnWorkers, chunksOnMain: c.chunksOnMain,
      workerMs: Math.round(c.parseMsWorkers), mainMs: Math.round(c.parseMsMain),
    },
    inputErrors,
  };
  return report;
}

function graphReport(files: number, c: RunCounters): GraphReport {
  const names: string[] = [];
  for (let i = 1; i <= files; i++) names.push(uniqueFileName(i, 'graph', 'bin'));
  return { files: names, pairs: c.graphPairs, rowsWithoutPair: c.graphRowsWithoutPair, sourcesStored: c.graphSourcesStored };
}

function roundStages(st: Record<string, { ms: number; items: number }>): Record<string, { ms: number; items: number }> {
  const out: Record<string, { ms: number; items: number }> = {};
  for (const [k, v] of Object.entries(st)) out[k] = { ms: Math.round(v.ms), items: v.items };
  return out;
}

/** Peak resident set size of this process (maxRSS is in KiB). */
export function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

export function writeReport(dfs: DrumFs, outDir: string, r: RunReport): void {
  const path = join(outDir, 'report.json');
  const bytes = Buffer.from(`${JSON.stringify(r, null, 2)}\n`);
  replaceFile(dfs, path, (fd) => dfs.write(fd, bytes, 0, bytes.length, 0));
}
