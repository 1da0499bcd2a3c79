// `npm run charts -- FILE.json...`: draws the benchmark's charts as SVG from
// the JSON the bench writes (`npm run bench -- --json FILE`) and/or the JSON
// of `scripts/scale-run.ts`: wall time and peak RSS of drum against each peer
// at the main size (10 M links) and at the scale size (100 M links), and the
// wall time of each batch as the store grows (the scale run's slices; when
// the slices grow with the store, their time per link and peak RSS). Rows
// and slices of all given files are pooled, later files winning. A chart
// whose data is absent is skipped with a note on stderr. Writes only the SVG
// files (default into docs/img/); measures nothing.
// Usage (after `tsc -p .`):
//   node dist/scripts/charts.js [--out DIR] FILE.json...

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { scriptArgs } from './lib/script-args.js';
import type { BenchRow } from './lib/bench/bench-report.js';
import type { SliceRow } from './scale-run.js';
import { barPanels, columnChart, type Bar, type Panel } from './lib/svg-chart.js';

const MiB = 1024 * 1024;
/** drum's default RAM budget, drawn as a marker when no run report says otherwise. */
const DEFAULT_BUDGET_BYTES = 256 * MiB;

/** What the charts need, pooled from every JSON given. */
export interface ChartData {
  rows: BenchRow[];
  slices: SliceRow[];
  /** Where the bench rows come from (commit or command), for the charts' notes. */
  rowSources: string[];
  /** Where the slices come from. */
  sliceSource: string;
}

/** A short name for a JSON's origin: its commit, else its command without paths. */
function sourceOf(j: { gitHead?: string | null; command?: string }): string {
  if (j.gitHead) return `commit ${j.gitHead.slice(0, 7)}`;
  return (j.command ?? 'bench JSON').replace(/^node dist\/scripts\//, '').replace(/ --(tmp|json) \S+/g, '');
}

/** Reads a bench JSON (rows, scaleSlices) or a scale-run JSON (slices). */
export function readChartData(texts: string[]): ChartData {
  const out: ChartData = { rows: [], slices: [], rowSources: [], sliceSource: '' };
  for (const text of texts) {
    const j = JSON.parse(text) as {
      rows?: BenchRow[]; slices?: SliceRow[]; scaleSlices?: { slices?: SliceRow[] } | null; gitHead?: string | null; command?: string;
    };
    const rows = (j.rows ?? []).filter((r) => r.status === 'ok' && r.wallMs !== null);
    // A later file's row replaces an earlier one of the same contender and dataset.
    for (const r of rows) out.rows = [...out.rows.filter((o) => !(o.id === r.id && o.dataset === r.dataset)), r];
    const slices = j.slices ?? j.scaleSlices?.slices ?? [];
    if (slices.length > 0) {
      out.slices = slices;
      out.sliceSource = sourceOf(j);
    }
    if (rows.length > 0) out.rowSources.push(sourceOf(j));
  }
  return out;
}

const NAMES: Record<string, string> = {
  drum: 'drum ingest',
  'drum-raw': 'drum ingest --canonical none',
  sort: 'LC_ALL=C sort -u',
  set: 'Node Set',
  level: 'LevelDB getMany + batch',
  duckdb: 'DuckDB anti-join',
  'duckdb-256': 'DuckDB (256 MB limit)',
  'drum-keys': 'drum ingest --no-values',
  'drum-resolve': 'drum resolve, 1 M URLs',
};

/** "10 M links", "100 M links", "200 k links". */
export function linksLabel(n: number): string {
  if (n >= 1e6) return `${+(n / 1e6).toFixed(1)} M links`;
  if (n >= 1e3) return `${+(n / 1e3).toFixed(1)} k links`;
  return `${n} links`;
}

/** The panels of one measure: the main dataset (plus the second batch) and the scale dataset. */
function panels(d: ChartData, value: (r: BenchRow) => number | null, text: (r: BenchRow, v: number) => string): Panel[] {
  const out: Panel[] = [];
  for (const dataset of ['main', 'scale'] as const) {
    const rows = d.rows.filter((r) => r.dataset === dataset || (dataset === 'main' && r.dataset === 'batch2'));
    const bars: Bar[] = [];
    for (const r of rows) {
      const v = value(r);
      if (v === null) continue;
      const base = NAMES[r.id] ?? r.label;
      const name = r.dataset === 'batch2' ? `${base}, 2nd batch` : base;
      bars.push({ label: name, value: v, highlight: r.id.startsWith('drum'), text: text(r, v) });
    }
    const main = rows.find((r) => r.dataset === dataset);
    if (bars.length > 0 && main) out.push({ title: linksLabel(main.links), bars });
  }
  return out;
}

/** The budget a drum row ran with (its report's memory.budgetBytes), else drum's default. */
function budgetOf(d: ChartData): number {
  for (const r of d.rows) {
    const b = (r.report as { memory?: { budgetBytes?: number } } | undefined)?.memory?.budgetBytes;
    if (r.id === 'drum' && typeof b === 'number') return b;
  }
  return DEFAULT_BUDGET_BYTES;
}

/** Every chart the data allows: file name -> SVG text. */
export function drawCharts(d: ChartData): Map<string, string> {
  const svgs = new Map<string, string>();
  const from = `Figures: ${d.rowSources.join(', ')} (npm run bench; docs/performance.md). Lower is better.`;
  const wall = panels(d, (r) => r.wallMs! / 1000, (r, v) => `${r.extrapolated ? '~' : ''}${v.toFixed(2)} s`);
  if (wall.length > 0) svgs.set('bench-wall.svg', barPanels('Wall time: drum and its peers', 's', wall, from));
  const budget = budgetOf(d);
  const rss = panels(d, (r) => (r.peakRssBytes === null ? null : r.peakRssBytes / MiB), (_r, v) => `${v.toLocaleString('en-US', { maximumFractionDigits: 0 })} MiB`)
    .map((p) => ({ ...p, marker: { value: budget / MiB, label: `drum's budget (--memory ${budget / MiB} MiB)` } }));
  if (rss.length > 0) svgs.set('bench-rss.svg', barPanels('Peak RSS: drum and its peers', 'MiB', rss, from));
  const grows = d.slices.some((s) => s.links !== d.slices[0]!.links);
  if (grows) drawGrowingSlices(d, budget, svgs);
  else if (d.slices.length > 0) {
    const size = d.slices[0]!.links;
    const cols = d.slices.map((s) => ({
      label: `#${s.slice}`,
      sublabel: `${(s.storeUrlsBefore / 1e6).toFixed(2)} M`,
      value: s.wallMs / 1000,
      ...(s.cpuMs === null ? {} : { value2: s.cpuMs / 1000 }),
    }));
    svgs.set('batch-time.svg', columnChart(`Time per batch of ${linksLabel(size)} into one growing store`, 's per batch', cols,
      `Under each batch: URLs in the store before it. One drum process per batch; CPU is user + sys (GNU time).\nFigures: ${d.sliceSource}.`,
      ['wall time', 'CPU time']));
  }
  return svgs;
}

/**
 * A streamed run whose slices grow with the store: time per link of each
 * slice (its batch size differs) and each slice's peak RSS against the budget.
 */
function drawGrowingSlices(d: ChartData, budget: number, svgs: Map<string, string>): void {
  const note = (what: string): string => `${what}\nUnder each slice: its links, and the URLs in the store before it. Figures: ${d.sliceSource}.`;
  const sub = (s: SliceRow): string => `${(s.storeUrlsBefore / 1e6).toFixed(0)} M`;
  const label = (s: SliceRow): string => `${(s.links / 1e6).toFixed(0)}M`;
  svgs.set('scale-time.svg', columnChart('Time per link of each slice, the slice growing with the store', 'µs per link', d.slices.map((s) => ({
    label: label(s), sublabel: sub(s), value: (s.wallMs * 1000) / s.links,
    ...(s.cpuMs === null ? {} : { value2: (s.cpuMs * 1000) / s.links }),
  })), note('One drum process per slice; CPU is user + sys (GNU time).'), ['wall time', 'CPU time']));
  const rss = d.slices.filter((s) => s.peakRssBytes !== null);
  if (rss.length > 0) {
    svgs.set('scale-rss.svg', columnChart('Peak RSS of each slice', 'MiB', rss.map((s) => ({ label: label(s), sublabel: sub(s), value: s.peakRssBytes! / MiB })),
      note('GNU time\'s maximum resident set (a host-table fold\'s child process included).'), [''], { value: budget / MiB, label: `budget (--memory ${budget / MiB} MiB)` }));
  }
}

if (process.argv[1]?.endsWith('charts.js')) {
  const { values, positionals } = scriptArgs(import.meta.url, { options: { out: { type: 'string', default: 'docs/img' } }, allowPositionals: true });
  if (positionals.length === 0) {
    process.stderr.write('usage: npm run charts -- [--out DIR] BENCH.json [SCALE-RUN.json ...]\n');
    process.exit(2);
  }
  const data = readChartData(positionals.map((p) => readFileSync(p, 'utf8')));
  const svgs = drawCharts(data);
  const dir = resolve(values.out!);
  mkdirSync(dir, { recursive: true });
  for (const [name, svg] of svgs) {
    writeFileSync(join(dir, name), svg);
    process.stderr.write(`wrote ${join(dir, name)}\n`);
  }
  for (const name of ['bench-wall.svg', 'bench-rss.svg', 'batch-time.svg', 'scale-time.svg', 'scale-rss.svg']) {
    if (!svgs.has(name)) process.stderr.write(`skipped ${name}: no data for it in the given JSON\n`);
  }
}
