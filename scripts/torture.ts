// The full torture suite (`npm run torture`, minutes): >= 20 seeded kill -9s
// of the real bin/drum spread over reading, merging and committing, each run
// resumed until it completes and checked byte-for-byte against an
// uninterrupted run plus `drum verify`; the many-writer race (a kill -9ed
// ingest, then identical ingests, library opens and bare lock takers started
// together: one holder at a time, DRUM_LOCKED for the rest, verify after each
// trial, no URL emitted as new twice); the IO-fault sweep (ENOSPC and EIO at
// every mutating operation of a multi-round ingest); a power loss before
// every mutating operation of an ingest, a compact and a forget on a store
// that holds a run (the disk rebuilt from what was fsynced,
// test/torture/power-loss/power-loss.ts), and again on a torn disk that
// also keeps a seeded choice of the pages and names not made durable
// (power-loss-torn.ts; --torn-seeds per operation); the same power losses
// at every operation of a shard's life (`drum serve` on a nats-server of its
// own, power-loss-serve.ts; skipped with a failure without nats-server,
// like the others: kind, then torn), and at every operation of a
// `drum content` run, MinHash and SimHash (power-loss-content.ts; kind, then
// torn), of `drum upgrade` and `drum repair` (power-loss-maintain.ts) and of
// a content run converting a `drum-content/1` store
// (power-loss-content-v1.ts); a long hostile-input
// fuzz; a 1 GiB file with no newline, 10^6 distinct hosts and one host with
// 10^6 URLs (RSS and time); and the CI torture tests (corruption matrix,
// concurrency, paths, kill -9 during an open's host-count fold). Prints a summary and writes it as JSON (--json FILE).
// Exits 1 if any check failed. Run from the repository root.

import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { scriptArgs } from './lib/script-args.js';
import fc from 'fast-check';
import {
  MANY_ROUNDS, SMALL_TUNING, drum, manifestOf, outputs, rng, tempRoot, writeLinks, distRoot,
} from '../test/torture/harness.js';
import { runAndKill, type KillAim } from '../test/torture/kill/kill.js';
import { faultAt, faultHandled, traceOps, FAULT_OPTS, type FaultOutcome } from '../test/torture/faults/io-faults.js';
import { powerContentSection, powerContentV1Section, powerMaintainSection, powerSection, powerServeSection, type TortureContext } from './lib/torture/torture-power.js';
import { checkHostile, hostileBytes, openHostile } from '../test/torture/inputs/hostile.js';
import { lockRace, repeatedUrls, writerRace } from '../test/torture/writers/writers.js';

const { values: a } = scriptArgs(import.meta.url, {
  options: {
    kills: { type: 'string', default: '24' },
    seed: { type: 'string', default: '20261122' },
    links: { type: 'string', default: '300000' },
    'fuzz-runs': { type: 'string', default: '600' },
    'torn-seeds': { type: 'string', default: '1' },
    races: { type: 'string', default: '12' },
    only: { type: 'string' },
    'skip-big': { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const summary: Record<string, unknown> = { seed: Number(a.seed) };
const failures: string[] = [];
const root = tempRoot('drum-torture-full-');
const log = (s: string): void => void process.stdout.write(`${s}\n`);
const ctx: TortureContext = { root, seed: Number(a.seed), tornSeeds: Number(a['torn-seeds']), summary, failures, log };

async function killSection(): Promise<void> {
  const input = join(root, 'kill-links.txt');
  writeLinks(input, Number(a.links), Number(a.seed));
  const configs = [
    { name: 'fsync, 1 worker', flags: [...MANY_ROUNDS, '--workers', '1'] },
    { name: 'fsync, inline parse, bloom gate', flags: [...MANY_ROUNDS, '--workers', '0', '--bloom', 'gate'] },
    { name: 'fsync, default workers, small tiers on', flags: [...SMALL_TUNING, '--buckets', '8', '--cache-entries', '4096', '--recent-entries', '4096', '--merge-every', '20000'] },
  ];
  const want = Number(a.kills);
  const r = rng(Number(a.seed));
  const phases: Record<string, number> = {};
  let kills = 0;
  let trials = 0;
  const aims: KillAim[] = ['time', 'merge', 'commit'];
  for (let t = 0; kills < want; t++) {
    const cfg = configs[t % configs.length]!;
    const base = ['ingest', '--no-progress', '--quiet', ...cfg.flags];
    const refState = join(root, `kref-${t}`);
    const t0 = Date.now();
    const ref = await drum([...base, '--state', refState, '--out', join(root, `kref-out-${t}`), input], { cwd: root });
    const refMs = Date.now() - t0;
    if (ref.status !== 0) throw new Error(`reference run failed: ${ref.stderr}`);
    const expected = outputs(join(root, `kref-out-${t}`));
    const state = join(root, `k-${t}`);
    const out = join(root, `k-out-${t}`);
    const landed: string[] = [];
    for (let i = 0; i < 6 && kills < want; i++) {
      const aim = aims[Math.floor(r() * aims.length)]!;
      const k = await runAndKill([...base, '--state', state, '--out', out, input], { cwd: root, state, aim, delayMs: Math.floor(refMs * (aim === 'time' ? 0.15 + 0.85 * r() : 1.5)) });
      if (!k.killed) {
        if (k.result.status !== 0) failures.push(`kill trial ${t}: run exited ${k.result.status}: ${k.result.stderr}`);
        break; // the run completed before the kill
      }
      kills++;
      landed.push(`${k.phase}@${k.commit}`);
      phases[k.phase] = (phases[k.phase] ?? 0) + 1;
    }
    const fin = await drum([...base, '--state', state, '--out', out, input], { cwd: root });
    const same = fin.status === 0 && JSON.stringify(outputs(out)) === JSON.stringify(expected);
    const v = await drum(['verify', '--state', state], { cwd: root });
    const hosts = await drum(['hosts', '--json', '--top', '1000000', '--state', state], { cwd: root });
    const hostSum = hosts.status === 0 ? (JSON.parse(hosts.stdout) as { uniqueUrls: number }[]).reduce((x, h) => x + h.uniqueUrls, 0) : -1;
    const stored = manifestOf(state)?.storeUrls ?? -2;
    trials++;
    log(`kill trial ${t} (${cfg.name}): ${landed.length} kills at ${landed.join(', ')}; outputs identical: ${same}; verify: ${v.status}; host table sum ${hostSum} vs stored ${stored}`);
    if (!same) failures.push(`kill trial ${t}: outputs differ from the uninterrupted run (${fin.stderr})`);
    if (v.status !== 0) failures.push(`kill trial ${t}: verify exited ${v.status}: ${v.stderr}`);
    if (hostSum !== stored) failures.push(`kill trial ${t}: host table counts ${hostSum} URLs, store holds ${stored} (finding: host counts of a round committed just before a kill are lost)`);
  }
  summary.kill = { kills, trials, phases, links: Number(a.links) };
}

async function raceSection(): Promise<void> {
  const dir = join(root, 'race');
  fs.mkdirSync(dir);
  const state = join(dir, 'st');
  const o = { links: 100_000, seed: Number(a.seed), writers: 6, opens: 3, flags: [...MANY_ROUNDS, '--workers', '1'] };
  const tally = { trials: 0, killed: 0, ingests: 0, ingestsProceeded: 0, ingestsLocked: 0, opens: 0, opensProceeded: 0, opensLocked: 0, reruns: 0 };
  for (let t = 0; t < Number(a.races); t++) {
    const r = await writerRace(dir, state, t, o);
    tally.trials++;
    if (r.killed) tally.killed++;
    tally.ingests += r.writers.length;
    tally.ingestsProceeded += r.writers.filter((x) => x === 0).length;
    tally.ingestsLocked += r.writers.filter((x) => x === 10).length;
    tally.opens += r.opens.length;
    tally.opensProceeded += r.opens.filter((x) => x.got && !x.overlap).length;
    tally.opensLocked += r.opens.filter((x) => x.code === 'DRUM_LOCKED').length;
    if (r.rerun !== null) tally.reruns++;
    log(`race trial ${t}: killed ${r.killed}; ingests ${r.writers.join(',')}; opens ${r.opens.map((x) => (x.got ? 'held' : x.code)).join(',')}; rerun ${r.rerun}; verify ${r.verify.status}`);
    if (r.writers.some((x) => x !== 0 && x !== 10)) failures.push(`race trial ${t}: an ingest exited neither 0 nor 10: ${r.stderr.join(' | ')}`);
    if (r.opens.some((x) => (x.got ? x.overlap : x.code !== 'DRUM_LOCKED'))) failures.push(`race trial ${t}: a library open overlapped or failed: ${JSON.stringify(r.opens)}`);
    if (r.rerun !== null && r.rerun !== 0) failures.push(`race trial ${t}: the lone rerun exited ${r.rerun}`);
    if (r.verify.status !== 0) failures.push(`race trial ${t}: verify exited ${r.verify.status}: ${r.verify.stdout}${r.verify.stderr}`);
  }
  const u = repeatedUrls(dir);
  if (u.repeats.length > 0) failures.push(`race: ${u.repeats.length} URLs emitted as new twice, e.g. ${u.repeats.slice(0, 3).join('; ')}`);
  if (u.urls !== (manifestOf(state)?.storeUrls ?? -1)) failures.push(`race: ${u.urls} unique URLs emitted, store holds ${manifestOf(state)?.storeUrls}`);
  // Bare lock takers (acquireLock), many at once, against the same store.
  let lockTrials = 0;
  let lockHeld = 0;
  let lockRefused = 0;
  for (let t = 0; t < 3 * Number(a.races); t++) {
    const r = await lockRace('lock', state, 8, 50);
    lockTrials++;
    lockHeld += r.filter((x) => x.got).length;
    lockRefused += r.filter((x) => x.code === 'DRUM_LOCKED').length;
    if (r.some((x) => (x.got ? x.overlap : x.code !== 'DRUM_LOCKED')) || !r.some((x) => x.got)) failures.push(`lock race ${t}: ${JSON.stringify(r)}`);
  }
  summary.race = { ...tally, uniqueUrls: u.urls, repeatedUrls: u.repeats.length, lockTrials, lockTakers: lockTrials * 8, lockHeld, lockRefused };
  log(`race: ${JSON.stringify(summary.race)}`);
}

async function faultSection(): Promise<void> {
  const dir = join(root, 'faults');
  fs.mkdirSync(dir);
  const input = join(dir, 'links.txt');
  writeLinks(input, 1200, 5, { hosts: 40, rejectEvery: 41 });
  const bad: FaultOutcome[] = [];
  const byOp: Record<string, number> = {};
  let cases = 0;
  // Every operation without fsync (fast), then with fsync: every fsync and every 5th other operation.
  for (const [label, opts, stride] of [['no-fsync', { ...FAULT_OPTS, fsync: false }, 1], ['fsync', FAULT_OPTS, 5]] as const) {
    const trace = await traceOps(join(dir, label), (fs.mkdirSync(join(dir, label)), input), opts);
    for (let at = 0; at < trace.ops.length; at++) {
      if (at % stride !== 0 && trace.ops[at]!.op !== 'fsync') continue;
      for (const code of ['ENOSPC', 'EIO'] as const) {
        const o = await faultAt(join(dir, label), input, trace, at, code, opts);
        cases++;
        byOp[o.op] = (byOp[o.op] ?? 0) + 1;
        if (!faultHandled(o)) bad.push(o);
      }
    }
    log(`IO faults (${label}): ${trace.ops.length} operations, ${cases} cases so far, ${bad.length} bad`);
  }
  for (const o of bad.slice(0, 20)) failures.push(`IO fault: ${JSON.stringify(o)}`);
  summary.ioFaults = { cases, byOp, bad: bad.length };
}


async function fuzzSection(): Promise<void> {
  const dir = join(root, 'fuzz');
  fs.mkdirSync(dir);
  const ctx = await openHostile(dir);
  const t0 = Date.now();
  let problems: string[] = [];
  try {
    await fc.assert(fc.asyncProperty(hostileBytes, async (b) => {
      problems = await checkHostile(ctx, b);
      return problems.length === 0;
    }), { seed: Number(a.seed), numRuns: Number(a['fuzz-runs']) });
  } catch (e) {
    failures.push(`fuzz: ${(e as Error).message.slice(0, 500)} ${problems.join('; ')}`);
  } finally {
    await ctx.drum.close();
  }
  summary.fuzz = { runs: Number(a['fuzz-runs']), urlsThrough: ctx.seen.size, ms: Date.now() - t0 };
  log(`fuzz: ${a['fuzz-runs']} runs, ${ctx.seen.size} distinct URLs through, ${Date.now() - t0} ms`);
}

/** Writes `count` lines of `make(i)` in big pieces. */
function writeMany(path: string, count: number, make: (i: number) => string): void {
  const fd = fs.openSync(path, 'w');
  for (let i = 0; i < count; ) {
    const part: string[] = [];
    for (let j = 0; j < 50_000 && i < count; j++, i++) part.push(make(i));
    fs.writeSync(fd, part.join('\n') + '\n');
  }
  fs.closeSync(fd);
}

async function bigSection(): Promise<void> {
  const cases: { name: string; write: (p: string) => void; expect: (r: Record<string, number>) => boolean }[] = [
    {
      name: '1 GiB, no newline',
      write: (p) => {
        const fd = fs.openSync(p, 'w');
        const block = Buffer.alloc(16 << 20, 0x61);
        block.write('http://x.example/', 0);
        for (let i = 0; i < 64; i++) fs.writeSync(fd, block);
        fs.closeSync(fd);
      },
      expect: (r) => r.linksRead === 1 && r.rejectedLines === 1,
    },
    { name: '10^6 distinct hosts', write: (p) => writeMany(p, 1_000_000, (i) => `http://host${i}.example/`), expect: (r) => r.uniqueUrls === 1_000_000 },
    { name: 'one host, 10^6 URLs', write: (p) => writeMany(p, 1_000_000, (i) => `http://one.example/page/${i}`), expect: (r) => r.uniqueUrls === 1_000_000 },
  ];
  const results: Record<string, unknown>[] = [];
  for (const c of cases) {
    const p = join(root, `big-${results.length}.txt`);
    c.write(p);
    const bytes = fs.statSync(p).size;
    const t0 = Date.now();
    // /usr/bin/time would add a dependency; the report's peakRssBytes is process.resourceUsage().maxRSS of the drum process.
    const r = await drum(['ingest', '--json', '--no-progress', '--memory', '256MiB', '--state', join(root, `big-state-${results.length}`), p], { cwd: root });
    const wall = Date.now() - t0;
    fs.rmSync(p);
    if (r.status !== 0) {
      failures.push(`${c.name}: exit ${r.status}: ${r.stderr}`);
      continue;
    }
    const rep = JSON.parse(r.stdout) as Record<string, number>;
    const row = { name: c.name, bytes, wallMs: wall, peakRssMiB: Math.round(rep.peakRssBytes! / 2 ** 20), linksRead: rep.linksRead, uniqueUrls: rep.uniqueUrls, rejectedLines: rep.rejectedLines };
    results.push(row);
    log(`big: ${JSON.stringify(row)}`);
    if (!c.expect(rep)) failures.push(`${c.name}: unexpected counts ${JSON.stringify(row)}`);
  }
  summary.big = results;
}

function ciTests(): void {
  const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', join(distRoot, 'test', 'torture')], { encoding: 'utf8' });
  const count = (k: string): number => Number(new RegExp(`^# ${k} (\\d+)`, 'm').exec(r.stdout)?.[1] ?? -1);
  summary.ciTests = { tests: count('tests'), pass: count('pass'), fail: count('fail'), todo: count('todo') };
  log(`CI torture tests: ${JSON.stringify(summary.ciTests)}`);
  if (r.status !== 0) failures.push('CI torture tests failed');
}

const t0 = Date.now();
// --only kill|race|faults|power|power-torn|power-serve|power-serve-torn|power-content|power-content-torn|power-maintain|power-maintain-torn|power-content-v1|power-content-v1-torn|fuzz|big|ci runs one section.
const run = (name: string): boolean => a.only === undefined || a.only === name;
if (run('kill')) await killSection();
if (run('race')) await raceSection();
if (run('faults')) await faultSection();
if (run('power')) await powerSection(ctx, false);
if (run('power-torn')) await powerSection(ctx, true);
for (const torn of [false, true]) if (run(torn ? 'power-serve-torn' : 'power-serve')) await powerServeSection(ctx, torn).catch((e: unknown) => void failures.push(`power-serve: ${String(e)}`));
for (const torn of [false, true]) if (run(torn ? 'power-content-torn' : 'power-content')) await powerContentSection(ctx, torn);
for (const torn of [false, true]) if (run(torn ? 'power-maintain-torn' : 'power-maintain')) await powerMaintainSection(ctx, torn);
for (const torn of [false, true]) if (run(torn ? 'power-content-v1-torn' : 'power-content-v1')) await powerContentV1Section(ctx, torn);
if (run('fuzz')) await fuzzSection();
if (run('big') && !a['skip-big']) await bigSection();
if (run('ci')) ciTests();
summary.elapsedS = Math.round((Date.now() - t0) / 1000);
summary.failures = failures;
if (a.json) fs.writeFileSync(a.json, JSON.stringify(summary, null, 2));
log(JSON.stringify(summary, null, 2));
fs.rmSync(root, { recursive: true, force: true });
process.exitCode = failures.length > 0 ? 1 : 0;
