// Runs one power-loss trial, shared by power-loss.test.ts (beside it) and
// scripts/torture.ts: input A is ingested whole into a new store, then a
// step loses power before its mutating operation #at (0-based, counted
// through the fault seam): the ingest of input B, a `compact`, or a forget
// of list F. On the disk image power-loss.ts builds from that moment (the
// kindest, or torn from a seed: power-loss-torn.ts; the same checks for
// both, since drum relies on nothing no fsync made durable), A's outputs
// must be the reference's, the step run again must complete, and
// then B's ingest (the step itself, or one after it) must write the
// reference's B outputs, which depend on every URL the store holds, and
// the store must verify. Asserts nothing; callers judge `ok`.
// REQUIRES: inputs written once, before powerLossRef.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum, verifyStateDir } from '../../../src/engine/drum.js';
import { isDrumError } from '../../../src/errors.js';
import type { FsOp } from '../../../src/io/fs.js';
import type { DrumOptions } from '../../../src/options.js';
import { outputs, writeLinks } from '../harness.js';
import { FAULT_OPTS, withDrum } from '../faults/io-faults.js';
import { PowerCut, tornOf } from './power-cut.js';
import { Tear } from './power-loss-torn.js';
import { isCrash } from '../../helpers/crash.js';

export interface Inputs {
  a: string;
  b: string;
  /** URLs to forget (the 'forget' step). */
  f: string;
}

/** The trials' inputs in `dir`: A (900 links), B (1,200, many of A's URLs among them) and F (every third line of A). */
export function writePowerLossInputs(dir: string): Inputs {
  const inputs = { a: join(dir, 'a.txt'), b: join(dir, 'b.txt'), f: join(dir, 'f.txt') };
  writeLinks(inputs.a, 900, 7, { hosts: 30, rejectEvery: 53 });
  writeLinks(inputs.b, 1200, 8, { hosts: 40, rejectEvery: 41 });
  const lines = fs.readFileSync(inputs.a, 'latin1').split('\n');
  fs.writeFileSync(inputs.f, lines.filter((_, i) => i % 3 === 0).join('\n'), 'latin1');
  return inputs;
}

/** What loses power: B's ingest, a compact after A, or a forget of F after A. */
export type Step = 'ingest' | 'compact' | 'forget';

export interface PowerLossRef {
  step: Step;
  /** Mutating operations of the step. */
  ops: number;
  a: Record<string, string>;
  b: Record<string, string>;
}

/** One power-loss trial's outcome (this file's steps, and a shard's: power-loss-serve.ts). */
export interface TrialOutcome {
  at: number;
  /** The torn rebuild's seed (power-loss-torn.ts), or null for the kindest rebuild. */
  torn: number | null;
  /** What the torn rebuild kept and dropped of what was not durable. */
  tally?: Tear['tally'];
  op: FsOp | '?';
  path: string;
  ok: boolean;
  /** What differed: A's outputs, the rerun's error or outputs, verify. */
  problem: string;
}

export interface PowerLossOutcome extends TrialOutcome {
  step: Step;
}

/**
 * The store options of a step's trials: FAULT_OPTS (rounds of 80 keys, a
 * key journal of 200 folded every few rounds, a Bloom gate); for `compact`,
 * a journal that holds all of A's keys, so the compact has them to merge.
 */
export function stepOptions(step: Step): DrumOptions {
  return step === 'compact' ? { ...FAULT_OPTS, journalKeys: 4096 } : FAULT_OPTS;
}

const ingestInto = (input: string, out: string) => (d: Drum) => d.ingest({ inputs: [input], outDir: out });

/** The step in `world` (its state, its outputs); a forget writes its list to `forgetOut`. */
function runStep(step: Step, world: string, inputs: Inputs, opts: DrumOptions, forgetOut: string): Promise<void> {
  const state = join(world, 'state');
  if (step === 'ingest') return withDrum(state, opts, ingestInto(inputs.b, join(world, 'out-b')));
  if (step === 'compact') return withDrum(state, opts, (d) => d.compact());
  return withDrum(state, opts, (d) => d.forget({ inputs: [inputs.f], outDir: join(world, forgetOut) }));
}

/** The runs never interrupted: A, the step (its operations counted), and B's ingest if the step was not it. */
export async function powerLossRef(dir: string, inputs: Inputs, step: Step = 'ingest', opts: DrumOptions = stepOptions(step)): Promise<PowerLossRef> {
  const world = join(dir, `ref-${step}`);
  await withDrum(join(world, 'state'), opts, ingestInto(inputs.a, join(world, 'out-a')));
  let ops = 0;
  await runStep(step, world, inputs, { ...opts, faultHook: () => void ops++ }, 'out-f');
  if (step !== 'ingest') await withDrum(join(world, 'state'), opts, ingestInto(inputs.b, join(world, 'out-b')));
  return { step, ops, a: outputs(join(world, 'out-a')), b: outputs(join(world, 'out-b')) };
}

/** How a trial rebuilds the disk: `torn`, a seed for a torn rebuild (else only what was durable); `opts`, the store's options. */
export interface TrialHow {
  torn?: number;
  opts?: DrumOptions;
}

/** Power lost before the step's operation #at; the checks on the disk image that leaves. */
export async function powerLossAt(dir: string, inputs: Inputs, ref: PowerLossRef, at: number, how: TrialHow = {}): Promise<PowerLossOutcome> {
  const opts = how.opts ?? stepOptions(ref.step);
  const tear = how.torn === undefined ? null : new Tear(how.torn);
  const world = join(dir, `w-${ref.step}-${at}`);
  const lost = join(dir, `lost-${ref.step}-${at}`);
  await withDrum(join(world, 'state'), opts, ingestInto(inputs.a, join(world, 'out-a')));
  const cut = new PowerCut(world, at);
  let problem = '';
  try {
    await runStep(ref.step, world, inputs, { ...opts, faultHook: cut.hook }, 'out-f');
    problem = 'the step ended before the power loss';
  } catch (e) {
    if (!isCrash(e)) problem = `the interrupted step failed otherwise: ${String(e)}`;
  }
  // The image takes the world's place: the store records its runs' output directories by path.
  problem = await cut.rebuild(lost, tear, problem, () => checkImage(world, inputs, ref, opts));
  return { step: ref.step, at, ...tornOf(tear), ...cut.place, ok: problem === '', problem };
}

async function checkImage(world: string, inputs: Inputs, ref: PowerLossRef, opts: DrumOptions): Promise<string> {
  const a = join(world, 'out-a');
  if (!fs.existsSync(a) || JSON.stringify(outputs(a)) !== JSON.stringify(ref.a)) return `A's outputs after the power loss: ${fs.existsSync(a) ? JSON.stringify(outputs(a)) : 'gone'}`;
  const why = (e: unknown): string => (isDrumError(e) ? `${e.code} ${e.message}` : String(e));
  try {
    // A forget run again writes a list of its own: what the lost one forgot is not stored any more.
    await runStep(ref.step, world, inputs, opts, 'out-f-again');
  } catch (e) {
    return `the ${ref.step} run again failed: ${why(e)}`;
  }
  if (ref.step !== 'ingest') {
    try {
      await withDrum(join(world, 'state'), opts, ingestInto(inputs.b, join(world, 'out-b')));
    } catch (e) {
      return `B's ingest after the ${ref.step} failed: ${why(e)}`;
    }
  }
  if (!fs.existsSync(join(world, 'out-b'))) return "B's output directory is gone and the rerun wrote none";
  const b = outputs(join(world, 'out-b'));
  if (JSON.stringify(b) !== JSON.stringify(ref.b)) return `B's outputs differ: ${JSON.stringify(b)} against ${JSON.stringify(ref.b)}`;
  const v = await verifyStateDir(join(world, 'state'));
  return v.ok ? '' : `verify: ${v.problems[0]!.code} ${v.problems[0]!.file}`;
}
