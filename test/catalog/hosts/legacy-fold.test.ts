// Tests of catalogs written before the round delta files and the host table
// file: rounds' parts kept as LevelDB values are read and folded beside
// round delta files (those of unmarked rounds dropped), and a legacy fold a
// crash cut short is finished, then the table moved into a file, counts
// unchanged. Every check compares against a plain Map model.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import { roundKey } from '../../../src/catalog/keys.js';
import { withCatalog } from '../../helpers/catalog.js';
import { tempDir } from '../../helpers/tmp.js';
import { type Model, addTo, applyLegacy, expectTable, roundParts, sublevel, tableFiles } from './helpers.js';

describe('catalogs written before the round delta files and the host table file', () => {
  it('reads and folds parts kept as LevelDB values beside round delta files, and drops those of unmarked rounds', async () => {
    const state = tempDir();
    await withCatalog(state, async (c) => {
      const model: Model = new Map();
      const old = roundParts(50, 40, 3);
      addTo(model, old);
      await applyLegacy(c, 'old', 0, old);
      // A part of a round whose marker never made it: not counted, dropped by the fold.
      await sublevel(c, 'hostDeltas', 'view').put(`${roundKey('old', 1)}#000000`, encodeHostMap(new Map([['x.example', 9]])));
      const now = roundParts(51, 40, 2);
      addTo(model, now);
      await c.applyHostCounts('new', 0, now.map(encodeHostMap));
      assert.equal(await c.pendingDeltas(), 5);
      await expectTable(c, model);
      assert.equal(await c.compactHosts(), 5);
      await expectTable(c, model);
      assert.deepEqual(await sublevel(c, 'hostDeltas', 'view').keys().all(), []);
    }, { foldSliceBytes: 256 });
  });

  it('finishes a legacy fold a crash cut short, then moves the table into a file, counts unchanged', async () => {
    const state = tempDir();
    await withCatalog(state, async (c) => {
      const model: Model = new Map();
      for (let r = 0; r < 2; r++) {
        const parts = roundParts(70 + r, 30, 2);
        addTo(model, parts);
        await applyLegacy(c, 'r', r, parts);
      }
      // The legacy layout: half of the hosts already in the sublevel `hosts` from an
      // earlier fold, and a fold in progress over the pending deltas (slice 0 of 2 done).
      const older: Model = new Map([['a.example', 5], ['zz.example', 2]]);
      for (const [h, n] of older) model.set(h, (model.get(h) ?? 0) + n);
      const legacy = sublevel(c, 'hosts', 'json');
      for (const [h, n] of older) await legacy.put(h, n);
      const keys = await sublevel(c, 'hostDeltas', 'view').keys().all();
      await sublevel(c, 'hostFold', 'json').put('fold', { keys, slices: 2, done: 0 });
      await expectTable(c, model);
      assert.equal(await c.compactHosts(), 0);
      await expectTable(c, model);
      const more = roundParts(80, 30, 1);
      addTo(model, more);
      await c.applyHostCounts('r', 5, more.map(encodeHostMap));
      assert.equal(await c.compactHosts(), 1);
      await expectTable(c, model);
      assert.deepEqual(await legacy.keys().all(), []);
      assert.deepEqual(tableFiles(state), ['hosts-000001.tbl']);
    });
  });
});
