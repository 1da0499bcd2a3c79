// Tests of the host table's rounds: a round's parts written to a delta file
// of its own and recorded with the round's marker in one batch, and a crash
// while the file is written or before its batch (reads and folds ignore it,
// the redo replaces it: no double count). Folds are host-fold.test.ts's,
// catalogs of older layouts legacy-fold.test.ts's. Every check compares
// against a plain Map model. Also what a fold is decided on (pendingShape):
// the marked rounds' parts and bytes, and the table file's bytes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import { withCatalog } from '../../helpers/catalog.js';
import { tempDir } from '../../helpers/tmp.js';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { type Model, addTo, applyLegacy, deltaFiles, dyingAfter, expectTable, failBatches, roundParts, sublevel, tableFiles } from './helpers.js';

describe('host counts of a round recorded as a delta file', () => {
  it('writes a round\'s parts to a delta file of its own, none into LevelDB, and counts it once', async () => {
    const state = tempDir();
    await withCatalog(state, async (c) => {
      const parts = roundParts(1, 60, 8);
      const model: Model = new Map();
      addTo(model, parts);
      assert.equal(await c.applyHostCounts('r', 1, parts.map(encodeHostMap)), true);
      assert.equal(await c.applyHostCounts('r', 1, parts.map(encodeHostMap)), false);
      assert.equal(await c.pendingDeltas(), 8);
      await expectTable(c, model);
      assert.deepEqual(deltaFiles(state), ['delta-r-0000000001.hd']);
      assert.deepEqual(await sublevel(c, 'hostDeltas', 'view').keys().all(), []);
    });
  });

  it('ignores a round cut short while its delta file was written, and its redo counts it exactly once', async () => {
    const state = tempDir();
    const model: Model = new Map();
    const second = roundParts(3, 40, 10);
    await withCatalog(state, async (c) => {
      const first = roundParts(2, 40, 3);
      addTo(model, first);
      await c.applyHostCounts('r', 1, first.map(encodeHostMap));
      await assert.rejects(c.applyHostCounts('r', 2, dyingAfter(second, 7)));
      assert.equal(await c.hasRound('r', 2), false);
      await expectTable(c, model);
      assert.equal(await c.pendingDeltas(), 3);
    });
    // A new process: the fold at open must not take the partial round in.
    await withCatalog(state, async (c2) => {
      assert.equal(await c2.compactHosts(), 3);
      await expectTable(c2, model);
      addTo(model, second);
      assert.equal(await c2.applyHostCounts('r', 2, second.map(encodeHostMap)), true);
      await expectTable(c2, model);
      assert.equal(await c2.compactHosts(), 10);
      await expectTable(c2, model);
      assert.equal(await c2.pendingDeltas(), 0);
    }, { foldSliceBytes: 300 });
  });

  it('ignores a delta file whose batch never committed, and the next fold removes it', async () => {
    const state = tempDir();
    await withCatalog(state, async (c) => {
      const model: Model = new Map();
      const first = roundParts(5, 30, 2);
      addTo(model, first);
      await c.applyHostCounts('r', 0, first.map(encodeHostMap));
      const restore = failBatches(c, 1);
      await assert.rejects(c.applyHostCounts('r', 1, roundParts(6, 30, 2).map(encodeHostMap)));
      restore();
      assert.equal(await c.hasRound('r', 1), false);
      assert.equal(deltaFiles(state).length, 2);
      await expectTable(c, model);
      assert.equal(await c.compactHosts(), 2);
      await expectTable(c, model);
      // The folded round's file stays until the next fold; the orphan goes now.
      assert.deepEqual(deltaFiles(state), ['delta-r-0000000000.hd']);
    });
  });

  it('replaces the leftovers of a crashed apply on redo, whatever part the crash fell in (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 12 }), async (n, k) => {
        await withCatalog(tempDir(), async (c) => {
          const parts = roundParts(n * 31 + k, 30, n);
          await assert.rejects(c.applyHostCounts('run', 0, dyingAfter(parts, Math.min(k, n))));
          await c.applyHostCounts('run', 0, parts.slice(0, n).map(encodeHostMap));
          const model: Model = new Map();
          addTo(model, parts);
          await expectTable(c, model);
        });
      }),
      { seed: 4242, numRuns: 12 },
    );
  });

  it('counts nothing for a name with a char above U+00FF, even where its chars cut to bytes spell a pending host', async () => {
    await withCatalog(tempDir(), async (c) => {
      await c.applyHostCounts('run', 0, new Map([[').example', 7]]));
      // U+0129 cut to its low byte is ')': no host has this name.
      assert.equal(await c.hostCount('\u0129.example'), 0);
      assert.equal(await c.hostCount(').example'), 7);
    });
  });

  it('lists the top n hosts like a Map model, with a folded table and pending deltas of any size, for any n (property)', async () => {
    const host = fc.integer({ min: 0, max: 60 }).map((i) => `h${i}.example`);
    // A round: counts up to 10^6 (a big pending count meets small table counts), now and then a fold first.
    const step = fc.record({
      fold: fc.boolean(),
      counts: fc.array(fc.tuple(host, fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 1_000_000 }))), { maxLength: 40 }),
      n: fc.integer({ min: 1, max: 70 }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        await withCatalog(tempDir(), async (c) => {
          const model: Model = new Map();
          for (const [round, { fold, counts, n }] of steps.entries()) {
            if (fold) await c.compactHosts();
            const delta = new Map<string, number>();
            for (const [h, k] of counts) delta.set(h, (delta.get(h) ?? 0) + k);
            assert.equal(await c.applyHostCounts('run', round, delta), true);
            for (const [h, k] of delta) model.set(h, (model.get(h) ?? 0) + k);
            const want = [...model].map(([h, k]) => ({ host: h, uniqueUrls: k }))
              .sort((a, b) => b.uniqueUrls - a.uniqueUrls || (a.host < b.host ? -1 : 1)).slice(0, n);
            assert.deepEqual(await c.topHosts(n), want);
          }
        });
      }),
      { seed: 2027, numRuns: 40 },
    );
  });
});

describe('the pending deltas a fold is decided on (pendingShape)', () => {
  it('counts the parts and bytes of committed rounds and the table file\'s bytes, and nothing of a round whose batch failed', async () => {
    const state = tempDir();
    await withCatalog(state, async (c) => {
      assert.deepEqual(await c.pendingShape(), { parts: 0, bytes: 0, tableBytes: 0 });
      const a = roundParts(11, 40, 3).map(encodeHostMap);
      await c.applyHostCounts('r', 0, a);
      const restore = failBatches(c, 1);
      await assert.rejects(c.applyHostCounts('r', 1, roundParts(12, 40, 2).map(encodeHostMap)));
      restore();
      const aBytes = a.reduce((n, p) => n + p.byteLength, 0);
      assert.deepEqual(await c.pendingShape(), { parts: 3, bytes: aBytes, tableBytes: 0 });
      await c.compactHosts();
      const [table] = tableFiles(state).filter((n) => n.endsWith('.tbl'));
      const tableBytes = statSync(join(state, 'hosts', table!)).size;
      const b = roundParts(13, 40, 2).map(encodeHostMap);
      await c.applyHostCounts('r', 2, b);
      assert.deepEqual(await c.pendingShape(), { parts: 2, bytes: b.reduce((n, p) => n + p.byteLength, 0), tableBytes });
    });
  });

  it('gives parts kept as LevelDB values (older catalogs) an unknown size, and counts none of an unmarked round', async () => {
    const state = tempDir();
    await withCatalog(state, async (c) => {
      await sublevel(c, 'hostDeltas', 'view').put('gone|0000000001#000000', encodeHostMap(new Map([['x.example', 9]])));
      await c.applyHostCounts('new', 0, roundParts(14, 30, 2).map(encodeHostMap));
      const files = await c.pendingShape();
      assert.equal(files.parts, 2);
      assert.ok(Number.isFinite(files.bytes));
    });
    await withCatalog(state, async (c) => {
      await applyLegacy(c, 'old', 0, roundParts(15, 30, 3));
    });
    await withCatalog(state, async (c) => {
      assert.deepEqual(await c.pendingShape(), { parts: 5, bytes: Infinity, tableBytes: 0 });
    });
  });
});
