// Tests of the host-table fold in a child process: it folds what an
// in-process fold would, and a failure in the child comes back as the
// DrumError code it had there.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { foldInChild } from '../../../src/catalog/hosts/fold-child.js';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import { isDrumError } from '../../../src/errors.js';
import { withCatalog } from '../../helpers/catalog.js';
import { tempDir } from '../../helpers/tmp.js';

describe('foldInChild', () => {
  it('folds every pending delta into the host table, counts as the rounds added them', async () => {
    const state = tempDir();
    const model = new Map<string, number>();
    await withCatalog(state, async (c) => {
      for (let r = 0; r < 5; r++) {
        const m = new Map([[`a${r % 2}.example`, r + 1], [`b${r}.example`, 3]]);
        for (const [h, n] of m) model.set(h, (model.get(h) ?? 0) + n);
        await c.applyHostCounts('run', r, [encodeHostMap(m)]);
      }
    });
    assert.equal(await foldInChild(state, false, []), 5);
    await withCatalog(state, async (after) => {
      assert.equal(await after.pendingDeltas(), 0);
      assert.deepEqual(new Map((await after.topHosts(100)).map((h) => [h.host, h.uniqueUrls])), model);
    });
  });

  it('answers DRUM_LOCKED when the catalog is open elsewhere, as an in-process open would', async () => {
    const state = tempDir();
    await withCatalog(state, async () => {
      await assert.rejects(foldInChild(state, false, []), (e) => isDrumError(e, 'DRUM_LOCKED'));
    });
  });
});
