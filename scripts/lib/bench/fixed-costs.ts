// Bench-only: what a drum process pays before and around its first link,
// so small batches can be judged (a 1 M-link batch pays them once like a
// 10 M one). Measured from outside, each as the median of `repeat` runs:
//   - nodeStart:    `node -e 0` (the runtime alone);
//   - cliLoad:      `drum --version` (node + the CLI's modules, no engine);
//   - engineLoad:   node importing the CLI's and the engine's modules (what
//                   an ingest loads before it opens anything; the bundle's
//                   when bin/drum runs it, engineFiles);
//   - emptyStore:   `drum ingest` of one link into a fresh state directory
//                   (engine load, worker start, LevelDB create, first commit);
//   - warmStore:    `drum ingest` of one new link into the store of the 10 M
//                   run, as a crawler's next batch meets it: the store is
//                   copied once and opened by one untimed ingest first (its
//                   host-count fold, its check of the copied files), then
//                   each run adds a link of its own (manifest, tier and memo
//                   cache files read, LevelDB open, a journal round).
// Also the 1-link run's own `stages` from its JSON report (`open`: lock,
// manifest, tier caches, catalog open and reconcile). Runs nothing
// timed in parallel; does not judge (bench-report.ts does).

import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { median, runMeasured } from './measure.js';
import type { BenchContext } from './bench-runners.js';

export interface FixedCost {
  id: 'nodeStart' | 'cliLoad' | 'engineLoad' | 'emptyStore' | 'warmStore';
  text: string;
  /** Median wall of the runs, ms. */
  wallMs: number;
  /** Every run's wall, ms, in run order (the spread). */
  runsMs: number[];
  peakRssBytes: number | null;
  /** drum rows: the report's stages of the median run. */
  stages?: unknown;
}


async function measure(ctx: BenchContext, id: FixedCost['id'], text: string, repeat: number,
  args: () => string[], before?: (i: number) => void): Promise<FixedCost> {
  const runs: { wall: number; rss: number | null; stages?: unknown }[] = [];
  for (let i = 0; i < repeat; i++) {
    before?.(i);
    const m = await runMeasured(process.execPath, args(), { env: { ...process.env, DRUM_DIST_DIR: ctx.distDir }, timeoutMs: ctx.timeoutMs });
    if (m.exitCode !== 0) throw new Error(`${id}: exit ${m.exitCode}: ${m.stderr.slice(-500)}`);
    let stages: unknown;
    try { stages = (JSON.parse(m.stdout.trim()) as { stages?: unknown }).stages; } catch { /* not a report */ }
    runs.push({ wall: m.wallMs, rss: m.peakRssBytes, stages });
  }
  const mid = median(runs.map((r) => r.wall));
  const at = runs.find((r) => r.wall === mid)!;
  return { id, text, wallMs: Math.round(mid), runsMs: runs.map((r) => Math.round(r.wall)), peakRssBytes: at.rss, stages: at.stages };
}

/**
 * Measures the fixed costs. `warmState` is a store holding the main run's
 * URLs (copied once; each run adds a new link of its own), or null.
 */
export async function measureFixedCosts(ctx: BenchContext, warmState: string | null, repeat = 5): Promise<FixedCost[]> {
  const drum = join(ctx.repoRoot, 'bin', 'drum');
  const dir = join(ctx.work, 'fixed');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const one = join(dir, 'one-link.txt');
  writeFileSync(one, 'http://fixed-cost.example/a-link-no-run-has-seen\n');
  const state = join(dir, 'state');
  const ingest = (): string[] => [drum, 'ingest', '--state', state, '--out', join(dir, 'out'), '--json', '--no-progress', one];
  const fresh = (): void => { rmSync(state, { recursive: true, force: true }); rmSync(join(dir, 'out'), { recursive: true, force: true }); };
  const out: FixedCost[] = [
    await measure(ctx, 'nodeStart', 'node -e 0', repeat, () => ['-e', '0']),
    await measure(ctx, 'cliLoad', 'drum --version', repeat, () => [drum, '--version']),
    await measure(ctx, 'engineLoad', 'node: import the CLI and the engine, no work', repeat, () => ['--input-type=module', '-e',
      engineFiles(ctx.distDir).map((f) => `await import(${JSON.stringify(pathToFileURL(f).href)});`).join(' ')]),
    await measure(ctx, 'emptyStore', 'drum ingest of 1 link into a new store', repeat, ingest, fresh),
  ];
  if (warmState) {
    fresh();
    cpSync(warmState, state, { recursive: true });
    const nth = (i: number): void => {
      rmSync(join(dir, 'out'), { recursive: true, force: true });
      writeFileSync(one, `http://fixed-cost.example/warm-link-${i}\n`);
    };
    nth(-1);
    const primed = await runMeasured(process.execPath, ingest(), { env: { ...process.env, DRUM_DIST_DIR: ctx.distDir }, timeoutMs: ctx.timeoutMs });
    if (primed.exitCode !== 0) throw new Error(`warmStore: the untimed first ingest exited ${primed.exitCode}: ${primed.stderr.slice(-500)}`);
    out.push(await measure(ctx, 'warmStore', 'drum ingest of 1 new link into the main run\'s store', repeat, ingest, nth));
  }
  if (!ctx.keep) rmSync(dir, { recursive: true, force: true });
  return out;
}

/**
 * What `drum ingest` loads before it opens anything: the bundled CLI and its
 * engine chunk when bin/drum runs the bundle (dist/cli/ at least as new as
 * dist/src/cli/main.js), else the module tree's CLI and engine.
 */
export function engineFiles(distDir: string): string[] {
  const tree = join(distDir, 'src', 'cli', 'main.js');
  const bundle = join(distDir, 'cli', 'main.js');
  if (existsSync(bundle) && statSync(bundle).mtimeMs >= statSync(tree).mtimeMs) {
    const chunk = readdirSync(join(distDir, 'cli')).find((f) => /^drum-[A-Z0-9]+\.js$/.test(f));
    if (chunk !== undefined) return [bundle, join(distDir, 'cli', chunk)];
  }
  return [tree, join(distDir, 'src', 'engine', 'drum.js')];
}

export function formatFixedCosts(costs: FixedCost[]): string {
  return costs.map((c) => `${c.text.padEnd(52)} ${String(c.wallMs).padStart(6)} ms  (runs ${c.runsMs.join(' / ')})` +
    (c.peakRssBytes ? `  peak RSS ${(c.peakRssBytes / 2 ** 20).toFixed(1)} MiB` : '') + stageText(c.stages)).join('\n');
}

/** The in-process split of a 1-link run: its report's stages, in ms. */
function stageText(stages: unknown): string {
  if (stages === null || typeof stages !== 'object') return '';
  const parts = Object.entries(stages as Record<string, { ms?: number }>).filter(([, v]) => typeof v?.ms === 'number').map(([k, v]) => `${k} ${Math.round(v.ms!)}`);
  return parts.length ? `  [in-process ms: ${parts.join(', ')}]` : '';
}
