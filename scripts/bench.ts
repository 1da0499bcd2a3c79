// `npm run bench`: drum against the peers a crawler operator would pick, one
// after another on the same seeded link file: drum ingest (default policy and
// --canonical none), LC_ALL=C sort -u, a Node Set, a per-URL LevelDB check,
// DuckDB (anti-join per batch; unlimited and at memory_limit 256MB);
// then an incremental second batch into drum's store, the real Heritrix
// outlink stream, a 1 M-link small batch, the main file in ten batches
// through one open Drum against one ingest of them, the fixed costs of a process and
// 10 k-link batches through one open Drum, drum resolve of 1 M URLs against a
// 10 M-URL store (--resolve-store S --resolve-urls Q), and (--scale) 100 M links from a
// file, or (--scale N, N > 10^8) N links streamed from the generator into
// one store slice by slice (scale-run.ts), with no N-link file on disk;
// a slice grows with the store (--scale-growth R: max(--scale-slice, R x
// the URLs stored), default 0.3, which keeps a slice in one round of the
// 256 MiB plan at 10^9 links), so the store's rewrite per link stays flat.
// Prints a table and drum's goals (PASS/FAIL/SKIP) and writes everything as JSON. Never asserts
// anything: it measures. Usage (after `tsc -p .`):
//   node dist/scripts/bench.js [--links N] [--seed S] [--scale [N]] [--scale-slice N] [--scale-growth R] [--json FILE]
//     [--skip drum,drum-keys,drum-raw,sort,set,level,duckdb,small,batches,fixed,incremental,heritrix,resolve] [--tmp DIR]
//     [--resolve-store S] [--resolve-urls Q]
//     [--level-max-links N] [--timeout-s S] [--repeat R] [--keep] [--content N,...]
// Flags: lib/bench/bench-args.ts; contenders: lib/bench/bench-runners.ts; the
// scale run: lib/bench/bench-scale.ts; goals and agreement:
// lib/bench/bench-report.ts.
// REQUIRES: the compiled tree (dist/) and bin/drum (else drum rows are marked
// unavailable); GNU time at /usr/bin/time for CPU time (else no CPU figures,
// and peak RSS from polling /proc).

import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { cpus, loadavg, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { checkAgreement, checkGoals, fillRatiosToSort, formatGoals, formatStages, formatTable } from './lib/bench/bench-report.js';
import { drumAvailable, ensureLinks, runDrum, runDuckDb, runPeer, runSort, type BenchContext } from './lib/bench/bench-runners.js';
import { parseBenchArgs, type BenchArgs } from './lib/bench/bench-args.js';
import { scriptHeader } from './lib/script-args.js';
import { BenchTally } from './lib/bench/bench-tally.js';
import { runScale, type BenchScale } from './lib/bench/bench-scale.js';
import { hasGnuTime, runMeasured } from './lib/bench/measure.js';
import type { GenMeta } from './gen-links.js';
import { formatFixedCosts, measureFixedCosts, type FixedCost } from './lib/bench/fixed-costs.js';
import type { SmallBatchResult } from './small-batches.js';
import { formatLibraryBatches, libraryBatchGoals, libraryBatchRuns, type LibraryBatches } from './lib/bench/library-batches.js';
import { formatFit } from './scale-fit.js';
import { resolveGoals, runResolveBench, type ResolveBench } from './lib/bench/resolve-bench.js';
import { formatStoreBatches, runStoreBatches, storeBatchGoals, type StoreBatches } from './lib/bench/store-batches.js';
import { formatVerify } from './lib/bench/verify-state.js';

const HERITRIX = '../shared/datasets/heritrix-archive-org-2008/outlinks.tsv';
/** DuckDB's two runs and their database files, kept from the main file's batch for the incremental one. */
const DUCK_FILES = { duckdb: 'duckdb-nolimit.duckdb', 'duckdb-256': 'duckdb-256.duckdb' } as const;
const DUCK_LIMIT = { duckdb: undefined, 'duckdb-256': '256MB' } as const;
const DUCK_IDS = ['duckdb', 'duckdb-256'] as const;

/** The repository root: nearest ancestor of cwd (then of the script) with drum's package.json. */
function findRepoRoot(distDir: string): string {
  for (const start of [process.cwd(), distDir]) {
    for (let d = resolve(start); ; d = dirname(d)) {
      const pkg = join(d, 'package.json');
      if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'drum') return d;
      if (dirname(d) === d) break;
    }
  }
  return process.cwd();
}

/** Writes the outlink column of the Heritrix TSV (header dropped) as a lines file. */
async function heritrixLines(src: string, dst: string): Promise<number> {
  const text = readFileSync(src, 'utf8');
  const rows = text.split('\n').slice(1).map((l) => l.split('\t')[1]).filter((u): u is string => !!u && u.length > 0);
  const w = createWriteStream(dst);
  w.end(rows.join('\n') + '\n');
  await once(w, 'finish');
  return rows.length;
}

/** What the stages measured besides their rows. */
interface BenchExtras extends BenchScale {
  fixedCosts: FixedCost[];
  library10k: SmallBatchResult | null;
  libraryBatches: LibraryBatches | null;
  resolveRun: ResolveBench | null;
  storeBatches: StoreBatches | null;
}

/** Runs every stage the flags leave in, in order, then writes the JSON and prints the report. */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) return void process.stdout.write(`${scriptHeader(fileURLToPath(import.meta.url))}\n`);
  let a: BenchArgs;
  try {
    a = parseBenchArgs(argv);
  } catch (e) {
    process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)} (--help lists the flags)\n`);
    process.exit(2);
  }
  const distDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const repoRoot = findRepoRoot(distDir);
  const work = resolve(a.tmp, 'drum-bench');
  mkdirSync(work, { recursive: true });
  const jsonOut = resolve(a.json ?? join(work, 'bench-results.json'));
  const log = (s: string): void => void process.stderr.write(`[bench] ${s}\n`);
  const ctx: BenchContext = { repoRoot, distDir, work, keep: a.keep, log, timeoutMs: a.timeoutMs };

  if (!hasGnuTime()) log('GNU time not found at /usr/bin/time (apt-get install time): peak RSS falls back to polling /proc VmHWM');
  if (!drumAvailable(ctx)) log(`drum CLI not found under ${distDir}/src/cli: drum rows are marked unavailable`);
  // The commit the build under test was made from (taken before others can commit more).
  const gitHead = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).stdout?.trim() || null;
  const t = new BenchTally(a.repeat, log);
  const drumState = join(work, 'drum-default-state');
  await mainFileRuns(ctx, a, t, drumState);
  const small = await smallBatchRuns(ctx, a, t, drumState);
  await incrementalRuns(ctx, a, t, drumState);
  await heritrixRuns(ctx, a, t);
  // 4. Scale (opt-in): 100 M links, drum default and sort -u (lib/bench/bench-scale.ts).
  const scale: BenchScale = a.scale ? await runScale(ctx, a, t) : { scaleSlices: null, scaleVerify: null };
  const resolved = await resolveRuns(ctx, a, t);
  await writeReport(ctx, a, t, { ...small, ...scale, ...resolved }, gitHead, jsonOut);
}

/** 1. The main N-link file: every contender, one after another (drum's default store stays in `drumState`). */
async function mainFileRuns(ctx: BenchContext, a: BenchArgs, t: BenchTally, drumState: string): Promise<void> {
  const { links, skip } = a;
  const main1 = await ensureLinks(ctx, links, a.seed, 1);
  t.datasets.main = main1.meta;
  if (!skip.has('drum')) t.add(await t.rep(() => runDrum(ctx, { id: 'drum', dataset: 'main', label: 'drum ingest (default)', file: main1.file, links, state: drumState, raw: false, fresh: true })));
  // The same file into a keys-only store (--no-values): what the values (docIDs, first run, last emission) cost.
  if (!skip.has('drum-keys')) t.add(await t.rep(() => runDrum(ctx, { id: 'drum-keys', dataset: 'main', label: 'drum ingest --no-values (keys only)', file: main1.file, links, state: join(ctx.work, 'drum-keys-state'), raw: false, fresh: true, extra: ['--no-values'] })));
  rmSync(join(ctx.work, 'drum-keys-state'), { recursive: true, force: true });
  if (!skip.has('drum-raw')) t.add(await t.rep(() => runDrum(ctx, { id: 'drum-raw', dataset: 'main', label: 'drum ingest --canonical none', file: main1.file, links, state: join(ctx.work, 'drum-raw-state'), raw: true, fresh: true })));
  rmSync(join(ctx.work, 'drum-raw-state'), { recursive: true, force: true });
  if (!skip.has('sort')) t.add(await t.rep(() => runSort(ctx, 'main', main1.file, links)));
  if (!skip.has('set')) t.add(await t.rep(() => runPeer(ctx, 'set', 'main', main1.file, links)));
  if (!skip.has('level')) t.add(await t.rep(() => runPeer(ctx, 'level', 'main', main1.file, links, a.levelMaxLinks)));
  // DuckDB, the peer a data engineer reaches for: unlimited, and at drum's 256 MiB budget.
  // Each keeps its database for the incremental batch below.
  if (!skip.has('duckdb')) {
    for (const id of DUCK_IDS) {
      t.add(await t.rep(() => runDuckDb(ctx, { id, dataset: 'main', file: main1.file, links, db: join(ctx.work, DUCK_FILES[id]), memoryLimit: DUCK_LIMIT[id], fresh: true })));
    }
  }
}

/**
 * 1b. Small batches: a 1 M-link file through the CLI (goal: per-link cost at most
 * 1.25x the main file's), the fixed costs of a process, and 10 k-link batches
 * through one long-running library process on a copy of the main store.
 */
async function smallBatchRuns(ctx: BenchContext, a: BenchArgs, t: BenchTally, drumState: string): Promise<Pick<BenchExtras, 'fixedCosts' | 'library10k' | 'libraryBatches'>> {
  let fixedCosts: FixedCost[] = [];
  let library10k: SmallBatchResult | null = null;
  // The main file in ten batches through one open Drum against one ingest of them (lib/bench/library-batches.ts).
  const main1 = !a.skip.has('batches') && !a.skip.has('drum') ? await ensureLinks(ctx, a.links, a.seed, 1) : null;
  const libraryBatches = main1 === null ? null : await libraryBatchRuns(ctx, main1.file, a.links, a.repeat);
  if (!a.skip.has('small') && !a.skip.has('drum') && a.smallLinks < a.links) {
    const small = await ensureLinks(ctx, a.smallLinks, a.seed, 1);
    t.datasets.small = small.meta;
    const ss = join(ctx.work, 'drum-small-state');
    t.add(await t.rep(() => runDrum(ctx, { id: 'drum', dataset: 'small', label: 'drum ingest (default)', file: small.file, links: a.smallLinks, state: ss, raw: false, fresh: true })));
    rmSync(ss, { recursive: true, force: true });
  }
  if (!a.skip.has('fixed') && !a.skip.has('drum')) {
    fixedCosts = await measureFixedCosts(ctx, existsSync(drumState) ? drumState : null);
    if (existsSync(drumState)) {
      const b2 = await ensureLinks(ctx, a.links, a.seed, 2);
      const copy = join(ctx.work, 'drum-library-state');
      rmSync(copy, { recursive: true, force: true });
      cpSync(drumState, copy, { recursive: true });
      const m = await runMeasured(process.execPath, [join(ctx.distDir, 'scripts', 'small-batches.js'), '--state', copy, '--input', b2.file, '--batch', '10000', '--batches', '10'], { timeoutMs: ctx.timeoutMs });
      if (m.exitCode === 0) library10k = JSON.parse(m.stdout.trim()) as SmallBatchResult;
      else ctx.log(`library 10 k batches failed: ${m.stderr.slice(-400)}`);
      rmSync(copy, { recursive: true, force: true });
    }
  }
  return { fixedCosts, library10k, libraryBatches };
}

/**
 * 2. Incremental: the next N links of the same crawl into the first store (drum,
 * then each DuckDB database); then drops the DuckDB files and, without --keep,
 * drum's main store.
 */
async function incrementalRuns(ctx: BenchContext, a: BenchArgs, t: BenchTally, drumState: string): Promise<void> {
  const { links, skip } = a;
  if (!skip.has('incremental') && !skip.has('drum')) {
    const b2 = await ensureLinks(ctx, links, a.seed, 2);
    t.datasets.batch2 = b2.meta;
    // Repeats restart from a copy of the first batch's store.
    const snap = `${drumState}.snapshot`;
    if (t.repeat > 1 && existsSync(drumState)) cpSync(drumState, snap, { recursive: true });
    t.add(await t.rep(
      () => runDrum(ctx, { id: 'drum', dataset: 'batch2', label: 'drum ingest batch 2 (incremental)', file: b2.file, links, state: drumState, raw: false, fresh: false }),
      () => { rmSync(drumState, { recursive: true, force: true }); cpSync(snap, drumState, { recursive: true }); },
    ));
    rmSync(snap, { recursive: true, force: true });
    if (!skip.has('duckdb')) {
      for (const id of DUCK_IDS) {
        const db = join(ctx.work, DUCK_FILES[id]);
        if (!existsSync(db)) continue;
        const dsnap = `${db}.snapshot`;
        if (t.repeat > 1) cpSync(db, dsnap);
        t.add(await t.rep(
          () => runDuckDb(ctx, { id, dataset: 'batch2', file: b2.file, links, db, memoryLimit: DUCK_LIMIT[id], fresh: false }),
          () => cpSync(dsnap, db),
        ));
        rmSync(dsnap, { force: true });
      }
    }
  }
  for (const f of Object.values(DUCK_FILES).map((name) => join(ctx.work, name))) { rmSync(f, { force: true }); rmSync(`${f}.wal`, { force: true }); }
  if (!ctx.keep) rmSync(drumState, { recursive: true, force: true });
}

/** 3. The real Heritrix outlink stream (outlink column as lines), when the data set is there. */
async function heritrixRuns(ctx: BenchContext, a: BenchArgs, t: BenchTally): Promise<void> {
  const { skip } = a;
  const heritrix = resolve(ctx.repoRoot, HERITRIX);
  if (!skip.has('heritrix') && existsSync(heritrix)) {
    const hfile = join(ctx.work, 'heritrix-outlinks.txt');
    const n = await heritrixLines(heritrix, hfile);
    t.datasets.heritrix = { links: n, source: HERITRIX };
    const hs = join(ctx.work, 'drum-heritrix-state');
    if (!skip.has('drum')) t.add(await t.rep(() => runDrum(ctx, { id: 'drum', dataset: 'heritrix', label: 'drum ingest (default)', file: hfile, links: n, state: hs, raw: false, fresh: true })));
    if (!skip.has('drum-raw')) t.add(await t.rep(() => runDrum(ctx, { id: 'drum-raw', dataset: 'heritrix', label: 'drum ingest --canonical none', file: hfile, links: n, state: hs, raw: true, fresh: true })));
    rmSync(hs, { recursive: true, force: true });
    if (!skip.has('sort')) t.add(await t.rep(() => runSort(ctx, 'heritrix', hfile, n)));
    if (!skip.has('set')) t.add(await t.rep(() => runPeer(ctx, 'set', 'heritrix', hfile, n)));
    if (!skip.has('level')) t.add(await t.rep(() => runPeer(ctx, 'level', 'heritrix', hfile, n)));
  } else if (!skip.has('heritrix')) ctx.log(`no ${heritrix}: Heritrix rows skipped`);
}

/**
 * 5. drum resolve: Q URLs against an S-URL store, one merge (its own store, built
 * once and kept with --keep); 6. 10 k-link batches into that store through one
 * open Drum, key journal on and off.
 */
async function resolveRuns(ctx: BenchContext, a: BenchArgs, t: BenchTally): Promise<Pick<BenchExtras, 'resolveRun' | 'storeBatches'>> {
  let resolveRun: ResolveBench | null = null;
  let storeBatches: StoreBatches | null = null;
  if (!a.skip.has('resolve') && drumAvailable(ctx)) {
    resolveRun = await runResolveBench(ctx, a.resolveStore, a.resolveUrls);
    t.add(resolveRun.row);
    if (resolveRun.row.status === 'ok') storeBatches = await runStoreBatches(ctx, resolveRun.state, resolveRun.queryFile, resolveRun.storeUrls);
    if (!ctx.keep) rmSync(resolveRun.state, { recursive: true, force: true });
  }
  return { resolveRun, storeBatches };
}

/** Judges the rows, writes everything as JSON to `jsonOut` and prints the table, the goals and the agreement checks. */
async function writeReport(ctx: BenchContext, a: BenchArgs, t: BenchTally, x: BenchExtras, gitHead: string | null, jsonOut: string): Promise<void> {
  const { rows, datasets } = t;
  const { links, seed, repeat, scale, scaleLinks, smallLinks, skip } = a;
  const { fixedCosts, library10k, libraryBatches, storeBatches, scaleSlices, scaleVerify } = x;
  fillRatiosToSort(rows);
  const goals = [...checkGoals(rows, links, scale ? scaleLinks : null, library10k?.medianMs ?? null, scaleSlices?.slices ?? null), ...libraryBatchGoals(libraryBatches, !skip.has('batches') && !skip.has('drum')), ...resolveGoals(x.resolveRun), ...storeBatchGoals(storeBatches)];
  const agreement = checkAgreement(rows, datasets);
  if (scaleVerify !== null) agreement.push(formatVerify('the scale store', scaleVerify));
  if (scaleSlices?.verify) agreement.push(formatVerify('the streamed store', scaleSlices.verify));
  const sortVersion = spawnSync('sort', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
  const result = {
    command: `node dist/scripts/bench.js ${process.argv.slice(2).join(' ')}`.trim(),
    finishedAt: new Date().toISOString(),
    gitHead,
    machine: { cores: cpus().length, cpu: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version, sort: sortVersion, loadAvgAtEnd: loadavg(), rss: hasGnuTime() ? 'GNU time %M' : '/proc VmHWM poll' },
    params: { links, seed, repeat, scale, scaleLinks, smallLinks, levelMaxLinks: a.levelMaxLinks, skip: [...skip] },
    datasets,
    rows,
    fixedCosts,
    library10k,
    libraryBatches,
    storeBatches,
    scaleSlices,
    scaleVerify,
    goals,
    agreement,
    content: a.content ? await (await import('./content-bench.js')).contentRows(a.content, ctx.work, seed, ctx.log) : undefined,
  };
  writeFileSync(jsonOut, JSON.stringify(result, null, 2) + '\n');
  const m = datasets.main as GenMeta;
  process.stdout.write(`\nmain file: ${links.toLocaleString('en-US')} links, ${(m.bytes / 2 ** 20).toFixed(0)} MiB, avg URL ${m.avgUrlBytes.toFixed(1)} B, ` +
    `unique exact ${(m.uniqueFraction.exact * 100).toFixed(1)}% / default policy ${(m.uniqueFraction.defaultPolicy * 100).toFixed(1)}% / pages ${(m.uniqueFraction.pages * 100).toFixed(1)}%\n\n`);
  process.stdout.write(formatTable(rows) + '\n\n' + formatStages(rows) + '\n\n' +
    (fixedCosts.length ? `fixed costs of a process (median of 5):\n${formatFixedCosts(fixedCosts)}\n\n` : '') +
    (library10k ? `10 k-link batches through one open Drum on the main store: median ${library10k.medianMs} ms (runs ${library10k.runsMs.join(' / ')}; open ${library10k.openMs} ms once)\n\n` : '') +
    (libraryBatches ? `${formatLibraryBatches(libraryBatches)}\n\n` : '') +
    (storeBatches?.journal ? `${formatStoreBatches(storeBatches)}\n\n` : '') +
    (scaleSlices?.fit ? `${formatFit(scaleSlices.fit)}\n\n` : '') +
    formatGoals(goals) + '\n\n' + agreement.join('\n') + `\n\nJSON: ${jsonOut}\n`);
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exit(1);
});
