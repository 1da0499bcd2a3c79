// Runs the real engine (Drum, in-process, one run at a time) for the tier
// sweep of scripts/tier-sweep.ts and reduces each run's report to one row:
// a cache/recent-table configuration on one scenario, or a Bloom bits-per-key
// setting in gate or lossy mode on a second batch checked against a store
// that already holds the first. Prepares its inputs (synthetic batches via
// generateLinks, Heritrix halves) in a work directory and reuses them.
// Does not print or format anything; does not assert (rows carry checks).
// Preconditions: the work directory is private to this sweep; runs are
// sequential (the shared machine has 2 cores).

import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../../src/engine/drum.js';
import type { RunReport } from '../../../src/engine/api.js';
import type { DrumOptions, Tuning } from '../../../src/options.js';
import { blockedFpRate, optimalK, BLOCK_BYTES } from '../../../src/tiers/bloom.js';
import { HEADER_BYTES } from '../../../src/tiers/bloom-file.js';
import { generateLinks, type GenMeta } from '../../gen-links.js';

/** One dataset: a first batch and (for the second-batch scenarios) a second. */
export interface Dataset {
  name: string;
  batch1: string;
  batch2: string;
  /** Links in batch1 (for labels). */
  links: number;
}

export interface CacheRow {
  scenario: string;
  cacheEntries: number;
  recentEntries: number;
  tests: number;
  /** In-chunk repeats answered by the parse worker before the hot cache (engine tier since 68015ef; 0 before). */
  chunkHits: number;
  cacheHits: number;
  /** Of all URL tests. */
  cacheHitRate: number;
  recentLookups: number;
  recentHits: number;
  /** Of the recent table's own lookups (the report's hitRate). */
  recentHitRate: number;
  /** Recent hits over all URL tests (Mercator's 9.5% is of this kind). */
  recentOfAll: number;
  answeredInRam: number;
  diskLookups: number;
  diskHits: number;
  merges: number;
  uniqueUrls: number;
  elapsedMs: number;
}

export interface BloomRow {
  dataset: string;
  bitsPerKey: number;
  k: number;
  /** Filter in use when batch 2 starts (rebuilt by batch 1's last merge). */
  blocks: number;
  keysAtStart: number;
  definitelyNew: number;
  maybeSeen: number;
  falsePositives: number;
  observedFpRate: number;
  /** Blocked-formula rate of a filter holding exactly bitsPerKey bits per key. */
  nominal: number;
  /** The report's expectedFpRate: the rate the filter's fill predicted for the new URLs that met it. */
  expectedReport: number;
  /**
   * Mean blocked-formula FP rate over batch 2's fill of the filter it used
   * (one-merge runs; else NaN). The i-th new URL meets the filter holding
   * keysAtStart + i keys' bits, up to its capacity (blocks · 512 / bits per
   * key), which the engine does not fill past: a false positive's bits are
   * all set already, so skipping its add changes no bit (the filter's `keys`
   * counter lags, and reaches its capacity a few keys later).
   */
  expectedFill: number;
  /** Exact (gate) unique count of batch 2; equals definitelyNew + falsePositives. */
  exactUnique: number;
  merges: number;
  lossyUnique: number;
  wronglyDropped: number;
  expectedWronglyDroppedReport: number;
  /** exactUnique × expectedFill: each new URL is tested once at the filter's fill of that moment. */
  expectedWronglyDroppedFill: number;
  lossyAnsweredInRam: number;
  gateAnsweredInRam: number;
}

export interface SweepContext {
  work: string;
  /** Base engine options for every run (fsync off; workers default). */
  base: DrumOptions;
  log: (line: string) => void;
}

let runSeq = 0;

/**
 * Ingest runs of the inputs, in order, through one open Drum (so its RAM
 * tiers carry over from run to run); returns the last run's report. Outputs
 * go to scratch dirs that are removed.
 */
// The key journal is off in every sweep: it answers a small round's repeats of earlier rounds, which is
// what the cache, recent table and Bloom filter are measured on (docs/tiers.md).
export async function ingestOnce(ctx: SweepContext, stateDir: string, input: string | string[], opts: DrumOptions): Promise<RunReport> {
  // The sweep studies the cache, recent table and Bloom filter: the line memo in front of them is off.
  const d = await Drum.open(stateDir, { lineMemoEntries: 0, journalKeys: 0, ...ctx.base, ...opts });
  let report: RunReport | null = null;
  try {
    for (const i of typeof input === 'string' ? [input] : input) {
      const outDir = join(ctx.work, `out-${process.pid}-${runSeq++}`);
      try {
        report = await d.ingest({ inputs: [i], outDir });
      } finally {
        rmSync(outDir, { recursive: true, force: true });
      }
    }
  } finally {
    await d.close();
  }
  return report!;
}

function freshDir(ctx: SweepContext, name: string): string {
  const dir = join(ctx.work, name);
  rmSync(dir, { recursive: true, force: true });
  return dir;
}

function cacheRow(scenario: string, cacheEntries: number, recentEntries: number, r: RunReport): CacheRow {
  const tests = r.linksRead - r.rejectedLines;
  const t = r.tiers;
  return {
    scenario, cacheEntries, recentEntries, tests,
    chunkHits: (t as { chunkDedup?: { hits: number } }).chunkDedup?.hits ?? 0,
    cacheHits: t.hotCache.hits, cacheHitRate: t.hotCache.hits / tests,
    recentLookups: t.recentTable.lookups, recentHits: t.recentTable.hits, recentHitRate: t.recentTable.hitRate,
    recentOfAll: t.recentTable.hits / tests,
    answeredInRam: r.answeredInRam, diskLookups: r.disk.lookups, diskHits: r.disk.hits,
    merges: r.io.merges, uniqueUrls: r.uniqueUrls, elapsedMs: r.elapsedMs,
  };
}

export interface CacheConfig {
  cacheEntries: number;
  recentEntries: number;
}

/**
 * Cache sweep on one scenario. `second`: batch 1 is ingested once (default
 * tiers) and each configuration ingests batch 2 into a copy of that store;
 * `warm`: each configuration ingests batch 1 then batch 2 through one open
 * store (tiers warm from batch 1) and reports batch 2; else each
 * configuration ingests batch 1 into a fresh store.
 */
export async function cacheSweep(
  ctx: SweepContext, scenario: string, ds: Dataset, configs: CacheConfig[], o: { second: boolean; warm?: boolean; tuning?: Tuning },
): Promise<CacheRow[]> {
  let seed: string | null = null;
  if (o.second) {
    seed = freshDir(ctx, 'seed-store');
    await ingestOnce(ctx, seed, ds.batch1, { tuning: o.tuning });
  }
  const rows: CacheRow[] = [];
  for (const cfg of configs) {
    const dir = freshDir(ctx, 'store');
    if (seed !== null) cpSync(seed, dir, { recursive: true });
    const input = o.warm ? [ds.batch1, ds.batch2] : o.second ? ds.batch2 : ds.batch1;
    const r = await ingestOnce(ctx, dir, input, { ...cfg, tuning: o.tuning });
    const row = cacheRow(scenario, cfg.cacheEntries, cfg.recentEntries, r);
    ctx.log(`${scenario} cache=${cfg.cacheEntries} recent=${cfg.recentEntries}: cache ${pct(row.cacheHitRate)} recent ${pct(row.recentOfAll)} inRam ${pct(row.answeredInRam)} disk ${row.diskLookups} merges ${row.merges} ${row.elapsedMs} ms`);
    rows.push(row);
    rmSync(dir, { recursive: true, force: true });
  }
  if (seed !== null) rmSync(seed, { recursive: true, force: true });
  return rows;
}

/**
 * Mean of the blocked-formula FP rate met by `added` new keys as the filter
 * fills from `n0` keys (64-step midpoint rule), up to `capacity` keys: the
 * engine adds none past it, so the rest meet it at that fill.
 */
export function meanFpOverFill(blocks: number, k: number, n0: number, added: number, capacity = Number.POSITIVE_INFINITY): number {
  const filling = Math.max(0, Math.min(added, capacity - n0));
  const steps = 64;
  let s = 0;
  for (let i = 0; i < steps; i++) s += blockedFpRate(blocks, n0 + ((i + 0.5) * filling) / steps, k);
  const full = added - filling;
  if (added === 0) return blockedFpRate(blocks, n0, k);
  return ((s / steps) * filling + blockedFpRate(blocks, n0 + filling, k) * full) / added;
}

/**
 * Bloom sweep: per bits/key, batch 1 into a fresh store in gate mode (its
 * merge builds the filter), then batch 2 in gate mode (exact) and, on a copy
 * of the same store, in lossy mode.
 */
export async function bloomSweep(ctx: SweepContext, ds: Dataset, bits: number[]): Promise<BloomRow[]> {
  const rows: BloomRow[] = [];
  for (const b of bits) {
    const opts: DrumOptions = { bloom: 'gate', bloomBitsPerKey: b };
    const gateDir = freshDir(ctx, 'bloom-gate');
    await ingestOnce(ctx, gateDir, ds.batch1, opts);
    const d = await Drum.open(gateDir, { lineMemoEntries: 0, journalKeys: 0, ...ctx.base, ...opts });
    const st = await d.stats();
    await d.close();
    const bl = st.bloom!;
    const blocks = (bl.sizeBytes - HEADER_BYTES) / BLOCK_BYTES;
    const lossyDir = freshDir(ctx, 'bloom-lossy');
    cpSync(gateDir, lossyDir, { recursive: true });
    const g = await ingestOnce(ctx, gateDir, ds.batch2, opts);
    const l = await ingestOnce(ctx, lossyDir, ds.batch2, { ...opts, bloom: 'lossy' });
    const gb = g.tiers.bloom;
    const k = optimalK(b);
    const fill = g.io.merges === 1 ? meanFpOverFill(blocks, k, bl.keys, g.uniqueUrls, Math.floor((blocks * 512) / b)) : NaN;
    const row: BloomRow = {
      dataset: ds.name, bitsPerKey: b, k, blocks, keysAtStart: bl.keys,
      definitelyNew: gb.definitelyNew, maybeSeen: gb.maybeSeen, falsePositives: gb.falsePositives,
      observedFpRate: gb.observedFpRate, nominal: blockedFpRate(blocks, (blocks * 512) / b, k), expectedReport: gb.expectedFpRate, expectedFill: fill,
      exactUnique: g.uniqueUrls, merges: g.io.merges,
      lossyUnique: l.uniqueUrls, wronglyDropped: g.uniqueUrls - l.uniqueUrls,
      expectedWronglyDroppedReport: l.tiers.bloom.expectedWronglyDropped,
      expectedWronglyDroppedFill: g.uniqueUrls * fill,
      lossyAnsweredInRam: l.answeredInRam, gateAnsweredInRam: g.answeredInRam,
    };
    ctx.log(`${ds.name} bloom ${b} bits: DN ${row.definitelyNew} maybe ${row.maybeSeen} FP ${row.falsePositives} obs ${pct(row.observedFpRate, 3)} exp(fill) ${pct(fill, 3)} exp(report) ${pct(row.expectedReport, 3)} dropped ${row.wronglyDropped}`);
    rows.push(row);
    rmSync(gateDir, { recursive: true, force: true });
    rmSync(lossyDir, { recursive: true, force: true });
  }
  return rows;
}

export function pct(x: number, digits = 1): string {
  return Number.isFinite(x) ? `${(x * 100).toFixed(digits)}%` : '—';
}

/** Synthetic batches 1 and 2 of one crawl (gen-links, lines), generated once per (links, seed). */
export async function syntheticDataset(work: string, links: number, seed: number, log: (s: string) => void): Promise<Dataset> {
  const files: string[] = [];
  for (const batch of [1, 2] as const) {
    const out = join(work, `syn-${links}-s${seed}-b${batch}.txt`);
    const metaPath = `${out}.meta.json`;
    let ok = existsSync(out) && existsSync(metaPath);
    if (ok) {
      const m = JSON.parse(readFileSync(metaPath, 'utf8')) as GenMeta;
      ok = m.params.links === links && m.params.seed === seed && m.params.batch === batch && m.params.format === 'lines';
    }
    if (!ok) {
      log(`generating ${out}`);
      await generateLinks({ links, seed, batch, format: 'lines', out });
    }
    files.push(out);
  }
  return { name: `synthetic ${links.toLocaleString('en-US')}`, batch1: files[0]!, batch2: files[1]!, links };
}

/**
 * The Heritrix outlinks as batch 1 = whole file; for the Bloom sweep, the
 * first half (header kept) as `half1` and the second half as `half2`.
 */
export function heritrixDatasets(work: string, tsv: string): { whole: Dataset; halves: Dataset } {
  const text = readFileSync(tsv, 'utf8');
  const lines = text.split('\n');
  const header = lines[0]!;
  const body = lines.slice(1).filter((l) => l !== '');
  const mid = Math.floor(body.length / 2);
  const h1 = join(work, 'heritrix-half1.tsv');
  const h2 = join(work, 'heritrix-half2.tsv');
  mkdirSync(work, { recursive: true });
  writeFileSync(h1, `${[header, ...body.slice(0, mid)].join('\n')}\n`);
  writeFileSync(h2, `${[header, ...body.slice(mid)].join('\n')}\n`);
  return {
    whole: { name: 'heritrix', batch1: tsv, batch2: tsv, links: body.length },
    halves: { name: 'heritrix halves', batch1: h1, batch2: h2, links: mid },
  };
}
