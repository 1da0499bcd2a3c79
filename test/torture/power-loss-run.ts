// Runs one power-loss trial, shared by test/torture/power-loss.test.ts and
// scripts/torture.ts: input A is ingested whole into a new store, then
// input B's ingest loses power before its mutating operation #at (0-based,
// counted through the fault seam); on the disk image power-loss.ts builds
// from that moment, A's outputs must be the reference's, a rerun of B's
// command must write the reference's B outputs, and the store must verify.
// Asserts nothing; callers judge `ok` and print the rest.
// REQUIRES: inputs written once, before powerLossRef.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum, verifyStateDir } from '../../src/engine/drum.js';
import { isDrumError } from '../../src/errors.js';
import type { FsOp } from '../../src/io/fs.js';
import type { DrumOptions } from '../../src/options.js';
import { outputs } from './harness.js';
import { FAULT_OPTS } from './io-faults.js';
import { PowerLossModel } from './power-loss.js';
import { isCrash, SimulatedCrash } from '../helpers/crash.js';

export interface Inputs {
  a: string;
  b: string;
}

export interface PowerLossRef {
  /** Mutating operations of B's ingest. */
  ops: number;
  a: Record<string, string>;
  b: Record<string, string>;
}

export interface PowerLossOutcome {
  at: number;
  op: FsOp | '?';
  path: string;
  ok: boolean;
  /** What differed: A's outputs, the rerun's error or outputs, verify. */
  problem: string;
}

async function ingest(state: string, input: string, out: string, opts: DrumOptions): Promise<void> {
  const d = await Drum.open(state, opts);
  try {
    await d.ingest({ inputs: [input], outDir: out });
  } catch (e) {
    await d.close().catch(() => undefined);
    throw e;
  }
  await d.close();
}

/** The runs never interrupted: A then B into one store, B's operations counted. */
export async function powerLossRef(dir: string, inputs: Inputs, opts: DrumOptions = FAULT_OPTS): Promise<PowerLossRef> {
  const state = join(dir, 'ref-state');
  await ingest(state, inputs.a, join(dir, 'ref-a'), opts);
  let ops = 0;
  await ingest(state, inputs.b, join(dir, 'ref-b'), { ...opts, faultHook: () => void ops++ });
  return { ops, a: outputs(join(dir, 'ref-a')), b: outputs(join(dir, 'ref-b')) };
}

/** Power lost before B's operation #at; the checks on the disk image that leaves. */
export async function powerLossAt(dir: string, inputs: Inputs, ref: PowerLossRef, at: number, opts: DrumOptions = FAULT_OPTS): Promise<PowerLossOutcome> {
  const world = join(dir, `w-${at}`);
  const lost = join(dir, `lost-${at}`);
  fs.mkdirSync(world);
  await ingest(join(world, 'state'), inputs.a, join(world, 'out-a'), opts);
  const model = new PowerLossModel(world);
  let n = 0;
  let where: { op: FsOp | '?'; path: string } = { op: '?', path: '' };
  const hook = (op: FsOp, path: string): void => {
    if (n++ === at) {
      where = { op, path };
      throw new SimulatedCrash(`power lost before ${op} ${path}`);
    }
    model.observe(op, path);
  };
  let problem = '';
  try {
    await ingest(join(world, 'state'), inputs.b, join(world, 'out-b'), { ...opts, faultHook: hook });
    problem = 'the run ended before the power loss';
  } catch (e) {
    if (!isCrash(e)) problem = `the interrupted run failed otherwise: ${String(e)}`;
  }
  // The image takes the world's place: the store records its runs' output directories by path.
  fs.renameSync(world, lost);
  model.build(world, lost);
  if (problem === '') problem = await checkImage(world, inputs, ref, opts).catch((e: unknown) => `the checks threw: ${String(e)}`);
  fs.rmSync(world, { recursive: true, force: true });
  fs.rmSync(lost, { recursive: true, force: true });
  return { at, ...where, ok: problem === '', problem };
}

async function checkImage(image: string, inputs: Inputs, ref: PowerLossRef, opts: DrumOptions): Promise<string> {
  const a = join(image, 'out-a');
  if (!fs.existsSync(a) || JSON.stringify(outputs(a)) !== JSON.stringify(ref.a)) return `A's outputs after the power loss: ${fs.existsSync(a) ? JSON.stringify(outputs(a)) : 'gone'}`;
  try {
    await ingest(join(image, 'state'), inputs.b, join(image, 'out-b'), opts);
  } catch (e) {
    return `the rerun of B failed: ${isDrumError(e) ? `${e.code} ${e.message}` : String(e)}`;
  }
  if (!fs.existsSync(join(image, 'out-b'))) return "B's output directory is gone and the rerun wrote none";
  const b = outputs(join(image, 'out-b'));
  if (JSON.stringify(b) !== JSON.stringify(ref.b)) return `B's outputs after the rerun differ: ${JSON.stringify(b)} against ${JSON.stringify(ref.b)}`;
  const v = await verifyStateDir(join(image, 'state'));
  return v.ok ? '' : `verify: ${v.problems[0]!.code} ${v.problems[0]!.file}`;
}
