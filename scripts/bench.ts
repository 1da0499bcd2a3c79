// `npm run bench`: drum against the peers a crawler operator would pick, one
// after another on the same seeded link file: drum ingest (default policy and
// --canonical none), LC_ALL=C sort -u, a Node Set, a per-URL LevelDB check,
// DuckDB (anti-join per batch; unlimited and at memory_limit 256MB);
// then an incremental second batch into drum's store, the real Heritrix
// outlink stream, a 1 M-link small batch, the fixed costs of a process and
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
//     [--skip drum,drum-raw,sort,set,level,duckdb,incremental,heritrix,resolve] [--tmp DIR]
//     [--resolve-store S] [--resolve-urls Q]
//     [--level-max-links N] [--timeout-s S] [--repeat R] [--keep]

import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, statfsSync, writeFileSync, createWriteStream } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { checkGoals, formatGoals, formatStages, formatTable, medianRow, type BenchRow } from './lib/bench-report.js';
import { drumAvailable, ensureLinks, runDrum, runDuckDb, runPeer, runSort, type BenchContext } from './lib/bench-runners.js';
import { hasGnuTime, runMeasured } from './lib/measure.js';
import type { GenMeta } from './gen-links.js';
import { formatFixedCosts, measureFixedCosts, type FixedCost } from './lib/fixed-costs.js';
import type { SmallBatchResult } from './small-batches.js';
import { scaleRun, type ScaleRunResult, type SliceRow } from './scale-run.js';
import { formatFit } from './scale-fit.js';
import { resolveGoals, runResolveBench, type ResolveBench } from './lib/resolve-bench.js';
import { formatStoreBatches, runStoreBatches, storeBatchGoals, type StoreBatches } from './lib/store-batches.js';
import { formatVerify, verifyState, type StoreVerify } from './lib/verify-state.js';

const KNOWN = ['drum', 'drum-keys', 'drum-raw', 'sort', 'set', 'level', 'duckdb', 'small', 'fixed', 'incremental', 'heritrix', 'resolve'];
const HERITRIX = '../shared/datasets/heritrix-archive-org-2008/outlinks.tsv';
const BYTES_PER_LINK = 62; // generator average incl. newline (see meta avgUrlBytes)

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

/** `--scale N` (a number after --scale) means `--scale --scale-links N`. */
function scaleArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    out.push(argv[i]!);
    if (argv[i] === '--scale' && i + 1 < argv.length && Number.isFinite(Number(argv[i + 1]))) out.push('--scale-links', argv[++i]!);
  }
  return out;
}

/** Above this many links the scale run streams from the generator instead of a file. */
const STREAM_ABOVE = 100_000_000;

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: scaleArgs(process.argv.slice(2)),
    options: {
      links: { type: 'string', default: '10000000' },
      'small-links': { type: 'string', default: '1000000' },
      seed: { type: 'string', default: '1' },
      scale: { type: 'boolean', default: false },
      'scale-links': { type: 'string', default: '100000000' },
      /** Stream the scale run in slices of this many links (default: only above 10^8 links, slices of 10^7). */
      'scale-slice': { type: 'string' },
      /** A streamed slice is max(--scale-slice, this x the URLs already stored); 0: every slice --scale-slice. */
      'scale-growth': { type: 'string', default: '0.3' },
      json: { type: 'string' },
      skip: { type: 'string', default: '' },
      tmp: { type: 'string', default: tmpdir() },
      'level-max-links': { type: 'string' },
      'timeout-s': { type: 'string', default: '3600' },
      keep: { type: 'boolean', default: false },
      repeat: { type: 'string', default: '1' },
      /** Also run the content-dedup bench (scripts/content-bench.ts) at these document counts, e.g. 100000. */
      content: { type: 'string' },
      /** The resolve row: URLs in its store, and URLs it resolves. */
      'resolve-store': { type: 'string', default: '10000000' },
      'resolve-urls': { type: 'string', default: '1000000' },
    },
  });
  const links = Number(values.links);
  const seed = Number(values.seed);
  const scaleLinks = Number(values['scale-links']);
  const smallLinks = Number(values['small-links']);
  const skip = new Set(values.skip!.split(',').map((s) => s.trim()).filter(Boolean));
  for (const s of skip) if (!KNOWN.includes(s)) throw new Error(`--skip: unknown run ${s} (known: ${KNOWN.join(',')})`);
  if (!Number.isInteger(links) || links < 1) throw new Error('--links must be a positive integer');
  const distDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const repoRoot = findRepoRoot(distDir);
  const work = resolve(values.tmp!, 'drum-bench');
  mkdirSync(work, { recursive: true });
  const jsonOut = resolve(values.json ?? join(work, 'bench-results.json'));
  const log = (s: string): void => void process.stderr.write(`[bench] ${s}\n`);
  const ctx: BenchContext = { repoRoot, distDir, work, keep: values.keep!, log, timeoutMs: Number(values['timeout-s']) * 1000 };
  // LevelDB runs in full up to 10 M links; above that on a prefix, extrapolated.
  const levelMax = values['level-max-links'] ? Number(values['level-max-links']) : Math.min(links, 10_000_000);

  if (!hasGnuTime()) log('GNU time not found at /usr/bin/time (apt-get install time): peak RSS falls back to polling /proc VmHWM');
  if (!drumAvailable(ctx)) log(`drum CLI not found under ${distDir}/src/cli: drum rows are marked unavailable`);
  // The commit the build under test was made from (taken before others can commit more).
  const gitHead = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoRoot, encoding: 'utf8' }).stdout?.trim() || null;
  const repeat = Math.max(1, Number(values.repeat) || 1);
  /** Runs a contender `repeat` times (calling `reset` between runs); keeps the median. */
  const rep = async (run: () => Promise<BenchRow>, reset?: () => void): Promise<BenchRow> => {
    const runs: BenchRow[] = [];
    for (let i = 0; i < repeat; i++) {
      if (i > 0 && reset) reset();
      runs.push(await run());
    }
    return medianRow(runs);
  };
  const rows: BenchRow[] = [];
  const add = (r: BenchRow): void => {
    rows.push(r);
    log(`${r.label} [${r.dataset}]: ${r.status}${r.wallMs !== null ? ` ${(r.wallMs / 1000).toFixed(2)} s` : ''} ${r.note}`);
  };
  const datasets: Record<string, GenMeta | { links: number; source: string }> = {};

  // 1. The main N-link file: every contender, one after another.
  const main1 = await ensureLinks(ctx, links, seed, 1);
  datasets.main = main1.meta;
  const drumState = join(work, 'drum-default-state');
  if (!skip.has('drum')) add(await rep(() => runDrum(ctx, { id: 'drum', dataset: 'main', label: 'drum ingest (default)', file: main1.file, links, state: drumState, raw: false, fresh: true })));
  // The same file into a keys-only store (--no-values): what the values (docIDs, first run, last emission) cost.
  if (!skip.has('drum-keys')) add(await rep(() => runDrum(ctx, { id: 'drum-keys', dataset: 'main', label: 'drum ingest --no-values (keys only)', file: main1.file, links, state: join(work, 'drum-keys-state'), raw: false, fresh: true, extra: ['--no-values'] })));
  rmSync(join(work, 'drum-keys-state'), { recursive: true, force: true });
  if (!skip.has('drum-raw')) add(await rep(() => runDrum(ctx, { id: 'drum-raw', dataset: 'main', label: 'drum ingest --canonical none', file: main1.file, links, state: join(work, 'drum-raw-state'), raw: true, fresh: true })));
  rmSync(join(work, 'drum-raw-state'), { recursive: true, force: true });
  if (!skip.has('sort')) add(await rep(() => runSort(ctx, 'main', main1.file, links)));
  if (!skip.has('set')) add(await rep(() => runPeer(ctx, 'set', 'main', main1.file, links)));
  if (!skip.has('level')) add(await rep(() => runPeer(ctx, 'level', 'main', main1.file, links, levelMax)));
  // DuckDB, the peer a data engineer reaches for: unlimited, and at drum's 256 MiB budget.
  // Each keeps its database for the incremental batch below.
  const duckDbs = { duckdb: join(work, 'duckdb-nolimit.duckdb'), 'duckdb-256': join(work, 'duckdb-256.duckdb') } as const;
  const duckLimit = { duckdb: undefined, 'duckdb-256': '256MB' } as const;
  if (!skip.has('duckdb')) {
    for (const id of ['duckdb', 'duckdb-256'] as const) {
      add(await rep(() => runDuckDb(ctx, { id, dataset: 'main', file: main1.file, links, db: duckDbs[id], memoryLimit: duckLimit[id], fresh: true })));
    }
  }

  // 1b. Small batches: a 1 M-link file through the CLI (goal: per-link cost at most
  // 1.25x the main file's), the fixed costs of a process, and 10 k-link batches
  // through one long-running library process on a copy of the main store.
  let fixedCosts: FixedCost[] = [];
  let library10k: SmallBatchResult | null = null;
  if (!skip.has('small') && !skip.has('drum') && smallLinks < links) {
    const small = await ensureLinks(ctx, smallLinks, seed, 1);
    datasets.small = small.meta;
    const ss = join(work, 'drum-small-state');
    add(await rep(() => runDrum(ctx, { id: 'drum', dataset: 'small', label: 'drum ingest (default)', file: small.file, links: smallLinks, state: ss, raw: false, fresh: true })));
    rmSync(ss, { recursive: true, force: true });
  }
  if (!skip.has('fixed') && !skip.has('drum')) {
    fixedCosts = await measureFixedCosts(ctx, existsSync(drumState) ? drumState : null);
    if (existsSync(drumState)) {
      const b2 = await ensureLinks(ctx, links, seed, 2);
      const copy = join(work, 'drum-library-state');
      rmSync(copy, { recursive: true, force: true });
      cpSync(drumState, copy, { recursive: true });
      const m = await runMeasured(process.execPath, [join(distDir, 'scripts', 'small-batches.js'), '--state', copy, '--input', b2.file, '--batch', '10000', '--batches', '10'], { timeoutMs: ctx.timeoutMs });
      if (m.exitCode === 0) library10k = JSON.parse(m.stdout.trim()) as SmallBatchResult;
      else log(`library 10 k batches failed: ${m.stderr.slice(-400)}`);
      rmSync(copy, { recursive: true, force: true });
    }
  }

  // 2. Incremental: the next N links of the same crawl into the first store.
  if (!skip.has('incremental') && !skip.has('drum')) {
    const b2 = await ensureLinks(ctx, links, seed, 2);
    datasets.batch2 = b2.meta;
    // Repeats restart from a copy of the first batch's store.
    const snap = `${drumState}.snapshot`;
    if (repeat > 1 && existsSync(drumState)) cpSync(drumState, snap, { recursive: true });
    add(await rep(
      () => runDrum(ctx, { id: 'drum', dataset: 'batch2', label: 'drum ingest batch 2 (incremental)', file: b2.file, links, state: drumState, raw: false, fresh: false }),
      () => { rmSync(drumState, { recursive: true, force: true }); cpSync(snap, drumState, { recursive: true }); },
    ));
    rmSync(snap, { recursive: true, force: true });
    if (!skip.has('duckdb')) {
      for (const id of ['duckdb', 'duckdb-256'] as const) {
        if (!existsSync(duckDbs[id])) continue;
        const dsnap = `${duckDbs[id]}.snapshot`;
        if (repeat > 1) cpSync(duckDbs[id], dsnap);
        add(await rep(
          () => runDuckDb(ctx, { id, dataset: 'batch2', file: b2.file, links, db: duckDbs[id], memoryLimit: duckLimit[id], fresh: false }),
          () => cpSync(dsnap, duckDbs[id]),
        ));
        rmSync(dsnap, { force: true });
      }
    }
  }
  for (const f of Object.values(duckDbs)) { rmSync(f, { force: true }); rmSync(`${f}.wal`, { force: true }); }
  if (!ctx.keep) rmSync(drumState, { recursive: true, force: true });

  // 3. The real Heritrix outlink stream (outlink column as lines).
  const heritrix = resolve(repoRoot, HERITRIX);
  if (!skip.has('heritrix') && existsSync(heritrix)) {
    const hfile = join(work, 'heritrix-outlinks.txt');
    const n = await heritrixLines(heritrix, hfile);
    datasets.heritrix = { links: n, source: HERITRIX };
    const hs = join(work, 'drum-heritrix-state');
    if (!skip.has('drum')) add(await rep(() => runDrum(ctx, { id: 'drum', dataset: 'heritrix', label: 'drum ingest (default)', file: hfile, links: n, state: hs, raw: false, fresh: true })));
    if (!skip.has('drum-raw')) add(await rep(() => runDrum(ctx, { id: 'drum-raw', dataset: 'heritrix', label: 'drum ingest --canonical none', file: hfile, links: n, state: hs, raw: true, fresh: true })));
    rmSync(hs, { recursive: true, force: true });
    if (!skip.has('sort')) add(await rep(() => runSort(ctx, 'heritrix', hfile, n)));
    if (!skip.has('set')) add(await rep(() => runPeer(ctx, 'set', 'heritrix', hfile, n)));
    if (!skip.has('level')) add(await rep(() => runPeer(ctx, 'level', 'heritrix', hfile, n)));
  } else if (!skip.has('heritrix')) log(`no ${heritrix}: Heritrix rows skipped`);

  // 4. Scale (opt-in): 100 M links, drum default and sort -u.
  let scaleSlices: ScaleRunResult | null = null;
  // drum verify of the last 100 M-link store: what the big rounds wrote must read back whole.
  let scaleVerify: StoreVerify | null = null;
  const slice = values['scale-slice'] ? Number(values['scale-slice']) : scaleLinks > STREAM_ABOVE ? 10_000_000 : 0;
  if (values.scale && slice > 0 && !skip.has('drum')) {
    scaleSlices = await streamScale(ctx, scaleLinks, slice, Number(values['scale-growth']), seed);
    const sl = scaleSlices.slices;
    const sum = (f: (r: SliceRow) => number | null): number | null => (sl.some((r) => f(r) === null) ? null : sl.reduce((a, r) => a + f(r)!, 0));
    const linksDone = sl.reduce((a, r) => a + r.links, 0);
    const wallMs = sum((r) => r.wallMs)!;
    const row: BenchRow = {
      id: 'drum', dataset: 'scale', label: `drum ingest (default), ${sl.length} slices streamed`, links: linksDone, wallMs,
      linksPerSec: Math.round(linksDone / (wallMs / 1000)), cpuMs: sum((r) => r.cpuMs), cpuPct: null,
      peakRssBytes: Math.max(...sl.map((r) => r.peakRssBytes ?? 0)) || null, bytesWritten: (sl.at(-1)?.stateBytes ?? 0) + (sl.at(-1)?.outputBytesTotal ?? 0),
      unique: sl.at(-1) ? sl.at(-1)!.storeUrlsBefore + sl.at(-1)!.newUrls : null, ratioToSort: null, extrapolated: false, status: 'ok',
      note: `generator CPU ${(scaleSlices.generator?.cpuS ?? 0).toFixed(0)} s, ${((scaleSlices.generator?.cpuShare ?? 0) * 100).toFixed(0)} % of all CPU (ran while drum was idle)`,
    };
    add(row);
  } else if (values.scale) {
    const st = statfsSync(work);
    const free = st.bavail * st.bsize;
    const need = scaleLinks * BYTES_PER_LINK * 3.5; // input + sort temp + outputs + store
    if (free < need) {
      log(`scale run skipped: ${(free / 2 ** 30).toFixed(1)} GiB free under ${work}, needs ~${(need / 2 ** 30).toFixed(0)} GiB`);
    } else {
      const big = await ensureLinks(ctx, scaleLinks, seed, 1);
      datasets.scale = big.meta;
      const ss = join(work, 'drum-scale-state');
      // drum repeats here too: the scale goal is a ratio to the 10 M median, and one 100 M run moves by ±5 %.
      // sort -u runs once (75 s a run; no goal uses it).
      if (!skip.has('drum')) {
        add(await rep(() => runDrum(ctx, { id: 'drum', dataset: 'scale', label: 'drum ingest (default)', file: big.file, links: scaleLinks, state: ss, raw: false, fresh: true })));
        scaleVerify = verifyState(ctx.repoRoot, ss);
      }
      rmSync(ss, { recursive: true, force: true });
      if (!skip.has('sort')) add(await runSort(ctx, 'scale', big.file, scaleLinks));
    }
  }

  // 5. drum resolve: Q URLs against an S-URL store, one merge (its own store, built once and kept with --keep).
  let resolveRun: ResolveBench | null = null;
  let storeBatches: StoreBatches | null = null;
  if (!skip.has('resolve') && drumAvailable(ctx)) {
    resolveRun = await runResolveBench(ctx, Number(values['resolve-store']), Number(values['resolve-urls']));
    add(resolveRun.row);
    // 6. 10 k-link batches into that store through one open Drum, key journal on and off.
    if (resolveRun.row.status === 'ok') storeBatches = await runStoreBatches(ctx, resolveRun.state, resolveRun.queryFile, resolveRun.storeUrls);
    if (!ctx.keep) rmSync(join(work, `drum-resolve-state-${values['resolve-store']}`), { recursive: true, force: true });
  }

  for (const r of rows) {
    const sort = rows.find((s) => s.id === 'sort' && s.dataset === (r.dataset === 'batch2' ? 'main' : r.dataset) && s.status === 'ok');
    if (sort?.wallMs && r.wallMs !== null && r.status === 'ok') r.ratioToSort = Math.round((r.wallMs / sort.wallMs) * 100) / 100;
  }
  const goals = [...checkGoals(rows, links, values.scale ? scaleLinks : null, library10k?.medianMs ?? null, scaleSlices?.slices ?? null), ...resolveGoals(resolveRun), ...storeBatchGoals(storeBatches)];
  const agreement = checkAgreement(rows, datasets);
  if (scaleVerify !== null) agreement.push(formatVerify('the scale store', scaleVerify));
  if (scaleSlices?.verify) agreement.push(formatVerify('the streamed store', scaleSlices.verify));
  const sortVersion = spawnSync('sort', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0];
  const result = {
    command: `node dist/scripts/bench.js ${process.argv.slice(2).join(' ')}`.trim(),
    finishedAt: new Date().toISOString(),
    gitHead,
    machine: { cores: cpus().length, cpu: cpus()[0]?.model, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version, sort: sortVersion, loadAvgAtEnd: loadavg(), rss: hasGnuTime() ? 'GNU time %M' : '/proc VmHWM poll' },
    params: { links, seed, repeat, scale: values.scale, scaleLinks, smallLinks, levelMaxLinks: levelMax, skip: [...skip] },
    datasets,
    rows,
    fixedCosts,
    library10k,
    storeBatches,
    scaleSlices,
    scaleVerify,
    goals,
    agreement,
    content: values.content ? await contentRows(values.content, work, seed, log) : undefined,
  };
  writeFileSync(jsonOut, JSON.stringify(result, null, 2) + '\n');
  const m = datasets.main as GenMeta;
  process.stdout.write(`\nmain file: ${links.toLocaleString('en-US')} links, ${(m.bytes / 2 ** 20).toFixed(0)} MiB, avg URL ${m.avgUrlBytes.toFixed(1)} B, ` +
    `unique exact ${(m.uniqueFraction.exact * 100).toFixed(1)}% / default policy ${(m.uniqueFraction.defaultPolicy * 100).toFixed(1)}% / pages ${(m.uniqueFraction.pages * 100).toFixed(1)}%\n\n`);
  process.stdout.write(formatTable(rows) + '\n\n' + formatStages(rows) + '\n\n' +
    (fixedCosts.length ? `fixed costs of a process (median of 5):\n${formatFixedCosts(fixedCosts)}\n\n` : '') +
    (library10k ? `10 k-link batches through one open Drum on the main store: median ${library10k.medianMs} ms (runs ${library10k.runsMs.join(' / ')}; open ${library10k.openMs} ms once)\n\n` : '') +
    (storeBatches?.journal ? `${formatStoreBatches(storeBatches)}\n\n` : '') +
    (scaleSlices?.fit ? `${formatFit(scaleSlices.fit)}\n\n` : '') +
    formatGoals(goals) + '\n\n' + agreement.join('\n') + `\n\nJSON: ${jsonOut}\n`);
}

/** The content-dedup rows (drum content vs a RAM MinHash-LSH peer) at each document count. */
async function contentRows(sizes: string, work: string, seed: number, log: (s: string) => void): Promise<unknown[]> {
  const { benchOne } = await import('./content-bench.js');
  const rows = [];
  for (const n of sizes.split(',').map(Number)) {
    for (const r of benchOne(n, join(work, 'content'), seed)) {
      log(`content ${r.docs} docs, ${r.tool}: ${r.docsPerSecond} docs/s, peak RSS ${r.peakRssMiB} MiB`);
      rows.push(r);
    }
  }
  return rows;
}

/** The streamed scale run (scale-run.ts) under the bench's work directory. */
async function streamScale(ctx: BenchContext, links: number, slice: number, sliceGrowth: number, seed: number): Promise<ScaleRunResult> {
  const work = join(ctx.work, 'scale-run');
  const json = join(work, 'scale-run.json');
  const grows = sliceGrowth > 0 ? `, growing to ${sliceGrowth} x the URLs stored` : '';
  ctx.log(`streaming ${links.toLocaleString('en-US')} links into one store in slices of ${slice.toLocaleString('en-US')}${grows} (${json})`);
  const r = await scaleRun({ links, slice, seed, sliceGrowth, work, json, keepOutputs: false, log: ctx.log });
  if (!ctx.keep) rmSync(join(work, 'state'), { recursive: true, force: true });
  return r;
}

/**
 * Exact-dedup contenders must agree on the unique count of each file, and
 * drum's default policy should find the generator's model count (the model
 * folds exactly the variants the default policy folds).
 */
function checkAgreement(rows: BenchRow[], datasets: Record<string, unknown>): string[] {
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

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`);
  process.exit(1);
});
