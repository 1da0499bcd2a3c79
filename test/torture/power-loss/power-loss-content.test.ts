// Power loss during `drum content` at a sample of its mutating file
// operations (scripts/torture.ts --only power-content tries every one): a
// run over a small WARC into a new state directory, in rounds, loses power
// before operation #at; the disk is rebuilt as a power loss leaves it
// (power-loss.ts: only what was fsynced; or torn from a seed,
// power-loss-torn.ts), and there the content store verifies and holds
// exactly the documents of the whole rounds the run committed (no fewer
// than its durable commits, no more than its renamed ones), the same run
// again completes and lists those documents as exact copies and every
// later one as the uninterrupted run does, and a run of a second WARC
// answers as after an uninterrupted run (power-loss-content.ts has the
// promise in full). The sample: operations spread over a MinHash run and a
// SimHash one, the two steps of a round's commit, the loss just after the
// run returned; torn, the commit's steps and the report's.
// REQUIRES: nothing (temporary directories only).

import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import { tempDir } from '../../helpers/tmp.js';
import { contentLossAt, contentRef, writeContentInputs, type ContentInputs, type ContentRef } from './power-loss-content.js';
import { runTrials } from './power-cut.js';

describe('power loss during drum content', () => {
  const dir = tempDir();
  let inputs!: ContentInputs;
  let minhash!: ContentRef;
  let simhash!: ContentRef;
  before(async () => {
    inputs = writeContentInputs(dir);
    minhash = await contentRef(dir, inputs, 'minhash');
    simhash = await contentRef(dir, inputs, 'simhash');
  });

  /** Each operation once with the kindest rebuild, or with each seed torn: the trials that went wrong, and the pages and names kept. */
  function trials(ref: ContentRef, ats: number[], seeds: (number | undefined)[]): Promise<{ bad: string[]; kept: number }> {
    return runTrials(ats, seeds, (at, seed) => contentLossAt(dir, inputs, ref, at, seed));
  }

  const spread = (ref: ContentRef, count: number): number[] => Array.from({ length: count }, (_, i) => Math.floor(((i + 0.5) * ref.ops) / count));

  it('in a MinHash run keeps exactly the rounds it committed, and the run again and a later run answer as runs never interrupted', async () => {
    assert.ok(minhash.ops > 1000, `${minhash.ops} operations`);
    assert.equal(minhash.commits.length, 5, 'the new store, three rounds and the run count commit');
    const first = minhash.commits[1]!;
    const { bad } = await trials(minhash, [...spread(minhash, 10), first.renamed, first.durable, minhash.ops], [undefined]);
    assert.deepEqual(bad, []);
  });

  it('in a SimHash run keeps exactly the rounds it committed, and the run again and a later run answer as runs never interrupted', async () => {
    const { bad } = await trials(simhash, spread(simhash, 6), [undefined]);
    assert.deepEqual(bad, []);
  });

  it('on a disk that keeps torn writes and unsynced names still keeps exactly the committed rounds, and the run again writes into its --out', async () => {
    const first = minhash.commits[1]!;
    // The report's last steps: its tmp file written and fsynced, then renamed into --out.
    const a = await trials(minhash, [first.renamed, first.durable], [20261128, 20261129]);
    const b = await trials(simhash, [simhash.ops - 4, simhash.ops - 2], [20261130, 20261131]);
    assert.ok(a.kept + b.kept > 0, 'the torn rebuilds kept something no fsync made durable');
    assert.deepEqual([...a.bad, ...b.bad], []);
  });
});
