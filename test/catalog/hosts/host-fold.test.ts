// Tests of folding the host table's pending round deltas into the host table
// file: in name ranges, into a new file (a fold whose commit fails changes
// nothing), round delta files kept until the next fold and out of
// LevelDB's own tables, spill files of a fold cut short removed, every host
// listed in name order, and every count equal to a plain Map model across
// rounds, folds, failed folds and reopens. The rounds themselves are
// host-table.test.ts's.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../../src/catalog/catalog.js';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import { withCatalog } from '../../helpers/catalog.js';
import { tempDir } from '../../helpers/tmp.js';
import { type Model, addTo, deltaFiles, expectTable, failBatches, roundParts, tableFiles } from './helpers.js';

describe('folding deltas into the host table file', () => {
  it('folds in several name ranges into a new file, and a fold whose commit fails changes nothing', async () => {
    const state = tempDir();
    const model: Model = new Map();
    await withCatalog(state, async (c) => {
      for (let r = 0; r < 4; r++) {
        const parts = roundParts(10 + r, 50, 3);
        addTo(model, parts);
        await c.applyHostCounts('r', r, parts.map(encodeHostMap));
      }
      const restore = failBatches(c, 1);
      await assert.rejects(c.compactHosts());
      restore();
      await expectTable(c, model);
      assert.equal(await c.pendingDeltas(), 12);
    }, { foldSliceBytes: 256 });
    await withCatalog(state, async (c2) => {
      await expectTable(c2, model);
      assert.equal(await c2.compactHosts(), 12);
      assert.equal(await c2.pendingDeltas(), 0);
      await expectTable(c2, model);
      // The failed fold's file was never named by the catalog: the next fold wrote over it.
      assert.deepEqual(tableFiles(state), ['hosts-000001.tbl']);
      const more = roundParts(99, 50, 2);
      addTo(model, more);
      await c2.applyHostCounts('r', 9, more.map(encodeHostMap));
      await expectTable(c2, model);
      assert.equal(await c2.compactHosts(), 2);
      await expectTable(c2, model);
      // The previous file stays for readers that copied the catalog before this fold.
      assert.deepEqual(tableFiles(state), ['hosts-000001.tbl', 'hosts-000002.tbl']);
    }, { foldSliceBytes: 256 });
  });

  it('keeps rounds\' parts out of LevelDB\'s table files, and a fold\'s delta files until the next fold', async () => {
    const state = tempDir();
    const ldbBytes = (): number => readdirSync(join(state, 'catalog')).filter((f) => f.endsWith('.ldb')).reduce((a, f) => a + statSync(join(state, 'catalog', f)).size, 0);
    const model: Model = new Map();
    await withCatalog(state, async (c) => {
      // ~1.5 MB of parts: as LevelDB values they were written out to table files, which LevelDB maps when it compacts them.
      for (let r = 0; r < 6; r++) {
        const parts = roundParts(300 + r, 40_000, 1);
        addTo(model, parts);
        await c.applyHostCounts('r', r, parts.map(encodeHostMap));
      }
    });
    await withCatalog(state, async (c2) => {
      assert.ok(ldbBytes() < 50_000, `${ldbBytes()} bytes of tables before the fold`);
      assert.equal(deltaFiles(state).length, 6);
      await c2.compactHosts();
      await expectTable(c2, model);
      assert.equal(deltaFiles(state).length, 6);
      const more = roundParts(400, 100, 1);
      addTo(model, more);
      await c2.applyHostCounts('r', 6, more.map(encodeHostMap));
      await c2.compactHosts();
      await expectTable(c2, model);
      assert.deepEqual(deltaFiles(state), ['delta-r-0000000006.hd']);
    });
  });

  it('removes the spill files a fold cut short by a crash left behind', async () => {
    const state = tempDir();
    await withCatalog(state, async (c) => {
      const model: Model = new Map();
      const parts = roundParts(7, 60, 3);
      addTo(model, parts);
      await c.applyHostCounts('r', 0, parts.map(encodeHostMap));
      mkdirSync(join(state, 'hosts'), { recursive: true });
      writeFileSync(join(state, 'hosts', 'fold-000001-0002.tmp'), 'left by a killed fold');
      writeFileSync(join(state, 'hosts', 'fold-000000-0000.tmp'), 'left by an older one');
      assert.equal(await c.compactHosts(), 3);
      await expectTable(c, model);
      assert.deepEqual(tableFiles(state), ['hosts-000001.tbl']);
    }, { foldSliceBytes: 256 });
  });

  it('lists every host in name order, the table file merged with pending deltas', async () => {
    await withCatalog(tempDir(), async (c) => {
      const model: Model = new Map();
      for (let r = 0; r < 3; r++) {
        const parts = roundParts(40 + r, 40, 2);
        addTo(model, parts);
        await c.applyHostCounts('r', r, parts.map(encodeHostMap));
        if (r === 1) await c.compactHosts();
      }
      const listed: [string, number][] = [];
      for await (const h of c.allHosts()) listed.push([h.host, h.uniqueUrls]);
      assert.deepEqual(listed, [...model].sort((a, b) => (a[0] < b[0] ? -1 : 1)));
    }, { foldSliceBytes: 300 });
  });

  it('keeps every count equal to a Map model across rounds, folds, failed folds and reopen (property)', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('round' as const), seed: fc.nat(), hosts: fc.integer({ min: 1, max: 40 }), parts: fc.integer({ min: 1, max: 3 }) }),
      fc.record({ kind: fc.constant('fold' as const), slice: fc.integer({ min: 64, max: 4096 }) }),
      fc.record({ kind: fc.constant('failedFold' as const), at: fc.integer({ min: 1, max: 2 }) }),
      fc.record({ kind: fc.constant('reopen' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        const state = tempDir();
        let slice = 1024;
        // Reopened between steps: one open-close around it all does not fit.
        let c = await Catalog.open(state, { sync: false, foldSliceBytes: slice });
        const model: Model = new Map();
        let round = 0;
        try {
          for (const s of steps) {
            if (s.kind === 'round') {
              const parts = roundParts(s.seed, s.hosts, s.parts);
              addTo(model, parts);
              await c.applyHostCounts('r', round++, parts.map(encodeHostMap));
            } else if (s.kind === 'fold' || s.kind === 'reopen') {
              if (s.kind === 'fold') slice = s.slice;
              await c.close();
              c = await Catalog.open(state, { sync: false, foldSliceBytes: slice });
              if (s.kind === 'fold') await c.compactHosts();
            } else {
              const restore = failBatches(c, s.at);
              await c.compactHosts().catch(() => undefined);
              restore();
            }
            await expectTable(c, model);
          }
        } finally {
          await c.close();
        }
      }),
      { seed: 7, numRuns: 25 },
    );
  });
});
