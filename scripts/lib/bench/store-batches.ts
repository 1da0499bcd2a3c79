// Bench-only: 10 k-link batches into the resolve row's 10 M-URL store
// through one open Drum (scripts/small-batches.ts on a copy of the store),
// twice in the same run: with the key journal at its default, and with it
// off (every batch merges), so the journal's gain is a ratio measured on the
// same machine at the same moment. The batches are the resolve row's query
// URLs: half stored (spread over the whole store), half new. Does not build
// the store (resolve-bench.ts does).

import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Goal } from './bench-report.js';
import type { BenchContext } from './bench-runners.js';
import { runMeasured } from './measure.js';
import type { SmallBatchResult } from '../../small-batches.js';

export interface StoreBatches {
  storeUrls: number;
  /** The key journal at its default. */
  journal: SmallBatchResult | null;
  /** --journal-keys 0: every batch merges. */
  merge: SmallBatchResult | null;
}

/** Runs `batches` batches of 10,000 links from `queryFile` into copies of `state`, journal on and off. */
export async function runStoreBatches(ctx: BenchContext, state: string, queryFile: string, storeUrls: number, batches = 10): Promise<StoreBatches> {
  const out: StoreBatches = { storeUrls, journal: null, merge: null };
  if (!existsSync(join(state, 'MANIFEST')) || !existsSync(queryFile)) return out;
  for (const [which, keys] of [['journal', null], ['merge', 0]] as const) {
    const copy = join(ctx.work, `drum-store-batches-${which}`);
    rmSync(copy, { recursive: true, force: true });
    cpSync(state, copy, { recursive: true });
    // The copy's dirty pages would otherwise be flushed by the first fsync the batches make.
    execFileSync('sync');
    const args = [join(ctx.distDir, 'scripts', 'small-batches.js'), '--state', copy, '--input', queryFile, '--batch', '10000', '--batches', String(batches)];
    if (keys !== null) args.push('--journal-keys', String(keys));
    const m = await runMeasured(process.execPath, args, { timeoutMs: ctx.timeoutMs });
    if (m.exitCode === 0) out[which] = JSON.parse(m.stdout.trim()) as SmallBatchResult;
    else ctx.log(`10 k batches into the ${storeUrls}-URL store (${which}) failed: ${m.stderr.slice(-400)}`);
    rmSync(copy, { recursive: true, force: true });
  }
  return out;
}

/** The goal: a 10 k-link batch into a 10 M-URL store through one open Drum in <= 150 ms (median), the merge path's median beside it. */
export function storeBatchGoals(b: StoreBatches | null): Goal[] {
  const text = `10 k-link batch into the ${(b?.storeUrls ?? 10_000_000).toLocaleString('en-US')}-URL store through one open Drum (median of 10)`;
  const j = b?.journal ?? null;
  if (j === null) return [{ id: 'library-10k-store', text, target: '≤ 150 ms', measured: b === null ? 'not run' : 'failed', verdict: 'SKIP' }];
  const merge = b!.merge;
  const vs = merge === null ? '' : `; every batch merging: ${merge.medianMs} ms (${(merge.medianMs / j.medianMs).toFixed(1)}×)`;
  return [{ id: 'library-10k-store', text, target: '≤ 150 ms', measured: `${j.medianMs} ms${vs}`, verdict: j.medianMs <= 150 ? 'PASS' : 'FAIL' }];
}

/** One line per mode: the median, every run and the open. */
export function formatStoreBatches(b: StoreBatches): string {
  const line = (name: string, r: SmallBatchResult | null): string =>
    r === null ? `  ${name}: not measured` : `  ${name}: median ${r.medianMs} ms (runs ${r.runsMs.join(' / ')}; open ${r.openMs} ms once; peak RSS ${(r.peakRssBytes / 2 ** 20).toFixed(0)} MiB)`;
  return [`10 k-link batches into the ${b.storeUrls.toLocaleString('en-US')}-URL store through one open Drum:`, line('key journal (default)', b.journal), line('--journal-keys 0', b.merge)].join('\n');
}
