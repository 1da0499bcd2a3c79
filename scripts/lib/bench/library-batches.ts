// Bench-only: the small-batch goal as a long-running crawler meets it. The
// main link file cut into BATCHES batches (1 M links each at 10 M), ingested
// one after another through one open Drum into a new store, against the same
// batch files in one Drum.ingest through another Drum into another new store
// (small-batches.js --whole); `repeat` interleaved pairs, each side in a
// process of its own, the opens not timed. Both stores end with the same
// URLs. Each pair is run again with keys-only stores (`--no-values`): what
// rewriting the values files adds to the batches. Does not judge the goal
// (bench-report.ts does).
// REQUIRES: the compiled scripts (dist/scripts/small-batches.js).

import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { median, runMeasured } from './measure.js';
import type { Goal } from './bench-report.js';
import type { BenchContext } from './bench-runners.js';
import type { SmallBatchResult } from '../../small-batches.js';

/** Batches the main file is cut into. */
export const BATCHES = 10;

export interface LibraryBatches {
  batchLinks: number;
  batches: number;
  /** Per pair: the batches' walls summed, ms. */
  batchesMs: number[];
  /** Per pair: the one ingest's wall, ms. */
  wholeMs: number[];
  /** Per pair: each batch's wall, ms, in order (the first pays the threads' and the JIT's warm-up). */
  perBatchMs: number[][];
  /** Median of batchesMs / median of wholeMs: the per-link cost of a batch against one big ingest. */
  ratio: number;
  /** Per pair: the process's CPU (every thread) over the batches and over the one ingest, ms. */
  batchesCpuMs: number[];
  wholeCpuMs: number[];
  /** The same pairs with keys-only stores: walls summed, ms, and the ratio of their medians. */
  keysOnly: { batchesMs: number[]; wholeMs: number[]; ratio: number };
}

/** One small-batches.js process; null (logged) if it failed. */
async function runOnce(ctx: BenchContext, file: string, batchLinks: number, whole: boolean, keysOnly = false): Promise<SmallBatchResult | null> {
  const state = join(ctx.work, `drum-library-batches-${whole ? 'whole' : 'batches'}`);
  rmSync(state, { recursive: true, force: true });
  const args = [join(ctx.distDir, 'scripts', 'small-batches.js'), '--state', state, '--input', file, '--batch', String(batchLinks), '--batches', String(BATCHES)];
  if (whole) args.push('--whole');
  if (keysOnly) args.push('--no-values');
  const m = await runMeasured(process.execPath, args, { timeoutMs: ctx.timeoutMs });
  rmSync(state, { recursive: true, force: true });
  if (m.exitCode === 0) return JSON.parse(m.stdout.trim()) as SmallBatchResult;
  ctx.log(`library batches${whole ? ' (whole)' : ''} failed: ${m.stderr.slice(-400)}`);
  return null;
}

/** `repeat` pairs (batches, then whole), interleaved; null when a run failed. */
export async function libraryBatchRuns(ctx: BenchContext, file: string, links: number, repeat: number): Promise<LibraryBatches | null> {
  const batchLinks = Math.floor(links / BATCHES);
  const out: LibraryBatches = {
    batchLinks, batches: BATCHES, batchesMs: [], wholeMs: [], perBatchMs: [], ratio: 0, batchesCpuMs: [], wholeCpuMs: [],
    keysOnly: { batchesMs: [], wholeMs: [], ratio: 0 },
  };
  const sum = (r: SmallBatchResult): number => r.runsMs.reduce((x, y) => x + y, 0);
  for (let i = 0; i < repeat; i++) {
    const b = await runOnce(ctx, file, batchLinks, false);
    const w = await runOnce(ctx, file, batchLinks, true);
    const kb = await runOnce(ctx, file, batchLinks, false, true);
    const kw = await runOnce(ctx, file, batchLinks, true, true);
    if (b === null || w === null || kb === null || kw === null) return null;
    out.batchesMs.push(sum(b));
    out.perBatchMs.push(b.runsMs);
    out.wholeMs.push(w.runsMs[0]!);
    out.batchesCpuMs.push(b.cpuMs);
    out.wholeCpuMs.push(w.cpuMs);
    out.keysOnly.batchesMs.push(sum(kb));
    out.keysOnly.wholeMs.push(kw.runsMs[0]!);
    ctx.log(`library batches: ${BATCHES} × ${batchLinks} links ${out.batchesMs.at(-1)} ms (${b.runsMs.join(' / ')}), one ingest ${out.wholeMs.at(-1)} ms; keys only ${sum(kb)} / ${kw.runsMs[0]} ms`);
  }
  out.ratio = median(out.batchesMs) / median(out.wholeMs);
  out.keysOnly.ratio = median(out.keysOnly.batchesMs) / median(out.keysOnly.wholeMs);
  return out;
}

/** The goal: per-link wall of the batches through one open Drum at most 1.25× that of one ingest of them all. */
export function libraryBatchGoals(b: LibraryBatches | null, ran: boolean): Goal[] {
  const text = `per-link wall of ${BATCHES} batches of ${b ? b.batchLinks.toLocaleString('en-US') : '1 M'} links through one open Drum / of one ingest of them (median of pairs)`;
  if (b === null) return [{ id: 'library-batches', text, target: '≤ 1.25×', measured: ran ? 'failed' : 'not run', verdict: 'SKIP' }];
  const firstOff = median(b.perBatchMs.map((r) => r.slice(1).reduce((x, y) => x + y, 0) / (r.length - 1))) * b.batches / median(b.wholeMs);
  const cpu = median(b.batchesCpuMs) / median(b.wholeCpuMs);
  const measured = `${b.ratio.toFixed(2)}× (CPU ${cpu.toFixed(2)}×; without the first batch's warm-up: ${firstOff.toFixed(2)}×; keys-only stores: ${b.keysOnly.ratio.toFixed(2)}×)`;
  return [{ id: 'library-batches', text, target: '≤ 1.25×', measured, verdict: b.ratio <= 1.25 ? 'PASS' : 'FAIL' }];
}

/** One line: every pair's batches and one ingest. */
export function formatLibraryBatches(b: LibraryBatches): string {
  const pairs = b.batchesMs.map((ms, i) => `${ms} / ${b.wholeMs[i]} ms`).join(', ');
  const keysOnly = b.keysOnly.batchesMs.map((ms, i) => `${ms} / ${b.keysOnly.wholeMs[i]} ms`).join(', ');
  return `${b.batches} batches of ${b.batchLinks.toLocaleString('en-US')} links through one open Drum / one ingest of them: ${pairs}; first batches ${b.perBatchMs.map((r) => r[0]).join(' / ')} ms; keys-only stores ${keysOnly}`;
}
