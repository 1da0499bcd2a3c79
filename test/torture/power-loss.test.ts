// Power loss at a sample of the mutating file operations of an ingest, a
// compact and a forget, each on a store that already holds a run
// (scripts/torture.ts tries every operation): the disk is rebuilt as a
// power loss would leave it (power-loss.ts: only what was fsynced, names
// only as of their directory's last fsync), and there the earlier run's
// outputs are whole, the interrupted command run again completes, a later
// ingest writes exactly the outputs it writes after an uninterrupted one,
// and the store verifies. A kill -9 (kill9.test.ts) cannot show a missing
// fsync: the page cache outlives the process.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../helpers/tmp.js';
import { powerLossAt, powerLossRef, writePowerLossInputs, type Step } from './power-loss-run.js';

async function sweep(step: Step, count: number): Promise<{ ops: number; bad: string[] }> {
  const dir = tempDir();
  const inputs = writePowerLossInputs(dir);
  const ref = await powerLossRef(dir, inputs, step);
  const bad: string[] = [];
  const picks = new Set<number>();
  for (let i = 0; i < count; i++) picks.add(Math.floor(((i + 0.5) * ref.ops) / count));
  for (const at of picks) {
    const r = await powerLossAt(dir, inputs, ref, at);
    if (!r.ok) bad.push(JSON.stringify(r));
  }
  return { ops: ref.ops, bad };
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
