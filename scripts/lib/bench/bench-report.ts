// Bench-only result shapes, the printed table, each row's ratio to sort -u,
// the checks of drum's speed and memory goals (PASS/FAIL/SKIP per goal) and
// of the contenders' agreement on unique counts. Pure functions over rows;
// runs nothing.

import type { GenMeta } from '../../gen-links.js';

export interface BenchRow {
  /** Stable id: drum, drum-raw, sort, set, level, drum-incremental, ... */
  id: string;
  dataset: 'main' | 'small' | 'batch2' | 'heritrix' | 'scale';
  label: string;
  links: number;
  wallMs: number | null;
  linksPerSec: number | null;
  /** user + sys CPU time of the process tree (GNU time); steadier than wall on a busy machine. */
  cpuMs: number | null;
  cpuPct: number | null;
  peakRssBytes: number | null;
  bytesWritten: number | null;
  unique: number | null;
  /** wall / wall of `sort -u` on the same file. */
  ratioToSort: number | null;
  /** Wall time is extrapolated from a measured prefix (see note). */
  extrapolated: boolean;
  status: 'ok' | 'failed' | 'skipped' | 'unavailable' | 'timeout';
  note: string;
  /** drum rows: the RunReport printed by `drum ingest --json`. */
  report?: unknown;
}

export interface Goal {
  id: string;
  text: string;
  target: string;
  measured: string;
  verdict: 'PASS' | 'FAIL' | 'SKIP';
}

const MiB = 1024 * 1024;

function fmtNum(x: number | null, digits = 0): string {
  if (x === null || !Number.isFinite(x)) return '-';
  return x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

export function formatTable(rows: BenchRow[]): string {
  const head = ['run', 'dataset', 'links', 'wall s', 'links/s', 'CPU s', 'CPU %', 'peak RSS MiB', 'written MiB', 'unique', '× sort', 'note'];
  const body = rows.map((r) => [
    r.label,
    r.dataset,
    fmtNum(r.links),
    r.wallMs === null ? r.status : (r.extrapolated ? '~' : '') + fmtNum(r.wallMs / 1000, 2),
    (r.extrapolated ? '~' : '') + fmtNum(r.linksPerSec),
    r.cpuMs === null ? '-' : (r.extrapolated ? '~' : '') + fmtNum(r.cpuMs / 1000, 1),
    fmtNum(r.cpuPct),
    r.peakRssBytes === null ? '-' : fmtNum(r.peakRssBytes / MiB, 1),
    r.bytesWritten === null ? '-' : fmtNum(r.bytesWritten / MiB, 1),
    fmtNum(r.unique),
    r.ratioToSort === null ? '-' : (r.extrapolated ? '~' : '') + fmtNum(r.ratioToSort, 2),
    r.note,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]): string =>
    '| ' + cells.map((c, i) => (i >= 2 && i <= 10 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ') + ' |';
  const sep = '|' + widths.map((w, i) => (i >= 2 && i <= 10 ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|') + '|';
  return [line(head), sep, ...body.map(line)].join('\n');
}

/** The run with the median wall time among repeats; its note lists every wall time. */
export function medianRow(runs: BenchRow[]): BenchRow {
  if (runs.length === 1) return runs[0]!;
  const ok = runs.filter((r) => r.status === 'ok' && r.wallMs !== null);
  if (ok.length === 0) return runs[runs.length - 1]!;
  const sorted = [...ok].sort((a, b) => a.wallMs! - b.wallMs!);
  const mid = sorted[(sorted.length - 1) >> 1]!;
  // Times are the median run's; peak RSS is the worst of the repeats (the memory goal is a bound).
  const rss = ok.map((r) => r.peakRssBytes).filter((x): x is number => x !== null);
  const peakRssBytes = rss.length > 0 ? Math.max(...rss) : mid.peakRssBytes;
  return { ...mid, peakRssBytes, note: `median of ${runs.length} (${ok.map((r) => (r.wallMs! / 1000).toFixed(1)).join('/')} s); ${mid.note}` };
}

export function findRow(rows: BenchRow[], id: string, dataset: BenchRow['dataset']): BenchRow | undefined {
  return rows.find((r) => r.id === id && r.dataset === dataset && r.status === 'ok' && r.wallMs !== null);
}

function goal(id: string, text: string, target: string, measured: number | null, ok: (x: number) => boolean, fmt: (x: number) => string, why = ''): Goal {
  if (measured === null || !Number.isFinite(measured)) return { id, text, target, measured: why || 'not measured', verdict: 'SKIP' };
  return { id, text, target, measured: fmt(measured), verdict: ok(measured) ? 'PASS' : 'FAIL' };
}

const ratio = (a: BenchRow | undefined, b: BenchRow | undefined): number | null =>
  a && b && a.wallMs !== null && b.wallMs ? a.wallMs / b.wallMs : null;
const cpuRatio = (a: BenchRow | undefined, b: BenchRow | undefined): string =>
  a && b && a.cpuMs !== null && b.cpuMs ? ` (CPU-time ratio ${(a.cpuMs / b.cpuMs).toFixed(2)}×)` : '';

/**
 * Evaluates drum's goals; `links` names the main run's size (goals are stated at 10 M);
 * `library10kMs` is the median 10 k-link batch through one open Drum (null: not run).
 */
export function checkGoals(rows: BenchRow[], links: number, scaleLinks: number | null, library10kMs: number | null = null,
  slices: readonly { links: number; linksBefore: number; cumulativeNsPerLink: number; peakRssBytes: number | null }[] | null = null): Goal[] {
  const at = links === 10_000_000 ? '10 M' : `${fmtNum(links)} (goal stated at 10 M)`;
  const sort = findRow(rows, 'sort', 'main');
  const drum = findRow(rows, 'drum', 'main');
  const raw = findRow(rows, 'drum-raw', 'main');
  const keys = findRow(rows, 'drum-keys', 'main');
  const level = findRow(rows, 'level', 'main');
  const incr = findRow(rows, 'drum', 'batch2');
  // A streamed scale run is judged by its own goals (below), not against the 10 M file.
  const scale = slices && slices.length > 0 ? undefined : findRow(rows, 'drum', 'scale');
  const small = findRow(rows, 'drum', 'small');
  const perLink = (r: BenchRow | undefined): number | null => (r && r.wallMs !== null ? r.wallMs / r.links : null);
  const pl = perLink(small), pm = perLink(drum);
  const x = (v: number): string => `${v.toFixed(2)}×`;
  const xc = (a: BenchRow | undefined, b: BenchRow | undefined) => (v: number): string => x(v) + cpuRatio(a, b);
  const goals = [
    goal('default-vs-sort', `drum default wall / sort -u wall at ${at}`, '≤ 0.67×', ratio(drum, sort), (v) => v <= 0.67, xc(drum, sort)),
    goal('raw-vs-sort', `drum --canonical none wall / sort -u wall at ${at}`, '≤ 0.50×', ratio(raw, sort), (v) => v <= 0.5, xc(raw, sort)),
    goal('vs-level', `level peer wall / drum default wall at ${at}${level?.extrapolated ? ' (level extrapolated)' : ''}`, '≥ 15×', ratio(level, drum), (v) => v >= 15, xc(level, drum)),
    goal('rss', `drum default (with values) peak RSS at ${at}`, '≤ 256 MiB', drum?.peakRssBytes ?? null, (v) => v <= 256 * MiB, (v) => `${(v / MiB).toFixed(1)} MiB`),
    goal('values-vs-keys', `drum default (with values) wall / drum --no-values wall at ${at}`, '≤ 1.5×', ratio(drum, keys), (v) => v <= 1.5, xc(drum, keys)),
    goal('incremental', 'second batch into the first batch\'s store / first batch', '≤ 1.25×', ratio(incr, drum), (v) => v <= 1.25, xc(incr, drum)),
    goal('scale', `${scaleLinks ? fmtNum(scaleLinks) : '100 M'} links / ${at} wall`, '≤ 12×', ratio(scale, drum), (v) => v <= 12, xc(scale, drum),
      scaleLinks ? '' : 'run with --scale'),
    goal('scale-rss', 'drum default peak RSS at scale', '≤ 256 MiB', scale?.peakRssBytes ?? null, (v) => v <= 256 * MiB,
      (v) => `${(v / MiB).toFixed(1)} MiB`, scaleLinks ? '' : 'run with --scale'),
    goal('small-batch', `per-link wall at ${small ? fmtNum(small.links) : '1 M'} links / per-link wall at ${at}`, '≤ 1.25×',
      pl !== null && pm ? pl / pm : null, (v) => v <= 1.25, x, small ? '' : 'not run'),
    goal('library-10k', '10 k-link batch through one open Drum on the main store (median of 10)', '≤ 150 ms', library10kMs,
      (v) => v <= 150, (v) => `${v} ms`, library10kMs === null ? 'not run' : ''),
  ];
  if (slices && slices.length > 0) {
    // Streamed scale run: cumulative time per link at the end against at 10^8 links.
    const at1e8 = slices.find((r) => r.linksBefore + r.links >= 100_000_000);
    const last = slices[slices.length - 1]!;
    const done = last.linksBefore + last.links;
    goals.push(
      goal('scale-stream', `time per link at ${fmtNum(done)} links / at 100 M (one store, streamed)`, '≤ 1.3×',
        at1e8 && at1e8 !== last ? last.cumulativeNsPerLink / at1e8.cumulativeNsPerLink : null, (v) => v <= 1.3, x, 'needs more than 100 M links'),
      goal('scale-stream-rss', 'drum peak RSS over every slice of the streamed run', '≤ 256 MiB',
        Math.max(...slices.map((r) => r.peakRssBytes ?? 0)) || null, (v) => v <= 256 * MiB, (v) => `${(v / MiB).toFixed(1)} MiB`),
    );
  }
  return goals;
}

export function formatGoals(goals: Goal[]): string {
  return goals.map((g) => `${g.verdict.padEnd(4)}  ${g.text}: ${g.measured} (goal ${g.target})`).join('\n');
}

/** One line per drum row: where its time went, from the report's `stages`. */
export function formatStages(rows: BenchRow[]): string {
  const out: string[] = [];
  for (const r of rows) {
    const st = (r.report as { stages?: Record<string, { ms: number; items: number }> } | undefined)?.stages;
    if (!st) continue;
    out.push(`${r.label} [${r.dataset}] stages: ` + Object.entries(st).map(([k, v]) => `${k} ${(v.ms / 1000).toFixed(1)} s`).join(', '));
  }
  return out.join('\n');
}

/** Sets each ok row's wall / the wall of `sort -u` on its file (batch 2 against the main file's). */
export function fillRatiosToSort(rows: BenchRow[]): void {
  for (const r of rows) {
    const sort = rows.find((s) => s.id === 'sort' && s.dataset === (r.dataset === 'batch2' ? 'main' : r.dataset) && s.status === 'ok');
    if (sort?.wallMs && r.wallMs !== null && r.status === 'ok') r.ratioToSort = Math.round((r.wallMs / sort.wallMs) * 100) / 100;
  }
}

/**
 * Exact-dedup contenders must agree on the unique count of each file, and
 * drum's default policy should find the generator's model count (the model
 * folds exactly the variants the default policy folds).
 */
export function checkAgreement(rows: BenchRow[], datasets: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const [ds, key] of [['main', 'unique'], ['batch2', 'newVsPrevious'], ['scale', 'unique']] as const) {
    const meta = datasets[ds] as GenMeta | undefined;
    const want = (meta?.[key] as GenMeta['unique'] | null | undefined)?.defaultPolicy;
    const drum = rows.find((r) => r.id === 'drum' && r.dataset === ds && r.status === 'ok');
    if (want === undefined || drum?.unique == null) continue;
    out.push(`${drum.unique === want ? 'AGREE' : 'DIFFER'}  drum default new URLs on ${ds}: ${drum.unique} vs generator model ${want}`);
  }
  for (const ds of ['main', 'heritrix', 'scale'] as const) {
    const exact = rows.filter((r) => r.dataset === ds && ['sort', 'set', 'level', 'duckdb', 'duckdb-256', 'drum-raw'].includes(r.id) && r.status === 'ok' && r.unique !== null);
    if (exact.length < 2) continue;
    const vals = new Set(exact.map((r) => r.unique));
    out.push(`${vals.size === 1 ? 'AGREE' : 'MISMATCH'}  exact unique count on ${ds}: ${exact.map((r) => `${r.id}=${r.unique}`).join(', ')}`);
  }
  return out;
}
