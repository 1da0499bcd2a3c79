// Bench-only runners: one function per contender (drum ingest, drum raw,
// GNU sort -u, the Set peer, the level peer) that runs it once on a file
// under measurement and returns a BenchRow. Also caches generated link files.
// Does not compare rows or judge goals (bench-report.ts does). Preconditions:
// `ctx.distDir` is the compiled tree holding scripts/ (and src/ for drum).

import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadavg } from 'node:os';
import { spawnSync } from 'node:child_process';
import { runMeasured, pathBytes, fileSize, countLines, type Measured } from './measure.js';
import type { BenchRow } from './bench-report.js';
import type { GenMeta } from '../../gen-links.js';
import { GENERATOR_VERSION } from '../../gen-links.js';

export interface BenchContext {
  repoRoot: string;
  distDir: string;
  work: string;
  keep: boolean;
  log: (s: string) => void;
  timeoutMs: number;
}

export function drumAvailable(ctx: BenchContext): boolean {
  return existsSync(join(ctx.distDir, 'src', 'cli', 'main.js')) && existsSync(join(ctx.repoRoot, 'bin', 'drum'));
}

/** Generates (or reuses, when its meta matches) the link file for these parameters. */
export async function ensureLinks(ctx: BenchContext, links: number, seed: number, batch: 1 | 2): Promise<{ file: string; meta: GenMeta }> {
  const dir = join(ctx.work, 'gen');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `links-n${links}-s${seed}-b${batch}-g${GENERATOR_VERSION}.txt`);
  const metaFile = `${file}.meta.json`;
  if (existsSync(file) && existsSync(metaFile)) {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as GenMeta;
    if (meta.version === GENERATOR_VERSION && meta.links === links && meta.params.seed === seed && meta.bytes === statSync(file).size) {
      ctx.log(`reusing ${file}`);
      return { file, meta };
    }
  }
  ctx.log(`generating ${links.toLocaleString('en-US')} links (seed ${seed}, batch ${batch}) -> ${file}`);
  const m = await runMeasured(process.execPath, [join(ctx.distDir, 'scripts', 'gen-links.js'), '--links', String(links), '--seed', String(seed), '--batch', String(batch), '--out', file]);
  if (m.exitCode !== 0) throw new Error(`gen-links failed: ${m.stderr.slice(-2000)}`);
  const meta = JSON.parse(readFileSync(metaFile, 'utf8')) as GenMeta;
  ctx.log(`  generated in ${(m.wallMs / 1000).toFixed(1)} s, ${(meta.bytes / 2 ** 20).toFixed(0)} MiB`);
  return { file, meta };
}

function baseRow(id: string, dataset: BenchRow['dataset'], label: string, links: number): BenchRow {
  return { id, dataset, label, links, wallMs: null, linksPerSec: null, cpuMs: null, cpuPct: null, peakRssBytes: null, bytesWritten: null, unique: null, ratioToSort: null, extrapolated: false, status: 'ok', note: '' };
}

function fill(row: BenchRow, m: Measured, timeoutMs: number): BenchRow {
  row.wallMs = m.wallMs;
  row.linksPerSec = m.wallMs > 0 ? Math.round(row.links / (m.wallMs / 1000)) : null;
  row.cpuMs = m.cpuMs;
  row.cpuPct = m.cpuMs !== null && m.wallMs > 0 ? Math.round((100 * m.cpuMs) / m.wallMs) : null;
  row.peakRssBytes = m.peakRssBytes;
  if (m.timedOut) { row.status = 'timeout'; row.note = `killed after ${timeoutMs / 1000} s`; }
  else if (m.exitCode !== 0) { row.status = 'failed'; row.note = `exit ${m.exitCode}: ${lastLine(m.stderr)}`; }
  return row;
}
const lastLine = (s: string): string => (s.trim().split('\n').pop() ?? '').slice(0, 160);

/**
 * Before every timed run: flush dirty pages, so one run's write-back does not
 * land on the next run's clock, and read the input once, so every contender
 * starts with it in the page cache. Without this the order decided it: at
 * 100 M links the peers before drum pushed the 5.8 GiB input out, and the
 * first of three drum runs took 47-54 s against 41-42 s for the others.
 */
export function settle(input: string): void {
  spawnSync('sync');
  const buf = Buffer.allocUnsafe(8 << 20);
  const fd = openSync(input, 'r');
  try {
    while (readSync(fd, buf, 0, buf.length, null) > 0);
  } finally {
    closeSync(fd);
  }
}

const load = (): string => `load ${loadavg()[0]!.toFixed(1)}`;

export interface DrumRun {
  id: string;
  dataset: BenchRow['dataset'];
  label: string;
  file: string;
  links: number;
  state: string;
  raw: boolean;
  /** Delete the state dir first (false for the incremental batch). */
  fresh: boolean;
  /** More `drum ingest` flags (e.g. --no-values). */
  extra?: string[];
}

export async function runDrum(ctx: BenchContext, r: DrumRun): Promise<BenchRow> {
  const row = baseRow(r.id, r.dataset, r.label, r.links);
  if (!drumAvailable(ctx)) return { ...row, status: 'unavailable', note: 'drum CLI not built yet' };
  const out = `${r.state}-out-${r.dataset}`;
  if (r.fresh) rmSync(r.state, { recursive: true, force: true });
  rmSync(out, { recursive: true, force: true });
  const before = pathBytes(r.state);
  settle(r.file);
  const note = load();
  const m = await runMeasured(process.execPath, [
    join(ctx.repoRoot, 'bin', 'drum'), 'ingest', '--state', r.state, '--out', out, '--json', '--no-progress',
    ...(r.raw ? ['--canonical', 'none'] : []), ...(r.extra ?? []), r.file,
  ], { env: { ...process.env, DRUM_DIST_DIR: ctx.distDir }, timeoutMs: ctx.timeoutMs });
  fill(row, m, ctx.timeoutMs);
  row.bytesWritten = Math.max(0, pathBytes(r.state) - before) + pathBytes(out);
  if (row.status === 'ok') {
    try {
      const rep = JSON.parse(m.stdout.trim()) as { uniqueUrls?: number };
      row.report = rep;
      row.unique = rep.uniqueUrls ?? null;
    } catch {
      row.status = 'failed';
      row.note = 'stdout is not one JSON report';
    }
  }
  row.note = row.note || note;
  if (!ctx.keep) rmSync(out, { recursive: true, force: true });
  return row;
}

export async function runSort(ctx: BenchContext, dataset: BenchRow['dataset'], file: string, links: number): Promise<BenchRow> {
  const row = baseRow('sort', dataset, 'LC_ALL=C sort -u', links);
  const out = join(ctx.work, `sort-${dataset}.out`);
  rmSync(out, { force: true });
  settle(file);
  const note = load();
  const m = await runMeasured('sort', ['-u', '-o', out, file], { env: { ...process.env, LC_ALL: 'C' }, timeoutMs: ctx.timeoutMs });
  fill(row, m, ctx.timeoutMs);
  row.bytesWritten = fileSize(out);
  if (row.status === 'ok') row.unique = await countLines(out);
  row.note = row.note || note;
  if (!ctx.keep) rmSync(out, { force: true });
  return row;
}

export async function runPeer(ctx: BenchContext, peer: 'set' | 'level', dataset: BenchRow['dataset'], file: string, links: number, maxLinks = Infinity): Promise<BenchRow> {
  const row = baseRow(peer, dataset, peer === 'set' ? 'Node Set peer' : 'level getMany+batch peer', links);
  const out = join(ctx.work, `${peer}-${dataset}.out`);
  const db = join(ctx.work, `${peer}-${dataset}.leveldb`);
  rmSync(out, { force: true });
  rmSync(db, { recursive: true, force: true });
  const args = [join(ctx.distDir, 'scripts', 'peers', `${peer}-dedup.js`), file, out];
  if (peer === 'level') args.push('--db', db);
  if (Number.isFinite(maxLinks) && maxLinks < links) args.push('--max-links', String(maxLinks));
  settle(file);
  const note = load();
  const m = await runMeasured(process.execPath, args, { timeoutMs: ctx.timeoutMs });
  fill(row, m, ctx.timeoutMs);
  row.bytesWritten = fileSize(out) + pathBytes(db);
  row.note = row.note || note;
  if (row.status === 'ok') {
    const s = JSON.parse(m.stdout.trim()) as { links: number; unique: number; truncated: boolean };
    row.unique = s.unique;
    if (s.truncated && row.wallMs !== null) {
      // Linear extrapolation from the measured prefix. LevelDB slows as it
      // grows, so this understates the full run: it flatters the peer.
      row.extrapolated = true;
      row.note = `first ${s.links.toLocaleString('en-US')} links measured (${(row.wallMs / 1000).toFixed(1)} s), wall extrapolated linearly; ${note}`;
      row.wallMs = Math.round((row.wallMs * links) / s.links);
      if (row.cpuMs !== null) row.cpuMs = Math.round((row.cpuMs * links) / s.links);
      row.linksPerSec = Math.round(links / (row.wallMs / 1000));
      row.unique = null;
    }
  }
  if (!ctx.keep) {
    rmSync(out, { force: true });
    rmSync(db, { recursive: true, force: true });
  }
  return row;
}

export interface DuckDbRun {
  id: 'duckdb' | 'duckdb-256';
  dataset: BenchRow['dataset'];
  file: string;
  links: number;
  /** Database file, kept between the first and the incremental batch. */
  db: string;
  /** DuckDB memory_limit; undefined = unlimited (DuckDB's default, 80 % of RAM). */
  memoryLimit?: string;
  fresh: boolean;
}

/** DuckDB peer (scripts/peers/duckdb-dedup.ts): one batch per run; `skipped` where the binding cannot load. */
export async function runDuckDb(ctx: BenchContext, r: DuckDbRun): Promise<BenchRow> {
  const row = baseRow(r.id, r.dataset, `DuckDB anti-join${r.memoryLimit ? ` (memory_limit ${r.memoryLimit})` : ' (no limit)'}`, r.links);
  const out = join(ctx.work, `${r.id}-${r.dataset}.out`);
  rmSync(out, { force: true });
  const args = [join(ctx.distDir, 'scripts', 'peers', 'duckdb-dedup.js'), r.file, out, '--db', r.db];
  if (r.memoryLimit) args.push('--memory-limit', r.memoryLimit);
  if (r.fresh) args.push('--fresh');
  settle(r.file);
  const note = load();
  const m = await runMeasured(process.execPath, args, { timeoutMs: ctx.timeoutMs });
  if (m.exitCode === 3) return { ...row, status: 'skipped', note: lastLine(m.stderr) };
  fill(row, m, ctx.timeoutMs);
  row.bytesWritten = fileSize(out) + pathBytes(r.db);
  row.note = row.note || note;
  if (row.status === 'ok') row.unique = (JSON.parse(m.stdout.trim()) as { unique: number }).unique;
  if (!ctx.keep) rmSync(out, { force: true });
  return row;
}
