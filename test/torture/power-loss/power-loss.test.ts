// Power loss at a sample of the mutating file operations of an ingest, a
// compact and a forget, each on a store that already holds a run
// (scripts/torture.ts tries every operation): the disk is rebuilt as a
// power loss would leave it (power-loss.ts: only what was fsynced, names
// only as of their directory's last fsync), and there the earlier run's
// outputs are whole, the interrupted command run again completes, a later
// ingest writes exactly the outputs it writes after an uninterrupted one,
// and the store verifies. The same checks hold on a torn disk
// (power-loss-torn.ts: seeded, any pages and names of what was not made
// durable kept as well), a few seeds at each sampled operation. A kill -9
// (kill/kill9.test.ts) cannot show a missing fsync: the page cache
// outlives the process.
// REQUIRES: nothing (temporary directories only).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../../helpers/tmp.js';
import { powerLossAt, powerLossRef, writePowerLossInputs, type Step } from './power-loss-run.js';

/** `count` operations spread over the step, each tried with the kindest rebuild, or with `seeds` torn ones. */
async function sweep(step: Step, count: number, seeds = 0): Promise<{ ops: number; bad: string[]; torn: number }> {
  const dir = tempDir();
  const inputs = writePowerLossInputs(dir);
  const ref = await powerLossRef(dir, inputs, step);
  const bad: string[] = [];
  let torn = 0;
  const picks = new Set<number>();
  for (let i = 0; i < count; i++) picks.add(Math.floor(((i + 0.5) * ref.ops) / count));
  for (const at of picks) {
    for (const seed of seeds === 0 ? [undefined] : Array.from({ length: seeds }, (_, s) => 20261128 + at * 8 + s)) {
      const r = await powerLossAt(dir, inputs, ref, at, { torn: seed });
      if (!r.ok) bad.push(JSON.stringify(r));
      torn += r.tally === undefined ? 0 : r.tally.pagesKept + r.tally.namesKept;
    }
  }
  return { ops: ref.ops, bad, torn };
}

describe('power loss', () => {
  it('during an ingest keeps every committed run, and a rerun writes the outputs of a run never interrupted', async () => {
    const { ops, bad } = await sweep('ingest', 24);
    assert.ok(ops > 100, `${ops} operations`);
    assert.deepEqual(bad, []);
  });

  it('during a compact that merges the key journal loses no stored URL', async () => {
    const { ops, bad } = await sweep('compact', 6);
    assert.ok(ops > 50, `${ops} operations`);
    assert.deepEqual(bad, []);
  });

  it('during a forget leaves a store that, once the forget is run again, holds exactly what an uninterrupted forget leaves', async () => {
    const { ops, bad } = await sweep('forget', 6);
    assert.ok(ops > 50, `${ops} operations`);
    assert.deepEqual(bad, []);
  });
});

describe('power loss on a disk that keeps torn writes and unsynced names', () => {
  it('during an ingest still keeps every committed run, and a rerun writes the outputs of a run never interrupted', async () => {
    const { bad, torn } = await sweep('ingest', 20, 2);
    assert.ok(torn > 40, `${torn} pages and names kept that no fsync made durable`);
    assert.deepEqual(bad, []);
  });

  it('during a compact still loses no stored URL', async () => {
    const { bad, torn } = await sweep('compact', 8, 2);
    assert.ok(torn > 5, `${torn} pages and names kept`);
    assert.deepEqual(bad, []);
  });

  it('during a forget still leaves a store the forget run again brings to what an uninterrupted forget leaves', async () => {
    const { bad, torn } = await sweep('forget', 8, 2);
    assert.ok(torn > 5, `${torn} pages and names kept`);
    assert.deepEqual(bad, []);
  });
});
