// The bench's opt-in scale run (--scale): either N links streamed from the
// generator into one store slice by slice (scale-run.ts; from 10^8 links on,
// or with --scale-slice), summed into one row, or one N-link file through
// drum (median of --repeat runs, then `drum verify` of its store) and
// `sort -u` (once), when the disk has room for the file, sort's temp files
// and the store. Does not judge the rows (bench-report.ts does).
// REQUIRES: called only with --scale.

import { rmSync, statfsSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchArgs } from './bench-args.js';
import type { BenchRow } from './bench-report.js';
import { ensureLinks, runDrum, runSort, type BenchContext } from './bench-runners.js';
import type { BenchTally } from './bench-tally.js';
import { verifyState, type StoreVerify } from './verify-state.js';
import { scaleRun, type ScaleRunResult, type SliceRow } from '../../scale-run.js';

const BYTES_PER_LINK = 62; // generator average incl. newline (see meta avgUrlBytes)

export interface BenchScale {
  /** The streamed run's slices, fit and verify; null when the scale run read one file (or did not run). */
  scaleSlices: ScaleRunResult | null;
  /** drum verify of the last 100 M-link store: what the big rounds wrote must read back whole. */
  scaleVerify: StoreVerify | null;
}

/** Runs the scale stage the flags ask for and adds its rows. */
export async function runScale(ctx: BenchContext, a: BenchArgs, t: BenchTally): Promise<BenchScale> {
  if (a.scaleSlice > 0 && !a.skip.has('drum')) {
    const scaleSlices = await streamScale(ctx, a.scaleLinks, a.scaleSlice, a.scaleGrowth, a.seed);
    t.add(streamedRow(scaleSlices));
    return { scaleSlices, scaleVerify: null };
  }
  return { scaleSlices: null, scaleVerify: await fileScale(ctx, a, t) };
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

/** One row for the whole streamed run: its slices' links, wall and CPU summed, their worst peak RSS. */
function streamedRow(scaleSlices: ScaleRunResult): BenchRow {
  const sl = scaleSlices.slices;
  const sum = (f: (r: SliceRow) => number | null): number | null => (sl.some((r) => f(r) === null) ? null : sl.reduce((a, r) => a + f(r)!, 0));
  const linksDone = sl.reduce((a, r) => a + r.links, 0);
  const wallMs = sum((r) => r.wallMs)!;
  return {
    id: 'drum', dataset: 'scale', label: `drum ingest (default), ${sl.length} slices streamed`, links: linksDone, wallMs,
    linksPerSec: Math.round(linksDone / (wallMs / 1000)), cpuMs: sum((r) => r.cpuMs), cpuPct: null,
    peakRssBytes: Math.max(...sl.map((r) => r.peakRssBytes ?? 0)) || null, bytesWritten: (sl.at(-1)?.stateBytes ?? 0) + (sl.at(-1)?.outputBytesTotal ?? 0),
    unique: sl.at(-1) ? sl.at(-1)!.storeUrlsBefore + sl.at(-1)!.newUrls : null, ratioToSort: null, extrapolated: false, status: 'ok',
    note: `generator CPU ${(scaleSlices.generator?.cpuS ?? 0).toFixed(0)} s, ${((scaleSlices.generator?.cpuShare ?? 0) * 100).toFixed(0)} % of all CPU (ran while drum was idle)`,
  };
}

/** The scale run from one N-link file: drum (then `drum verify` of its store) and sort -u; null verify when drum did not run. */
async function fileScale(ctx: BenchContext, a: BenchArgs, t: BenchTally): Promise<StoreVerify | null> {
  const st = statfsSync(ctx.work);
  const free = st.bavail * st.bsize;
  const need = a.scaleLinks * BYTES_PER_LINK * 3.5; // input + sort temp + outputs + store
  if (free < need) {
    ctx.log(`scale run skipped: ${(free / 2 ** 30).toFixed(1)} GiB free under ${ctx.work}, needs ~${(need / 2 ** 30).toFixed(0)} GiB`);
    return null;
  }
  const big = await ensureLinks(ctx, a.scaleLinks, a.seed, 1);
  t.datasets.scale = big.meta;
  const ss = join(ctx.work, 'drum-scale-state');
  let verify: StoreVerify | null = null;
  // drum repeats here too: the scale goal is a ratio to the 10 M median, and one 100 M run moves by ±5 %.
  // sort -u runs once (75 s a run; no goal uses it).
  if (!a.skip.has('drum')) {
    t.add(await t.rep(() => runDrum(ctx, { id: 'drum', dataset: 'scale', label: 'drum ingest (default)', file: big.file, links: a.scaleLinks, state: ss, raw: false, fresh: true })));
    verify = verifyState(ctx.repoRoot, ss);
  }
  rmSync(ss, { recursive: true, force: true });
  if (!a.skip.has('sort')) t.add(await runSort(ctx, 'scale', big.file, a.scaleLinks));
  return verify;
}
