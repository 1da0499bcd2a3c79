// Tests of dropping round markers after a fold: against a plain model (a Set
// of the applied rounds, a Map of host counts), a fold given the runs to keep
// leaves exactly those runs' markers (so only their rounds' redos are
// no-ops), never changes a count, and leaves a later round of a dropped run
// countable; through the library, a process that stays open keeps the
// markers of the runs its manifest names and no others.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Catalog } from '../../../src/catalog/catalog.js';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import { Drum } from '../../../src/engine/drum.js';
import { readManifest } from '../../../src/store/manifest.js';
import { withCatalog } from '../../helpers/catalog.js';
import { tempDir } from '../../helpers/tmp.js';
import { type Model, addTo, expectTable, sublevel } from './helpers.js';

const RUNS = ['a', 'b', 'c', 'd'];

describe('round markers after a fold', () => {
  it('keeps the markers of the runs named and drops every other, counts unchanged (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ run: fc.constantFrom(...RUNS), round: fc.nat(3), hosts: fc.nat(3) }), { maxLength: 12 }),
        fc.subarray(RUNS),
        async (rounds, keep) => {
          await withCatalog(tempDir(), async (c) => {
            const model: Model = new Map();
            const applied = new Set<string>();
            for (const r of rounds) {
              const part = new Map(Array.from({ length: r.hosts }, (_, i) => [`h${i}.${r.run}.example`, r.round + 1] as [string, number]));
              const fresh = await c.applyHostCounts(r.run, r.round, encodeHostMap(part));
              assert.equal(fresh, !applied.has(`${r.run}|${r.round}`));
              if (fresh) addTo(model, [part]);
              applied.add(`${r.run}|${r.round}`);
            }
            await c.compactHosts(keep);
            await expectTable(c, model);
            for (const run of RUNS) {
              for (let round = 0; round <= 3; round++) {
                assert.equal(await c.hasRound(run, round), applied.has(`${run}|${round}`) && keep.includes(run), `${run}|${round}`);
              }
            }
          });
        },
      ),
      { numRuns: 30 },
    );
  });

  it('leaves every marker when no runs to keep are given', async () => {
    await withCatalog(tempDir(), async (c) => {
      await c.applyHostCounts('a', 1, encodeHostMap(new Map([['x.example', 1]])));
      await c.compactHosts();
      assert.equal(await c.hasRound('a', 1), true);
    });
  });
});

describe('a library process that stays open', () => {
  it('keeps only the round markers of the runs its manifest names once its deltas are folded', async () => {
    const state = tempDir();
    const runs = 60;
    const fold = 16;
    const drum = await Drum.open(state, { workers: 0, fsync: false, tuning: { libraryFoldDeltas: fold } });
    try {
      for (let i = 0; i < runs; i++) {
        const run = drum.checkUpdate([`http://lib${i % 7}.example/${i}\n`]);
        for (let n = await run.next(); !n.done; n = await run.next());
      }
    } finally {
      await drum.close();
    }
    const body = readManifest(state)!;
    const named = new Set([...body.history.map((h) => h.runId), body.run!.runId]);
    const c = await Catalog.open(state, { readOnly: true });
    try {
      const markers = await sublevel(c, 'rounds', 'json').keys().all();
      // One round a run: what is left is the named runs' markers and those of the runs since the last fold.
      assert.ok(markers.length <= named.size + fold, `${markers.length} markers left of ${runs}`);
      assert.equal(await c.hasRound(body.run!.runId, body.run!.rounds), true);
      assert.equal((await c.topHosts(100)).reduce((a, h) => a + h.uniqueUrls, 0), runs);
    } finally {
      await c.close();
    }
  });
});
