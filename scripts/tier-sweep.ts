// Measures the in-RAM front tiers through the real engine: hot-cache / recent-table hit rates and the fraction of URL
// tests answered in RAM by hot-cache size (2^10 … 2^20, recent table at its
// default and off, and cache off), and the Bloom gate's observed vs expected
// false-positive rate by bits per key (gate and lossy modes, a second batch
// against a store holding the first). Synthetic crawl (gen-links) and the
// Heritrix outlinks. Prints Markdown for docs/tiers.md; optionally writes
// JSON, an SVG chart and (with rsvg-convert) a PNG. Not a test: no asserts.
// Runs one engine run at a time. Usage: see USAGE below.

import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { DEFAULTS, type DrumOptions } from '../src/options.js';
import { bloomSweep, cacheSweep, heritrixDatasets, syntheticDataset, type BloomRow, type CacheConfig, type SweepContext } from './lib/tiers/tier-runs.js';
import { bloomTables, cacheTable, chartSvg, type Scenario } from './lib/tiers/tier-report.js';

const USAGE = `usage: node dist/scripts/tier-sweep.js [--links 2000000] [--seed 1] [--work DIR]
  [--heritrix PATH|none] [--sizes 10,12,14,16,18,20] [--bits 4,6,8,10,12,16]
  [--round-entries 16384] [--only fresh,rounds,second,warm,heritrix,bloom[,recent]]
  [--recent 20,off (recent-table sizes of the cache sweep)] [--recent-sizes 16,18,20,22 (the 'recent' part)]
  [--workers N] [--md FILE] [--json FILE] [--svg FILE (also FILE.png via rsvg-convert)]
  or, to redraw the chart from saved results without running anything:
  node dist/scripts/tier-sweep.js --plot a.json,b.json [--plot-ids syn-rounds,1:syn-fresh] --svg FILE
  (an id may be prefixed with the 0-based index of its --plot file)
`;

export interface SweepOptions {
  links: number;
  seed: number;
  work: string;
  /** Path of outlinks.tsv, or null to skip the real-data runs. */
  heritrix: string | null;
  sizes: number[];
  /** Recent-table sizes (entries) each cache size is run with. Default [2^20, 0]. */
  recents?: number[];
  /** The 'recent' part: log2 recent-table sizes swept with the cache at its default. */
  recentSizes?: number[];
  bits: number[];
  /** maxRoundEntries of the many-merges scenario. */
  roundEntries: number;
  /** Parts to run: fresh, rounds, second, warm, heritrix, bloom (Bloom on Heritrix halves runs with heritrix + bloom), recent. */
  only: Set<string>;
  /** Engine options shared by every run (fsync off). */
  base: DrumOptions;
  log?: (line: string) => void;
}

export interface SweepResult {
  options: Omit<SweepOptions, 'log' | 'only'> & { only: string[] };
  scenarios: Scenario[];
  bloom: BloomRow[];
  elapsedMs: number;
}

/** Configurations of one cache sweep: recent table at its default, then off; in each, cache off then each size. */
export function cacheConfigs(sizes: number[], recents: number[] = [DEFAULTS.recentEntries, 0]): CacheConfig[] {
  const out: CacheConfig[] = [];
  for (const recentEntries of recents) {
    out.push({ cacheEntries: 0, recentEntries });
    for (const l of sizes) out.push({ cacheEntries: 2 ** l, recentEntries });
  }
  return out;
}

export async function runSweep(o: SweepOptions): Promise<SweepResult> {
  const t0 = performance.now();
  const log = o.log ?? ((): void => {});
  mkdirSync(o.work, { recursive: true });
  const ctx: SweepContext = { work: o.work, base: { fsync: false, ...o.base }, log };
  const syn = await syntheticDataset(o.work, o.links, o.seed, log);
  const her = o.heritrix !== null && existsSync(o.heritrix) ? heritrixDatasets(o.work, o.heritrix) : null;
  const cfgs = cacheConfigs(o.sizes, o.recents);
  const n = o.links.toLocaleString('en-US');
  const short = o.links % 1e6 === 0 ? `${o.links / 1e6}M` : n;
  const scenarios: Scenario[] = [];
  if (o.only.has('fresh')) scenarios.push({
    id: 'syn-fresh', short: `synthetic ${short}, fresh`,
    title: `Synthetic crawl, ${n} links into an empty store (default budget)`,
    rows: await cacheSweep(ctx, 'syn-fresh', syn, cfgs, { second: false }),
  });
  if (o.only.has('rounds')) {
    scenarios.push({
      id: 'syn-rounds', short: `synthetic ${short}, ${o.roundEntries.toLocaleString('en-US')}/round`,
      title: `Synthetic crawl, ${n} links into an empty store, a merge every ${o.roundEntries.toLocaleString('en-US')} pending URLs (tuning.maxRoundEntries)`,
      rows: await cacheSweep(ctx, 'syn-rounds', syn, cfgs, { second: false, tuning: { maxRoundEntries: o.roundEntries } }),
    });
  }
  if (o.only.has('second')) {
    scenarios.push({
      id: 'syn-second', short: `synthetic ${short} batch 2, cold`,
      title: `Synthetic crawl, batch 2 (${n} links) into a store holding batch 1 (new process: tiers start empty)`,
      rows: await cacheSweep(ctx, 'syn-second', syn, cfgs, { second: true }),
    });
  }
  if (o.only.has('warm')) {
    scenarios.push({
      id: 'syn-warm', short: `synthetic ${short} batch 2, warm`,
      title: `Synthetic crawl, batch 2 (${n} links) after batch 1 through the same open store (tiers warm from batch 1; recent table at its default)`,
      rows: await cacheSweep(ctx, 'syn-warm', syn, cacheConfigs(o.sizes, [DEFAULTS.recentEntries]), { second: false, warm: true }),
    });
  }
  if (o.only.has('recent')) {
    const rc = (o.recentSizes ?? [16, 18, 20, 22]).map((l) => ({ cacheEntries: DEFAULTS.cacheEntries, recentEntries: 2 ** l }));
    scenarios.push({
      id: 'syn-recent', short: `synthetic ${short}, recent sizes`,
      title: `Recent-table size, hot cache at its default 2^18: synthetic crawl, ${n} links into an empty store`,
      rows: await cacheSweep(ctx, 'syn-recent', syn, rc, { second: false }),
    });
  }
  if (her !== null && o.only.has('heritrix')) {
    scenarios.push({
      id: 'heritrix', short: 'Heritrix outlinks',
      title: `Heritrix outlinks.tsv, ${her.whole.links.toLocaleString('en-US')} links into an empty store`,
      rows: await cacheSweep(ctx, 'heritrix', her.whole, cfgs, { second: false }),
    });
  }
  const bloom = o.only.has('bloom') ? await bloomSweep(ctx, syn, o.bits) : [];
  if (her !== null && o.only.has('bloom') && o.only.has('heritrix')) bloom.push(...(await bloomSweep(ctx, her.halves, o.bits)));
  const { log: _log, only, ...rest } = o;
  return { options: { ...rest, only: [...only] }, scenarios, bloom, elapsedMs: Math.round(performance.now() - t0) };
}

export function renderMarkdown(r: SweepResult): string {
  const parts = ['### Hit rate by hot-cache size', ''];
  for (const s of r.scenarios) parts.push(cacheTable(s), '');
  if (r.bloom.length > 0) parts.push('### Bloom gate: observed vs expected false-positive rate', '', bloomTables(r.bloom));
  parts.push(`Sweep wall time: ${(r.elapsedMs / 1000).toFixed(0)} s.`, '');
  return parts.join('\n');
}

const list = (s: string): number[] => s.split(',').map((x) => Number(x.trim()));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      links: { type: 'string', default: '2000000' },
      seed: { type: 'string', default: '1' },
      work: { type: 'string', default: '/tmp/drum-tier-sweep' },
      heritrix: { type: 'string', default: path.resolve(process.cwd(), '../shared/datasets/heritrix-archive-org-2008/outlinks.tsv') },
      sizes: { type: 'string', default: '10,12,14,16,18,20' },
      bits: { type: 'string', default: '4,6,8,10,12,16' },
      'round-entries': { type: 'string', default: '16384' },
      only: { type: 'string', default: 'fresh,rounds,second,warm,heritrix,bloom' },
      recent: { type: 'string', default: '20,off' },
      'recent-sizes': { type: 'string', default: '16,18,20,22' },
      workers: { type: 'string' },
      md: { type: 'string' },
      json: { type: 'string' },
      svg: { type: 'string' },
      plot: { type: 'string' },
      'plot-ids': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (values.plot) {
    if (!values.svg) throw new Error('--plot needs --svg FILE');
    const ids = values['plot-ids'] ? new Set(values['plot-ids'].split(',')) : null;
    const all = values.plot.split(',').flatMap((f, i) =>
      (JSON.parse(readFileSync(f, 'utf8')) as SweepResult).scenarios.filter((s) => ids === null || ids.has(s.id) || ids.has(`${i}:${s.id}`)));
    writeChart(values.svg, all);
    return;
  }
  const base: DrumOptions = values.workers === undefined ? {} : { workers: Number(values.workers) };
  const o: SweepOptions = {
    links: Number(values.links), seed: Number(values.seed), work: path.resolve(values.work),
    heritrix: values.heritrix === 'none' ? null : values.heritrix, sizes: list(values.sizes), bits: list(values.bits),
    recents: values.recent.split(',').map((x) => (x.trim() === 'off' ? 0 : 2 ** Number(x))), recentSizes: list(values['recent-sizes']),
    roundEntries: Number(values['round-entries']), only: new Set(values.only.split(',')), base,
    log: (line) => process.stderr.write(`${line}\n`),
  };
  if (o.heritrix !== null && !existsSync(o.heritrix)) process.stderr.write(`note: ${o.heritrix} not found; Heritrix runs skipped\n`);
  process.stderr.write(`tier sweep: ${o.links} synthetic links, ${cpus().length} cores, node ${process.version}\n`);
  const r = await runSweep(o);
  const md = renderMarkdown(r);
  process.stdout.write(md);
  if (values.md) writeFileSync(values.md, md);
  if (values.json) writeFileSync(values.json, `${JSON.stringify(r, null, 2)}\n`);
  if (values.svg) writeChart(values.svg, r.scenarios);
}

/** Writes the SVG chart and, when rsvg-convert is installed, a PNG beside it. */
function writeChart(svg: string, scenarios: Scenario[]): void {
  writeFileSync(svg, chartSvg(scenarios, DEFAULTS.recentEntries));
  const png = `${svg.replace(/\.svg$/, '')}.png`;
  const c = spawnSync('rsvg-convert', ['-o', png, svg], { stdio: 'inherit' });
  if (c.error || c.status !== 0) process.stderr.write(`note: rsvg-convert unavailable or failed; wrote ${svg} only\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e: unknown) => {
    process.stderr.write(`${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
    process.exit(1);
  });
}
