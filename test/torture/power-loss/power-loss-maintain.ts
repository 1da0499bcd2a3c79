// Power-loss trials of the store's maintenance commands, shared by
// power-loss-maintain.test.ts (beside it; a sample) and scripts/torture.ts
// (every operation): input A is ingested whole into a new store (keys only,
// `values: false`, for `drum upgrade`), then one step loses power before its
// mutating operation #at (counted through the fault seam): `drum upgrade`
// (src/engine/jobs/maintain/upgrade.ts: the key journal folded, a values
// file per bucket, one commit), or `drum repair --bloom`, `--url-index` or
// `--catalog` (src/engine/jobs/maintain/repair.ts; the catalog's CURRENT is
// removed first, since the repair leaves a sound catalog as it is). The disk is rebuilt as
// power-loss.ts leaves it (the kindest loss, or torn from a seed:
// power-loss-torn.ts). What docs/cli.md and docs/reliability.md promise,
// and is checked here:
// - A's outputs are whole; a step that returned before the loss left its
//   whole result; and the store verifies (`verifyStateDir`) as it
//   is; the one refusal allowed is the documented one of a catalog rebuild
//   cut short (DRUM_CORRUPT_FILE while its marker, rebuild-marker.ts, is
//   there: "run it again"), or the lost catalog itself before the repair
//   returned, and only for `--catalog`;
// - it holds every URL it held, and an upgrade is either not done (no
//   values) or done whole (the uninterrupted upgrade's values);
// - the same command run again completes and leaves what the uninterrupted
//   one left (the values and docIDs; the Bloom file's bytes; the URL index's
//   bytes; the catalog's runs and host counts);
// - then B's ingest, which depends on every URL the store holds, writes the
//   reference's outputs, and the store verifies.
// Asserts nothing; callers judge `ok`.
// Does not cover a repair of another damaged file (the store here is sound
// but for the lost catalog: the damaged cases are
// test/engine/jobs/maintain/repair.test.ts's), nor
// `--no-fsync` (not crash-safe).
// REQUIRES: inputs written once (writePowerLossInputs), before maintainRef.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../../src/catalog/catalog.js';
import { unfinishedRebuild } from '../../../src/catalog/rebuild-marker.js';
import { repair, upgradeStore, verifyStateDir } from '../../../src/engine/drum.js';
import { isDrumError } from '../../../src/errors.js';
import type { FsOp } from '../../../src/io/fs.js';
import type { DrumOptions } from '../../../src/options.js';
import { readManifest } from '../../../src/store/manifest.js';
import { indexPath } from '../../../src/store/url-log/url-log-format.js';
import { isCrash } from '../../helpers/crash.js';
import { FAULT_OPTS, withDrum } from '../faults/io-faults.js';
import { outputs, sha256 } from '../harness.js';
import { PowerCut, tornOf } from './power-cut.js';
import type { Inputs, TrialOutcome } from './power-loss-run.js';
import { Tear } from './power-loss-torn.js';

/** What loses power: `drum upgrade` of a keys-only store, or `drum repair` of one thing. */
export type MaintainStep = 'upgrade' | 'repair-bloom' | 'repair-url-index' | 'repair-catalog';
export const MAINTAIN_STEPS: readonly MaintainStep[] = ['upgrade', 'repair-bloom', 'repair-url-index', 'repair-catalog'];

export interface MaintainRef {
  step: MaintainStep;
  /** Mutating operations of the step. */
  ops: number;
  a: Record<string, string>;
  b: Record<string, string>;
  /** What the store holds before the step and after it (`heldOf`). */
  before: Held;
  after: Held;
}

/** What a step keeps or changes of a store: its URLs, its values and docIDs, and what the step rebuilds. */
interface Held {
  urls: number;
  /** The buckets' key counts and values CRCs, the docIDs handed out, the value size: an upgrade's whole result. */
  values: string;
  /** The rebuilt thing's bytes or contents: the Bloom file, the URL index, the catalog's runs and host counts. */
  rebuilt: string;
}

export interface MaintainOutcome extends TrialOutcome {
  step: MaintainStep;
}

/** The options of A's ingest and of the ingests after the step: FAULT_OPTS, keys only for an upgrade. */
const storeOptions = (step: MaintainStep): DrumOptions => (step === 'upgrade' ? { ...FAULT_OPTS, values: false } : FAULT_OPTS);

const ingestInto = (input: string, out: string) => (d: { ingest: (o: { inputs: string[]; outDir: string }) => Promise<unknown> }) => d.ingest({ inputs: [input], outDir: out });

/** What the step is to repair: for `--catalog`, a lost catalog (its CURRENT removed); a sound one is left as it is. */
function damageFor(step: MaintainStep, state: string): void {
  if (step === 'repair-catalog') fs.rmSync(join(state, 'catalog', 'CURRENT'));
}

/** The step on the store in `world`, its operations through `hook`. */
async function runStep(step: MaintainStep, world: string, hook: ((op: FsOp, path: string) => void) | null): Promise<void> {
  const state = join(world, 'state');
  const faultHook = hook ?? undefined;
  if (step === 'upgrade') await upgradeStore(state, { ...FAULT_OPTS, faultHook });
  else if (step === 'repair-bloom') await repair(state, { bloom: true }, { faultHook });
  else if (step === 'repair-url-index') await repair(state, { urlIndex: true }, { faultHook });
  else await repair(state, { catalog: true }, { faultHook });
}

/** What the store in `state` holds, as `Held` compares it. */
async function heldOf(step: MaintainStep, state: string): Promise<Held> {
  const m = readManifest(state)!;
  const values = JSON.stringify([m.params.valueBytes ?? 0, m.docIDs ?? 0, m.buckets.map((e) => (e ? [e.keys, e.values?.crc ?? null] : null))]);
  let rebuilt = '';
  if (step === 'repair-bloom') rebuilt = m.bloom ? sha256(fs.readFileSync(join(state, m.bloom.file))) : 'none';
  else if (step === 'repair-url-index') rebuilt = m.urlLog ? `${m.urlLog.indexBytes} ${sha256(fs.readFileSync(indexPath(state)).subarray(0, m.urlLog.indexBytes))}` : 'none';
  else if (step === 'repair-catalog') {
    const c = await Catalog.open(state, { readOnly: true });
    try {
      const runs = (await c.listRuns(1000)).map((r) => [r.status, r.counts]);
      rebuilt = JSON.stringify([runs, await c.topHosts(1000)]);
    } finally {
      await c.close();
    }
  }
  return { urls: m.storeUrls, values, rebuilt };
}

/** The runs never interrupted: A, the step (its operations counted), B. */
export async function maintainRef(dir: string, inputs: Inputs, step: MaintainStep): Promise<MaintainRef> {
  const world = join(dir, `ref-${step}`);
  const state = join(world, 'state');
  await withDrum(state, storeOptions(step), ingestInto(inputs.a, join(world, 'out-a')));
  const before = await heldOf(step, state);
  damageFor(step, state);
  let ops = 0;
  await runStep(step, world, () => void ops++);
  const after = await heldOf(step, state);
  await withDrum(state, FAULT_OPTS, ingestInto(inputs.b, join(world, 'out-b')));
  return { step, ops, a: outputs(join(world, 'out-a')), b: outputs(join(world, 'out-b')), before, after };
}

/** Power lost before the step's operation #at (#ops: just after the step returned); a seed tears the disk. The checks on what that leaves. */
export async function maintainLossAt(dir: string, inputs: Inputs, ref: MaintainRef, at: number, torn?: number): Promise<MaintainOutcome> {
  const tear = torn === undefined ? null : new Tear(torn);
  const world = join(dir, `w-${ref.step}-${at}`);
  const lost = join(dir, `lost-${ref.step}-${at}`);
  await withDrum(join(world, 'state'), storeOptions(ref.step), ingestInto(inputs.a, join(world, 'out-a')));
  damageFor(ref.step, join(world, 'state'));
  const cut = new PowerCut(world, at);
  let problem = '';
  try {
    await runStep(ref.step, world, cut.hook);
    if (at < ref.ops) problem = 'the step ended before the power loss';
  } catch (e) {
    if (!isCrash(e)) problem = `the interrupted step failed otherwise: ${why(e)}`;
  }
  problem = await cut.rebuild(lost, tear, problem, () => checkImage(world, inputs, ref, at === ref.ops), why);
  return { step: ref.step, at, ...tornOf(tear), ...cut.place, ok: problem === '', problem };
}

const why = (e: unknown): string => (isDrumError(e) ? `${e.code} ${e.message}` : String(e));

/** What differs on the rebuilt disk from what the header promises, or '' when nothing. */
async function checkImage(world: string, inputs: Inputs, ref: MaintainRef, returned: boolean): Promise<string> {
  const state = join(world, 'state');
  const a = join(world, 'out-a');
  if (!fs.existsSync(a) || JSON.stringify(outputs(a)) !== JSON.stringify(ref.a)) return "A's outputs are not whole after the power loss";
  const v = await verifyStateDir(state);
  // A rebuild cut short (its marker there), or, before the repair returned, the catalog it was to rebuild still lost.
  const refused = ref.step === 'repair-catalog' && (unfinishedRebuild(state) !== null || !returned);
  const catalogOnly = v.problems.every((p) => p.code === 'DRUM_CORRUPT_FILE' && p.file === join(state, 'catalog'));
  if (!v.ok && !(refused && catalogOnly)) return `verify after the loss: ${v.problems[0]!.code} ${v.problems[0]!.message}`;
  const held = await heldOf(ref.step, state).catch((e: unknown) => why(e));
  if (typeof held === 'string') return `reading the store after the loss: ${held}`;
  if (held.urls !== ref.before.urls) return `${held.urls} URLs after the loss, ${ref.before.urls} before`;
  if (ref.step === 'upgrade' && held.values !== ref.before.values && !(held.values.startsWith('[0,') || held.values === ref.after.values)) {
    return `an upgrade neither undone nor whole: ${held.values}`;
  }
  if (returned && JSON.stringify(held) !== JSON.stringify(ref.after)) return `the ${ref.step} returned, and the store holds ${JSON.stringify(held)}, not ${JSON.stringify(ref.after)}`;
  try {
    await runStep(ref.step, world, null);
  } catch (e) {
    return `the ${ref.step} run again failed: ${why(e)}`;
  }
  const again = await heldOf(ref.step, state);
  if (JSON.stringify(again) !== JSON.stringify(ref.after)) return `after the ${ref.step} run again: ${JSON.stringify(again)}, not ${JSON.stringify(ref.after)}`;
  try {
    await withDrum(state, FAULT_OPTS, ingestInto(inputs.b, join(world, 'out-b')));
  } catch (e) {
    return `B's ingest failed: ${why(e)}`;
  }
  if (JSON.stringify(outputs(join(world, 'out-b'))) !== JSON.stringify(ref.b)) return "B's outputs differ from the reference's";
  const w = await verifyStateDir(state);
  return w.ok ? '' : `verify after B: ${w.problems[0]!.code} ${w.problems[0]!.message}`;
}

/** What a sweep measured: operations tried (all steps), trials, the trials that went wrong, seconds, and what the torn rebuilds kept. */
export interface MaintainSweep {
  ops: Record<string, number>;
  trials: number;
  bad: MaintainOutcome[];
  seconds: number;
  kept: Tear['tally'];
}

/** A power loss before every operation of each step, and just after it: the kindest rebuild, or `seeds` torn ones per operation (`seedOf(k, at, s)` for step #k). */
export async function maintainSweep(dir: string, inputs: Inputs, seeds: number, seedOf: (k: number, at: number, s: number) => number, onStep?: (step: MaintainStep, ops: number, bad: number) => void): Promise<MaintainSweep> {
  const t0 = Date.now();
  const kept = { files: 0, pagesKept: 0, pagesDropped: 0, namesKept: 0, namesDropped: 0 };
  const bad: MaintainOutcome[] = [];
  const ops: Record<string, number> = {};
  let trials = 0;
  for (const [k, step] of MAINTAIN_STEPS.entries()) {
    const ref = await maintainRef(dir, inputs, step);
    ops[step] = ref.ops;
    for (let at = 0; at <= ref.ops; at++) {
      for (let s = 0; s < Math.max(1, seeds); s++) {
        const o = await maintainLossAt(dir, inputs, ref, at, seeds === 0 ? undefined : seedOf(k, at, s));
        trials++;
        for (const key of Object.keys(kept) as (keyof typeof kept)[]) kept[key] += o.tally?.[key] ?? 0;
        if (!o.ok) bad.push(o);
      }
    }
    onStep?.(step, ref.ops, bad.length);
  }
  return { ops, trials, bad, seconds: Math.round((Date.now() - t0) / 1000), kept };
}
