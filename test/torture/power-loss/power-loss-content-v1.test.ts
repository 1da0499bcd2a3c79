// Power loss during a `drum content` run that converts a `drum-content/1`
// store, at a sample of its mutating file operations (scripts/torture.ts
// --only power-content-v1 tries every one): the store verifies, is the
// format 1 store as it was or a whole format 2 one holding every committed
// round, and the same run again completes and answers as a run never
// interrupted (power-loss-content-v1.ts has the promise). The sample: the
// conversion's files, its commit's two steps, and the first round's commit.
// REQUIRES: nothing (temporary directories only).

import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../../helpers/tmp.js';
import { writeContentInputs, type ContentInputs } from './power-loss-content.js';
import { v1LossAt, v1Ref, type V1Ref } from './power-loss-content-v1.js';
import { runTrials } from './power-cut.js';

describe('power loss while drum content converts a drum-content/1 store', () => {
  const dir = tempDir();
  let inputs!: ContentInputs;
  let ref!: V1Ref;
  before(async () => {
    inputs = writeContentInputs(dir);
    ref = await v1Ref(dir, inputs, 'minhash');
  });

  /** The trials at `ats` (kindest, or torn with each seed) that went wrong. */
  async function bad(ats: number[], seeds: (number | undefined)[]): Promise<string[]> {
    return (await runTrials(ats, seeds, (at, seed) => v1LossAt(dir, inputs, ref, at, seed))).bad;
  }

  it('keeps the format 1 store or a whole converted one, and the run again answers as a run never interrupted', async () => {
    const [conversion, first] = ref.commits;
    assert.ok(conversion !== undefined && first !== undefined && conversion.docs === ref.aDocs.length);
    const ats = [0, Math.floor(conversion.renamed / 2), conversion.renamed - 1, conversion.renamed, conversion.durable, conversion.durable + 1, first.renamed, first.durable + 1];
    assert.deepEqual(await bad(ats, [undefined]), []);
  });

  it('on a disk that keeps torn writes and unsynced names still keeps one store or the other, whole', async () => {
    assert.deepEqual(await bad([ref.commits[0]!.renamed, ref.commits[0]!.durable, ref.commits[0]!.durable + 1], [20261202, 20261203]), []);
  });
});
