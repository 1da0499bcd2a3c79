// The end-of-run report of a RunReport as the CLI prints it: a short summary
// an operator reads and, with --verbose, the engine's internals. The
// `stats`, `runs`, `hosts` and `verify` listings are in store-listings.ts.
// Pure functions from data to a string ending in a newline; no I/O, no
// colours (output is often piped), no JSON (callers print JSON). Numbers go
// through format.ts, the CLI's one number formatter.

import type { RunReport } from '../engine/api.js';
import { fmtBytes, fmtCount, fmtDuration, fmtInt, fmtPct } from './format.js';
import { section, statusWithDamage } from './text-layout.js';

/** Mercator's measured disk seeks per URL test (Heydon & Najork 1999), for comparison. */
export const MERCATOR_SEEKS_PER_URL = 0.16;

function rate(hits: number, lookups: number): string {
  return lookups > 0 ? fmtPct(hits / lookups) : '-';
}

/** One line: how the parse stage was split between the worker threads and the main thread. */
function parseSplit(p: RunReport['parseSplit']): string {
  const all = p.chunksOnWorkers + p.chunksOnMain;
  if (all === 0) return '(no chunks)';
  const workers = `${p.workers} worker${p.workers === 1 ? '' : 's'}`;
  return `${fmtInt(p.chunksOnWorkers)} chunks on ${workers} (${fmtDuration(p.workerMs)} busy), ${fmtInt(p.chunksOnMain)} on the main thread (${fmtDuration(p.mainMs)})`;
}

export interface ReportFormat {
  /** Also print the engine's internals: tiers, disk and IO, speed split, memory, every output file. */
  verbose?: boolean;
}

/** At most this many inputs are listed one per line; more are summarised. */
const LISTED_INPUTS = 5;

/** Inputs that broke part-way, by index: lines read whole before the break (the report's `inputErrors`; a report.json of an older drum may lack them). */
function damagedInputs(r: RunReport): Map<number, number> {
  const errors: Partial<RunReport['inputErrors'][number]>[] = (r as Partial<RunReport>).inputErrors ?? [];
  return new Map(errors.filter((e) => e.input !== undefined).map((e) => [e.input!, e.line ?? 0]));
}

/** The inputs of a run, one per row: path and size, or why it was skipped, and where a damaged one broke. */
function inputRows(r: RunReport, damaged: Map<number, number>): [string, string][] {
  const rows: [string, string][] = [];
  const shown = r.inputs.length > LISTED_INPUTS ? r.inputs.slice(0, LISTED_INPUTS - 1) : r.inputs;
  for (const [k, i] of shown.entries()) {
    const what = i.skipped ? 'skipped: already ingested, --force to redo' : i.path === '-' ? 'stdin' : fmtBytes(i.bytes);
    const line = damaged.get(k);
    rows.push([rows.length === 0 ? 'inputs' : '', `${i.path} (${what}${line === undefined ? '' : `, damaged after line ${fmtInt(line)}`})`]);
  }
  if (shown.length < r.inputs.length) {
    const rest = r.inputs.slice(shown.length);
    rows.push(['', `... and ${fmtInt(rest.length)} more (${fmtBytes(rest.reduce((a, i) => a + i.bytes, 0))})`]);
  }
  if (rows.length === 0) rows.push(['inputs', '(none)']);
  return rows;
}

/** A graph run's pairs and where they went. */
function graphRows(r: RunReport): [string, string][] {
  const g = r.graph!;
  const names = g.files.length <= 3 ? g.files.join(', ') : `${g.files[0]} ... ${g.files[g.files.length - 1]} (${fmtInt(g.files.length)} files)`;
  return [
    ['graph pairs', `${fmtInt(g.pairs)} (${fmtInt(g.rowsWithoutPair)} rows without a pair, ${fmtInt(g.sourcesStored)} new sources stored, not emitted)`],
    ['graph in', `${r.outDir}/ ${names}`],
  ];
}

/** Where the run's new URLs went: the output directory and its unique files. */
function uniqueFiles(r: RunReport): string {
  const files = r.outputFiles.filter((f) => f.startsWith('unique-'));
  if (files.length === 0) return `${r.outDir} (no new URLs)`;
  const names = files.length <= 3 ? files.join(', ') : `${files[0]} ... ${files[files.length - 1]} (${fmtInt(files.length)} files)`;
  return `${r.outDir}/ ${names}`;
}

/**
 * The end-of-run report: first what an operator checks — inputs, links read,
 * new, duplicates, rejects by reason, the store's size, time and rate, and
 * where the files are — then, with `verbose`, the engine's internals.
 */
export function formatRunReport(r: RunReport, f: ReportFormat = {}): string {
  if (r.status === 'skipped') {
    return `drum run ${r.runId}: nothing to do, every input was already ingested into this store (--force ingests again)\n`;
  }
  const damaged = damagedInputs(r);
  const status = statusWithDamage(r.status, damaged.size); // as drum runs says it
  const head = `drum run ${r.runId}: ${status}${r.lossy ? '  [LOSSY: bloom may have dropped new URLs]' : ''}`;
  const share = r.linksRead > 0 ? ` (${fmtPct(r.uniqueUrls / r.linksRead)} of links)` : '';
  const rows: [string, string][] = [
    ...inputRows(r, damaged),
    ['links read', fmtInt(r.linksRead)],
    ['new URLs', `${fmtInt(r.uniqueUrls)}${share}`],
    ['duplicates', fmtInt(r.duplicateUrls)],
    ...(r.revisitUrls > 0 ? [['  due again (revisit)', fmtInt(r.revisitUrls)] as [string, string]] : []),
    ['rejected lines', fmtInt(r.rejectedLines)],
  ];
  for (const [reason, n] of Object.entries(r.rejectsByReason).sort((a, b) => b[1] - a[1])) rows.push([`  ${reason}`, fmtInt(n)]);
  rows.push(
    ['URLs stored', fmtInt(r.storeUrls)],
    ['time', `${fmtDuration(r.elapsedMs)}, ${fmtInt(r.linksPerSecond)} links/s, peak RSS ${fmtBytes(r.peakRssBytes)}`],
    ['new URLs in', uniqueFiles(r)],
    // The report lists the unique files only (docs/cli.md, --revisit-after); these rotate the same way.
    ...(r.revisitUrls > 0 ? [['revisit URLs in', `${r.outDir}/ revisit-*.txt`] as [string, string]] : []),
    ...(r.graph === undefined ? [] : graphRows(r)),
    ['rejects in', `${r.outDir}/rejects.tsv`],
    ['report in', `${r.outDir}/report.json`],
  );
  const summary = section(head, rows);
  return f.verbose ? `${summary}\n${formatDetails(r)}` : summary;
}

/** The engine's internals of a run (--verbose): tiers, disk and IO, speed split, memory, every output file. */
function formatDetails(r: RunReport): string {
  const out: string[] = [];
  const t = r.tiers;
  const b = t.bloom;
  const tiers: [string, string][] = [
    ['line memo', `${fmtInt(t.lineMemo.hits)} of ${fmtInt(t.lineMemo.lookups)} raw lines repeat a line seen before (${rate(t.lineMemo.hits, t.lineMemo.lookups)}, ${fmtInt(t.lineMemo.entries)} entries × ${t.lineMemo.threads} threads)`],
    ['chunk repeats', `${fmtInt(t.chunkDedup.hits)} of ${fmtInt(t.chunkDedup.lookups)} links repeat a link of their chunk (${rate(t.chunkDedup.hits, t.chunkDedup.lookups)})`],
    ['hot cache', `${fmtInt(t.hotCache.hits)} hits / ${fmtInt(t.hotCache.lookups)} lookups  (${rate(t.hotCache.hits, t.hotCache.lookups)}, ${fmtInt(t.hotCache.entries)} entries)`],
    ['recent table', `${fmtInt(t.recentTable.hits)} hits / ${fmtInt(t.recentTable.lookups)} lookups  (${rate(t.recentTable.hits, t.recentTable.lookups)}, ${fmtInt(t.recentTable.entries)} entries)`],
    ['key journal', `${fmtInt(t.journal.hits)} hits / ${fmtInt(t.journal.lookups)} lookups  (${rate(t.journal.hits, t.journal.lookups)}, ${fmtInt(t.journal.keys)} keys held; ` +
      `${fmtCount(t.journal.rounds, 'journal round')}, ${fmtCount(t.journal.folds, 'fold')})`],
  ];
  if (b.mode === 'off') tiers.push(['bloom', 'off']);
  else {
    tiers.push([`bloom (${b.mode})`, `${fmtInt(b.definitelyNew)} definitely new, ${fmtInt(b.maybeSeen)} maybe seen, ${fmtInt(b.falsePositives)} false positives`]);
    tiers.push(['bloom fp rate', `${fmtPct(b.observedFpRate)} observed, ${fmtPct(b.expectedFpRate)} expected at its fill (${b.bitsPerKey} bits/key, ${fmtBytes(b.sizeBytes)})`]);
    if (b.notAdded > 0) tiers.push(['bloom full', `held the keys it was sized for: ${fmtInt(b.notAdded)} new keys not added, answered at its design rate`]);
    if (b.mode === 'lossy') tiers.push(['wrongly dropped', `~${fmtInt(b.expectedWronglyDropped)} new URLs expected`]);
  }
  tiers.push(['answered in RAM', `${fmtPct(r.answeredInRam)} of URL tests (Mercator: 75.7%)`]);
  out.push(section('tiers', tiers));
  out.push(
    section('disk & io', [
      ['disk lookups', `${fmtInt(r.disk.lookups)} (${fmtInt(r.disk.hits)} found)`],
      ['merges', fmtInt(r.io.merges)],
      ['spills', fmtInt(r.io.spills)],
      ['seeks', `${fmtInt(r.io.seeks)} (${fmtInt(r.io.fileOpens)} file opens)`],
      ['seeks per URL', `${r.seeksPerUrl.toPrecision(3)} (Mercator: ${MERCATOR_SEEKS_PER_URL})`],
      ['bytes read', fmtBytes(r.io.bytesRead)],
      ['bytes written', fmtBytes(r.io.bytesWritten)],
    ]),
  );
  const stages = Object.entries(r.stages).map(([k, v]) => `${k} ${fmtDuration(v.ms)}`).join(', ');
  out.push(
    section('speed', [
      ['elapsed', fmtDuration(r.elapsedMs)],
      ['links/s', fmtInt(r.linksPerSecond)],
      ['peak RSS', fmtBytes(r.peakRssBytes)],
      ['parse split', parseSplit(r.parseSplit)],
      ['stages', stages || '-'],
    ]),
  );
  const mem: [string, string][] = [['budget', fmtBytes(r.memory.budgetBytes)]];
  for (const [part, bytes] of Object.entries(r.memory.split)) mem.push([part, fmtBytes(bytes)]);
  out.push(section('memory', mem));
  const files = r.outputFiles;
  const skipped = r.inputs.filter((i) => i.skipped).map((i) => i.path);
  const outputs: [string, string][] = [
    ['directory', r.outDir],
    ['files', files.length <= 4 ? files.join(', ') || '(none)' : `${files.slice(0, 2).join(', ')}, ... ${files[files.length - 1]} (${fmtInt(files.length)})`],
  ];
  if (skipped.length > 0) outputs.push(['skipped inputs', `${skipped.join(', ')} (already ingested; --force to redo)`]);
  out.push(section('outputs', outputs));
  return out.join('\n');
}
