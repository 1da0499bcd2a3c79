// In-process IO-fault sweep shared by io-faults.test.ts (beside it; a
// seeded sample) and scripts/torture.ts (every operation): counts the
// mutating file operations of a multi-round ingest through the fault seam
// (DrumOptions.faultHook), then for chosen operation indexes injects ENOSPC
// (persistent from there on for writes, opens and mkdirs: a full disk) or EIO
// (that one operation fails) and reports what happened: which error surfaced,
// whether the committed state verified, and whether a clean rerun reproduced
// the uninterrupted outputs. Asserts nothing; callers judge the outcome.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum, verifyStateDir } from '../../../src/engine/drum.js';
import { isDrumError } from '../../../src/errors.js';
import type { FsOp } from '../../../src/io/fs.js';
import type { DrumOptions } from '../../../src/options.js';
import { outputs } from '../harness.js';

export const FAULT_OPTS: DrumOptions = {
  workers: 0, fsync: true, chunkBytes: 4096, cacheEntries: 64, recentEntries: 64, bloom: 'gate', // gate: the Bloom file is written at each merge too
  // A small key journal: rounds append to it and every few of them a fold merges it into the bucket files.
  journalKeys: 200,
  tuning: { maxBucketEntries: 80, urlsPerFile: 150 },
};

export interface OpTrace {
  ops: { op: FsOp; path: string }[];
  expected: Record<string, string>;
}

/** Opens the store, runs `job`, closes it: as the CLI does (src/cli/engine.ts withDrum), the first error wins and close still runs. */
export async function withDrum(state: string, opts: DrumOptions, job: (d: Drum) => Promise<unknown>): Promise<void> {
  const d = await Drum.open(state, opts);
  try {
    await job(d);
  } catch (e) {
    await d.close().catch(() => undefined);
    throw e;
  }
  await d.close();
}

function ingestOnce(state: string, input: string, out: string, opts: DrumOptions): Promise<void> {
  return withDrum(state, opts, (d) => d.ingest({ inputs: [input], outDir: out }));
}

/** The uninterrupted run: every mutating operation in order, and the outputs. */
export async function traceOps(dir: string, input: string, opts: DrumOptions = FAULT_OPTS): Promise<OpTrace> {
  const ops: { op: FsOp; path: string }[] = [];
  const out = join(dir, 'ref-out');
  await ingestOnce(join(dir, 'ref-state'), input, out, { ...opts, faultHook: (op, path) => void ops.push({ op, path }) });
  return { ops, expected: outputs(out) };
}

export type FaultCode = 'ENOSPC' | 'EIO';

export interface FaultOutcome {
  at: number;
  op: FsOp;
  path: string;
  code: FaultCode;
  /** The error that stopped open/ingest/close: a DrumError code, 'none', or 'other: ...'. */
  surfaced: string;
  /** The message mentions the errno code and a path. */
  clearMessage: boolean;
  /** verifyStateDir after the fault: 'ok', 'no-store', or the first problem. */
  verifyAfterFault: string;
  /** A rerun without faults wrote outputs identical to the uninterrupted run's, and verify passed. */
  rerunIdentical: boolean;
  rerunVerify: string;
}

function errnoError(code: FaultCode, op: FsOp, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected before ${op} ${path}`), { code, errno: code === 'EIO' ? -5 : -28, syscall: op });
}

async function verifyText(state: string): Promise<string> {
  try {
    const v = await verifyStateDir(state);
    return v.ok ? 'ok' : `${v.problems[0]!.code} ${v.problems[0]!.file}`;
  } catch (e) {
    if (isDrumError(e, 'DRUM_NOT_FOUND')) return 'no-store';
    return `threw ${isDrumError(e) ? e.code : String(e)}`;
  }
}

/** Injects `code` at mutating operation #at (0-based) of the run, then reruns it clean. */
export async function faultAt(dir: string, input: string, trace: OpTrace, at: number, code: FaultCode, opts: DrumOptions = FAULT_OPTS): Promise<FaultOutcome> {
  const state = join(dir, `s-${code}-${at}`);
  const out = join(dir, `o-${code}-${at}`);
  let n = 0;
  let tripped = false;
  const hook = (op: FsOp, path: string): void => {
    const i = n++;
    if (i === at) tripped = true;
    if (!tripped) return;
    // A full disk keeps refusing new bytes; an EIO hits one operation.
    if (i === at || (code === 'ENOSPC' && (op === 'write' || op === 'open-write' || op === 'mkdir'))) throw errnoError(code, op, path);
  };
  let surfaced = 'none';
  let clearMessage = false;
  try {
    await ingestOnce(state, input, out, { ...opts, faultHook: hook });
  } catch (e) {
    surfaced = isDrumError(e) ? e.code : `other: ${(e as Error)?.stack ?? String(e)}`;
    const msg = (e as Error)?.message ?? '';
    clearMessage = msg.includes(code) && /\//.test(msg);
  }
  const verifyAfterFault = await verifyText(state);
  let rerunIdentical = false;
  try {
    await ingestOnce(state, input, out, opts);
    rerunIdentical = JSON.stringify(outputs(out)) === JSON.stringify(trace.expected);
  } catch (e) {
    surfaced += ` / rerun: ${isDrumError(e) ? e.code : String(e)}`;
  }
  const rerunVerify = await verifyText(state);
  fs.rmSync(state, { recursive: true, force: true });
  fs.rmSync(out, { recursive: true, force: true });
  const o = trace.ops[at]!;
  return { at, op: o.op, path: o.path, code, surfaced, clearMessage, verifyAfterFault, rerunIdentical, rerunVerify };
}

/**
 * What a fault must lead to: the run stops with DRUM_IO naming the errno
 * code and the file — except a fault in a saved cache (tiers.cache,
 * memo.cache: never state), where the run must go on without the cache;
 * either way the committed state verifies and a clean rerun writes the
 * uninterrupted outputs.
 */
export function faultHandled(o: FaultOutcome): boolean {
  // Every cache write goes through saveCache, which must swallow the IO error: stopping the run there is a regression.
  const handled = /\.cache(\.tmp)?$/.test(o.path) ? o.surfaced === 'none' : o.surfaced === 'DRUM_IO' && o.clearMessage;
  return handled && (o.verifyAfterFault === 'ok' || o.verifyAfterFault === 'no-store') && o.rerunIdentical && o.rerunVerify === 'ok';
}

/** A seeded sample of operation indexes: `count` spread evenly, plus the first of each op type. */
export function sampleOps(trace: OpTrace, count: number): number[] {
  const picks = new Set<number>();
  const n = trace.ops.length;
  for (let i = 0; i < count; i++) picks.add(Math.min(n - 1, Math.floor(((i + 0.5) * n) / count)));
  const seen = new Set<FsOp>();
  trace.ops.forEach((o, i) => {
    if (!seen.has(o.op)) {
      seen.add(o.op);
      picks.add(i);
    }
  });
  return [...picks].sort((a, b) => a - b);
}
