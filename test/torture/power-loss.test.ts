// Power loss at a sample of the mutating file operations of an ingest into
// a store that already holds a run (scripts/torture.ts tries every one):
// the disk is rebuilt as a power loss would leave it (power-loss.ts: only
// what was fsynced, names only as of their directory's last fsync), and
// there the earlier run's outputs are whole, a rerun of the interrupted
// command writes exactly the outputs of a run never interrupted, and the
// store verifies. A kill -9 (kill9.test.ts) cannot show a missing fsync:
// the page cache outlives the process.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tempDir } from '../helpers/tmp.js';
import { writeLinks } from './harness.js';
import { powerLossAt, powerLossRef } from './power-loss-run.js';

describe('power loss during an ingest', () => {
  it('keeps every committed run, and a rerun of the interrupted one writes the outputs of a run never interrupted', async (t) => {
    const dir = tempDir();
    const inputs = { a: join(dir, 'a.txt'), b: join(dir, 'b.txt') };
    writeLinks(inputs.a, 900, 7, { hosts: 30, rejectEvery: 53 });
    writeLinks(inputs.b, 1200, 8, { hosts: 40, rejectEvery: 41 });
    const ref = await powerLossRef(dir, inputs);
    assert.ok(ref.ops > 100, `${ref.ops} operations`);
    const picks = new Set<number>();
    for (let i = 0; i < 24; i++) picks.add(Math.floor(((i + 0.5) * ref.ops) / 24));
    const bad: string[] = [];
    for (const at of picks) {
      const r = await powerLossAt(dir, inputs, ref, at);
      if (!r.ok) bad.push(JSON.stringify(r));
    }
    t.diagnostic(`${picks.size} power losses over ${ref.ops} operations`);
    assert.deepEqual(bad, []);
  });
});
