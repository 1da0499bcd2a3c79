// Builds the RunReport (src/stats/report.ts, docs/report.md) from a run's
// counters and the session's tiers, store and budget; writes report.json
// (tmp, rename). Arithmetic and formatting of numbers only; counts nothing.
// REQUIRES: the session the run used, still open: its tiers, journal, plan
// and stage timer are read as they are when the report is built.

import { join } from 'node:path';
import type { DrumFs } from '../../../io/fs.js';
import { replaceFile } from '../../../io/replace-file.js';
import type { RunCounters } from '../../../stats/counters.js';
import type { BloomReport, GraphReport, InputErrorReport, RunReport } from '../../../stats/report.js';
import { uniqueFileName } from '../../../output/unique-writer.js';
import type { RunState } from '../../../store/manifest.js';
import { budgetSplit } from '../../session/budget.js';
import type { Session } from '../../session/session.js';

/** hits / lookups, 0 when there were none. */
const rate = (hits: number, lookups: number): number => (lookups === 0 ? 0 : hits / lookups);

/** The store as the commit a report goes with leaves it: URLs stored, and keys in the key journal. */
export interface StoreAfter {
  storeUrls: number;
  journalKeys: number;
}

/**
 * The run's report, section by section in the order report.json lists them
 * (docs/report.md): identity and inputs, links, tiers, disk and I/O, speed,
 * memory and outputs, then the inputs that broke part-way.
 */
export function buildReport(
  s: Session,
  run: RunState,
  c: RunCounters,
  skipped: boolean[],
  outputFiles: string[],
  elapsedMs: number,
  status: RunReport['status'],
  inputErrors: InputErrorReport[] = [],
  after: StoreAfter = { storeUrls: s.store.body.storeUrls, journalKeys: s.journal?.count ?? 0 },
): RunReport {
  const tested = c.linksRead - c.rejectedLines;
  const report: RunReport = {
    ...identitySection(s, run, skipped, status),
    ...linksSection(run, c),
    ...tiersSection(s, c, tested, after.journalKeys),
    ...diskSection(c, tested, after.storeUrls),
    ...speedSection(s, run, c, outputFiles, elapsedMs),
    inputErrors,
  };
  return report;
}

/** Identity and inputs: which run, its status, the store's policy, each input. */
function identitySection(
  s: Session,
  run: RunState,
  skipped: boolean[],
  status: RunReport['status'],
): Pick<RunReport, 'runId' | 'status' | 'lossy' | 'policy' | 'inputs'> {
  return {
    runId: run.runId,
    status,
    lossy: s.opts.bloom === 'lossy',
    policy: s.policy.id,
    inputs: run.inputs.map((i, k) => ({ path: i.path, bytes: i.bytes, sha256: i.path === '-' || i.sha256 === '' ? null : i.sha256, skipped: skipped[k] ?? false })),
  };
}

/** Links: read, new, due again, the link graph's, duplicate, rejected (by reason). */
function linksSection(
  run: RunState,
  c: RunCounters,
): Pick<RunReport, 'linksRead' | 'uniqueUrls' | 'revisitUrls' | 'graph' | 'duplicateUrls' | 'rejectedLines' | 'rejectsByReason'> {
  return {
    linksRead: c.linksRead,
    uniqueUrls: c.uniqueUrls,
    revisitUrls: c.revisitUrls,
    ...(run.graph === undefined ? {} : { graph: graphReport(run.graph.file, c) }),
    duplicateUrls: c.duplicateUrls,
    rejectedLines: c.rejectedLines,
    rejectsByReason: { ...c.rejectsByReason },
  };
}

/** Tiers: each RAM tier's lookups and hits in routing order, and the share of the `tested` URLs they answered. */
function tiersSection(s: Session, c: RunCounters, tested: number, journalKeys: number): Pick<RunReport, 'tiers' | 'answeredInRam'> {
  const inRam = c.lineRepeats + c.chunkRepeats + c.cacheHits + c.recentHits + c.journalHits + c.lossyDropped;
  return {
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
        keys: journalKeys, rounds: c.journalRounds, folds: c.journalFolds,
      },
      bloom: bloomReport(s, c),
    },
    answeredInRam: rate(inRam, tested),
  };
}

/**
 * The Bloom tier: its answers, and the false positives its fill predicts.
 * The front counts them as it routes (front.ts): each "definitely new"
 * answer at the fill the filter had then, whichever filter answered (the
 * one loaded at open, or one a merge or fold rebuilt).
 */
function bloomReport(s: Session, c: RunCounters): BloomReport {
  const bloom = s.front.bloom;
  const mode = s.opts.bloom;
  const e = c.bloomExpectedFp;
  return {
    mode,
    bitsPerKey: s.opts.bloomBitsPerKey,
    sizeBytes: bloom?.bytes ?? 0,
    definitelyNew: c.bloomDefinitelyNew,
    maybeSeen: c.bloomMaybeSeen,
    falsePositives: c.bloomFalsePositives,
    notAdded: c.bloomNotAdded,
    observedFpRate: rate(c.bloomFalsePositives, c.bloomFalsePositives + c.bloomDefinitelyNew),
    // Of the new URLs that met the filter (those it passed, and the false positives expected behind them).
    expectedFpRate: rate(e, e + c.bloomDefinitelyNew),
    expectedWronglyDropped: mode === 'lossy' ? e : 0,
  };
}

/** Disk and I/O: the store's lookups and hits, the run's file I/O, seeks per tested URL, URLs stored. */
function diskSection(c: RunCounters, tested: number, storeUrls: number): Pick<RunReport, 'disk' | 'io' | 'seeksPerUrl' | 'storeUrls'> {
  return {
    disk: { lookups: c.diskLookups, hits: c.diskHits },
    io: { merges: c.merges, spills: c.spills, seeks: c.seeks, fileOpens: c.fileOpens, bytesRead: c.bytesRead, bytesWritten: c.bytesWritten },
    seeksPerUrl: rate(c.seeks, tested),
    storeUrls,
  };
}

/** Speed, memory, outputs: the budget and its split, where the new URLs went, time, rate, peak RSS, stages, parse split. */
function speedSection(
  s: Session,
  run: RunState,
  c: RunCounters,
  outputFiles: string[],
  elapsedMs: number,
): Pick<RunReport, 'memory' | 'outDir' | 'outputFiles' | 'elapsedMs' | 'linksPerSecond' | 'peakRssBytes' | 'stages' | 'parseSplit'> {
  return {
    memory: { budgetBytes: s.plan.totalBytes, split: budgetSplit(s.plan) },
    outDir: run.outDir,
    outputFiles,
    elapsedMs: Math.round(elapsedMs),
    linksPerSecond: elapsedMs > 0 ? Math.round((c.linksRead * 1000) / elapsedMs) : 0,
    peakRssBytes: peakRss(),
    stages: roundStages(s.timer.runStages()),
    parseSplit: {
      workers: s.pool.size, chunksOnWorkers: c.chunksOnWorkers, chunksOnMain: c.chunksOnMain,
      workerMs: Math.round(c.parseMsWorkers), mainMs: Math.round(c.parseMsMain),
    },
  };
}

/** The link graph's part of the report: its files' names in order and its counts. */
function graphReport(files: number, c: RunCounters): GraphReport {
  const names: string[] = [];
  for (let i = 1; i <= files; i++) names.push(uniqueFileName(i, 'graph', 'bin'));
  return { files: names, pairs: c.graphPairs, rowsWithoutPair: c.graphRowsWithoutPair, sourcesStored: c.graphSourcesStored };
}

/** Stage times rounded to whole milliseconds. */
function roundStages(st: Record<string, { ms: number; items: number }>): Record<string, { ms: number; items: number }> {
  const out: Record<string, { ms: number; items: number }> = {};
  for (const [k, v] of Object.entries(st)) out[k] = { ms: Math.round(v.ms), items: v.items };
  return out;
}

/** Peak resident set size of this process (maxRSS is in KiB). */
export function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

/** Writes the report as report.json in `outDir` (a tmp file renamed over it). */
export function writeReport(dfs: DrumFs, outDir: string, r: RunReport): void {
  const path = join(outDir, 'report.json');
  const bytes = Buffer.from(`${JSON.stringify(r, null, 2)}\n`);
  replaceFile(dfs, path, (fd) => dfs.write(fd, bytes, 0, bytes.length, 0));
}
