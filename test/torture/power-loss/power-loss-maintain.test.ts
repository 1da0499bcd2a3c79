// Power loss during `drum upgrade` and `drum repair` at a sample of their
// mutating file operations (scripts/torture.ts --only power-maintain tries
// every one): a store holding a run (keys only, for the upgrade) loses
// power before operation #at of the command, or just after it returned; on
// the disk power-loss.ts rebuilds (only what was fsynced; or torn from a
// seed) the store verifies, holds every URL, an upgrade is undone or whole,
// the command run again leaves what the uninterrupted one left, and a later
// ingest answers as after it (power-loss-maintain.ts has the promise).
// REQUIRES: nothing (temporary directories only).

import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../../helpers/tmp.js';
import { writePowerLossInputs, type Inputs } from './power-loss-run.js';
import { maintainLossAt, maintainRef, type MaintainRef, type MaintainStep } from './power-loss-maintain.js';
import { runTrials } from './power-cut.js';

describe('power loss during drum upgrade and drum repair', () => {
  const dir = tempDir();
  let inputs!: Inputs;
  before(() => {
    inputs = writePowerLossInputs(dir);
  });

  /** The trials at `ats` (kindest, or torn with each seed) that went wrong. */
  async function bad(ref: MaintainRef, ats: number[], seeds: (number | undefined)[]): Promise<string[]> {
    return (await runTrials(ats, seeds, (at, seed) => maintainLossAt(dir, inputs, ref, at, seed))).bad;
  }

  it('keeps every URL when power is lost during an upgrade, which is then undone or whole, and after it returned', async () => {
    const ref = await maintainRef(dir, inputs, 'upgrade');
    assert.ok(ref.ops > 50, `${ref.ops} operations`);
    // Spread over the journal's fold and the values files, the commit's last steps, and just after the upgrade returned.
    const ats = [0, Math.floor(ref.ops / 3), Math.floor((2 * ref.ops) / 3), ref.ops - 2, ref.ops - 1, ref.ops];
    assert.deepEqual(await bad(ref, ats, [undefined]), []);
    assert.deepEqual(await bad(ref, [ref.ops - 1, ref.ops], [20261201]), []);
  });

  for (const step of ['repair-bloom', 'repair-url-index', 'repair-catalog'] as MaintainStep[]) {
    it(`keeps the store whole when power is lost during ${step.replace('-', ' --')}, and the repair run again rebuilds the same`, async () => {
      const ref = await maintainRef(dir, inputs, step);
      const every = Array.from({ length: ref.ops + 1 }, (_, i) => i).filter((i) => i % 3 === 0 || i === ref.ops);
      assert.deepEqual(await bad(ref, every, [undefined]), []);
    });
  }
});
