// The power-loss sections of the full torture suite (scripts/torture.ts):
// a power loss before every mutating operation of an ingest, a compact and a
// forget on a store that holds a run
// (test/torture/power-loss/power-loss-run.ts), before every operation
// of a shard's life (power-loss-serve.ts beside it), and before every
// operation of a `drum content` run, MinHash and SimHash
// (power-loss-content.ts beside it), before every operation of `drum
// upgrade` and `drum repair --bloom|--url-index|--catalog`
// (power-loss-maintain.ts) and of a content run converting a
// `drum-content/1` store (power-loss-content-v1.ts), each with
// the kindest rebuild of the disk or torn ones from seeds derived from the
// suite's --seed. Records counts in the suite's summary and failures in its
// list. Does not parse arguments or print the summary (torture.ts does).
// REQUIRES: nats-server for the shard's sections (their failure says so).

import * as fs from 'node:fs';
import { join } from 'node:path';
import { powerLossAt, powerLossRef, writePowerLossInputs, type PowerLossOutcome } from '../../../test/torture/power-loss/power-loss-run.js';
import { serveSweep } from '../../../test/torture/power-loss/power-loss-serve.js';
import { contentSweep, writeContentInputs } from '../../../test/torture/power-loss/power-loss-content.js';
import { v1Sweep } from '../../../test/torture/power-loss/power-loss-content-v1.js';
import { maintainSweep } from '../../../test/torture/power-loss/power-loss-maintain.js';

/** What a section needs of the suite. */
export interface TortureContext {
  /** A fresh directory for the sections' own directories. */
  root: string;
  seed: number;
  /** Torn rebuilds per operation. */
  tornSeeds: number;
  summary: Record<string, unknown>;
  failures: string[];
  log: (line: string) => void;
}

/**
 * A power loss before every mutating operation of an ingest, a compact and
 * a forget. `torn`: rebuild the disk with `--torn-seeds` seeds each
 * (power-loss-torn.ts), derived from --seed; else only what was durable.
 */
export async function powerSection(c: TortureContext, torn: boolean): Promise<void> {
  const name = torn ? 'power-torn' : 'power';
  const dir = join(c.root, name);
  fs.mkdirSync(dir);
  const inputs = writePowerLossInputs(dir);
  const bad: PowerLossOutcome[] = [];
  const cases: Record<string, number> = {};
  const byOp: Record<string, number> = {};
  const kept = { files: 0, pagesKept: 0, pagesDropped: 0, namesKept: 0, namesDropped: 0 };
  const seeds = torn ? c.tornSeeds : 1;
  for (const [k, step] of (['ingest', 'compact', 'forget'] as const).entries()) {
    const ref = await powerLossRef(dir, inputs, step);
    cases[step] = ref.ops * seeds;
    for (let at = 0; at < ref.ops; at++) {
      for (let s = 0; s < seeds; s++) {
        const o = await powerLossAt(dir, inputs, ref, at, torn ? { torn: tornSeed(c, k, at, s) } : {});
        byOp[o.op] = (byOp[o.op] ?? 0) + 1;
        for (const key of Object.keys(kept) as (keyof typeof kept)[]) kept[key] += o.tally?.[key] ?? 0;
        if (!o.ok) bad.push(o);
      }
    }
    c.log(`${torn ? 'torn ' : ''}power loss (${step}): ${ref.ops} operations, ${bad.length} bad so far`);
  }
  for (const o of bad.slice(0, 20)) c.failures.push(`${name}: ${JSON.stringify(o)}`);
  c.summary[torn ? 'powerLossTorn' : 'powerLoss'] = { cases, byOp, ...(torn ? { seeds, kept } : {}), bad: bad.length };
}

/** A power loss before every operation of a shard's life (power-loss-serve.ts); `torn`: `--torn-seeds` seeds each. */
export async function powerServeSection(c: TortureContext, torn: boolean): Promise<void> {
  const name = torn ? 'power-serve-torn' : 'power-serve';
  fs.mkdirSync(join(c.root, name));
  const r = await serveSweep(join(c.root, name), torn ? c.tornSeeds : 0, (at, s) => tornSeed(c, 3, at, s), (at, bad) => c.log(`${name}: ${at} operations, ${bad} bad so far`));
  for (const o of r.bad.slice(0, 20)) c.failures.push(`${name}: ${JSON.stringify(o)}`);
  c.summary[torn ? 'powerServeTorn' : 'powerServe'] = { ops: r.ops, trials: r.trials, bad: r.bad.length, seconds: r.seconds, ...(torn ? { kept: r.kept } : {}) };
  c.log(`${name}: ${r.ops} operations, ${r.trials} trials, ${r.bad.length} bad, ${r.seconds} s`);
}

/** A power loss before every operation of a content run, and just after it, for each near method (power-loss-content.ts); `torn`: `--torn-seeds` seeds each. */
export async function powerContentSection(c: TortureContext, torn: boolean): Promise<void> {
  const name = torn ? 'power-content-torn' : 'power-content';
  const summary: Record<string, unknown> = {};
  for (const [k, near] of (['minhash', 'simhash'] as const).entries()) {
    const dir = join(c.root, `${name}-${near}`);
    fs.mkdirSync(dir);
    const r = await contentSweep(dir, near, torn ? c.tornSeeds : 0, (at, s) => tornSeed(c, 4 + k, at, s), (at, bad) => c.log(`${name} (${near}): ${at} operations, ${bad} bad so far`));
    for (const o of r.bad.slice(0, 20)) c.failures.push(`${name}: ${JSON.stringify(o)}`);
    summary[near] = { ops: r.ops, trials: r.trials, bad: r.bad.length, seconds: r.seconds, ...(torn ? { kept: r.kept } : {}) };
    c.log(`${name} (${near}): ${r.ops} operations, ${r.trials} trials, ${r.bad.length} bad, ${r.seconds} s`);
  }
  c.summary[torn ? 'powerContentTorn' : 'powerContent'] = summary;
}

/** A power loss before every operation of `drum upgrade` and of each `drum repair`, and just after it (power-loss-maintain.ts); `torn`: `--torn-seeds` seeds each. */
export async function powerMaintainSection(c: TortureContext, torn: boolean): Promise<void> {
  const name = torn ? 'power-maintain-torn' : 'power-maintain';
  const dir = join(c.root, name);
  fs.mkdirSync(dir);
  const r = await maintainSweep(dir, writePowerLossInputs(dir), torn ? c.tornSeeds : 0, (k, at, s) => tornSeed(c, 6 + k, at, s), (step, ops, bad) => c.log(`${name} (${step}): ${ops} operations, ${bad} bad so far`));
  for (const o of r.bad.slice(0, 20)) c.failures.push(`${name}: ${JSON.stringify(o)}`);
  c.summary[torn ? 'powerMaintainTorn' : 'powerMaintain'] = { ops: r.ops, trials: r.trials, bad: r.bad.length, seconds: r.seconds, ...(torn ? { kept: r.kept } : {}) };
  c.log(`${name}: ${JSON.stringify(r.ops)} operations, ${r.trials} trials, ${r.bad.length} bad, ${r.seconds} s`);
}

/** A power loss before every operation of a content run that converts a `drum-content/1` store, for each near method (power-loss-content-v1.ts). */
export async function powerContentV1Section(c: TortureContext, torn: boolean): Promise<void> {
  const name = torn ? 'power-content-v1-torn' : 'power-content-v1';
  const summary: Record<string, unknown> = {};
  for (const [k, near] of (['minhash', 'simhash'] as const).entries()) {
    const dir = join(c.root, `${name}-${near}`);
    fs.mkdirSync(dir);
    const r = await v1Sweep(dir, writeContentInputs(dir), near, torn ? c.tornSeeds : 0, (at, s) => tornSeed(c, 10 + k, at, s));
    for (const o of r.bad.slice(0, 20)) c.failures.push(`${name}: ${JSON.stringify(o)}`);
    summary[near] = { ops: r.ops, trials: r.trials, bad: r.bad.length, seconds: r.seconds, ...(torn ? { kept: r.kept } : {}) };
    c.log(`${name} (${near}): ${r.ops} operations, ${r.trials} trials, ${r.bad.length} bad, ${r.seconds} s`);
  }
  c.summary[torn ? 'powerContentV1Torn' : 'powerContentV1'] = summary;
}

/** The torn rebuild's seed of step #k's operation `at`, seed number `s`: replayable from --seed. */
const tornSeed = (c: TortureContext, k: number, at: number, s: number): number => (c.seed + k * 1_000_003 + at * 64 + s) >>> 0;
