// The run catalog's host counts (src/catalog/catalog.ts over
// src/catalog/hosts/): a round applied once (also when applied twice at
// once), top-N hosts against a Map model over 10^4 random hosts, the same
// counts before and after the per-round deltas are folded into the table,
// and a writer's pending-delta shape kept up without reading every pending
// round again (property: what a fresh open reads).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Catalog } from '../../src/catalog/catalog.js';
import { tempDir } from '../helpers/tmp.js';

/** The model's top-n: most URLs first, ties by host name (code-unit order, as LevelDB sorts ASCII). */
function modelTop(model: Map<string, number>, n: number): { host: string; uniqueUrls: number }[] {
  return [...model]
    .map(([host, uniqueUrls]) => ({ host, uniqueUrls }))
    .sort((a, b) => b.uniqueUrls - a.uniqueUrls || (a.host < b.host ? -1 : a.host > b.host ? 1 : 0))
    .slice(0, n);
}

describe('host table', () => {
  it('applies a round once: the second apply of the same (run, round) returns false and changes nothing', async () => {
    const c = await Catalog.open(tempDir('drum-catalog-test-'));
    const counts = new Map([['a.example', 3], ['b.example', 1]]);
    assert.equal(await c.applyHostCounts('r1', 0, counts), true);
    assert.equal(await c.hasRound('r1', 0), true);
    assert.equal(await c.applyHostCounts('r1', 0, counts), false);
    assert.equal(await c.hostCount('a.example'), 3);
    assert.equal(await c.applyHostCounts('r1', 1, new Map([['b.example', 5]])), true);
    assert.equal(await c.applyHostCounts('r2', 0, new Map([['a.example', 1]])), true);
    assert.deepEqual(await c.topHosts(5), [
      { host: 'b.example', uniqueUrls: 6 },
      { host: 'a.example', uniqueUrls: 4 },
    ]);
    await c.close();
  });

  it('counts each round exactly once when the same round is applied concurrently', async () => {
    const c = await Catalog.open(tempDir('drum-catalog-test-'));
    const counts = new Map([['h', 2]]);
    const results = await Promise.all([1, 2, 3, 4].map(() => c.applyHostCounts('r', 7, counts)));
    assert.deepEqual(results.filter(Boolean).length, 1);
    assert.equal(await c.hostCount('h'), 2);
    await c.close();
  });

  it('ranks 10^4 random hosts exactly like a Map model after several rounds', async () => {
    const c = await Catalog.open(tempDir('drum-catalog-test-'), { sync: false });
    const model = new Map<string, number>();
    let round = 0;
    const hostArb = fc.integer({ min: 0, max: 9999 }).map((i) => `h${i}.example`);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(hostArb, fc.integer({ min: 1, max: 50 })), { minLength: 500, maxLength: 2000, size: 'max' }),
        fc.integer({ min: 1, max: 40 }),
        async (pairs, n) => {
          const counts = new Map<string, number>();
          for (const [h, k] of pairs) counts.set(h, (counts.get(h) ?? 0) + k);
          assert.equal(await c.applyHostCounts('run', round++, counts), true);
          for (const [h, k] of counts) model.set(h, (model.get(h) ?? 0) + k);
          assert.deepEqual(await c.topHosts(n), modelTop(model, n));
        },
      ),
      { seed: 4242, numRuns: 25 },
    );
    assert.ok(model.size > 5000, `exercised ${model.size} hosts`);
    let seen = 0;
    for await (const h of c.allHosts()) {
      assert.equal(h.uniqueUrls, model.get(h.host));
      seen++;
    }
    assert.equal(seen, model.size);
    await c.close();
  });
});

describe('host table deltas', () => {
  it('reads the same counts before and after folding the per-round deltas into the table', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'drum-cat-'));
    const c = await Catalog.open(dir, { sync: false });
    try {
      await c.applyHostCounts('r', 1, new Map([['a.example', 2], ['b.example', 1]]));
      await c.applyHostCounts('r', 2, new Map([['a.example', 3]]));
      assert.equal(await c.pendingDeltas(), 2);
      const before = await c.topHosts(10);
      assert.deepEqual(before, [{ host: 'a.example', uniqueUrls: 5 }, { host: 'b.example', uniqueUrls: 1 }]);
      assert.equal(await c.compactHosts(), 2);
      assert.equal(await c.pendingDeltas(), 0);
      assert.deepEqual(await c.topHosts(10), before);
      assert.equal(await c.hostCount('a.example'), 5);
      assert.equal(await c.applyHostCounts('r', 2, new Map([['a.example', 3]])), false);
      assert.equal(await c.hostCount('a.example'), 5);
    } finally {
      await c.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a writer\'s pending host deltas', () => {
  /** Counts the scans of the catalog's round delta file records (one per pending round read). */
  function countScans(c: Catalog): () => number {
    const subs = (c as unknown as { subs: Map<string, { iterator: (...a: unknown[]) => unknown }> }).subs;
    const files = subs.get('hostDeltaFiles')!;
    let n = 0;
    const iterator = files.iterator.bind(files);
    files.iterator = (...a: unknown[]) => { n++; return iterator(...a); };
    return () => n;
  }

  it('decides a fold after each round without reading the record of every pending round again', async () => {
    const dir = tempDir('drum-catalog-test-');
    const c = await Catalog.open(dir, { sync: false });
    try {
      await c.applyHostCounts('r', 0, new Map([['a.example', 1]]));
      await c.pendingShape();
      const scans = countScans(c);
      for (let r = 1; r <= 50; r++) {
        await c.applyHostCounts('r', r, new Map([[`h${r}.example`, 2]]));
        assert.equal((await c.pendingShape()).parts, r + 1);
      }
      assert.equal(scans(), 0);
    } finally {
      await c.close();
    }
  });

  it('keeps its pending shape what a fresh open reads across rounds, repeated rounds and folds (property)', async () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('round' as const), round: fc.integer({ min: 0, max: 12 }), hosts: fc.integer({ min: 1, max: 30 }) }),
      fc.record({ kind: fc.constant('fold' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 12 }), async (steps) => {
        const dir = tempDir('drum-catalog-test-');
        let c = await Catalog.open(dir, { sync: false });
        try {
          for (const s of steps) {
            if (s.kind === 'fold') await c.compactHosts();
            else await c.applyHostCounts('run', s.round, new Map(Array.from({ length: s.hosts }, (_, i) => [`h${i}-${s.round}.example`, 1 + i])));
            await c.pendingShape();
          }
          const kept = await c.pendingShape();
          await c.close();
          c = await Catalog.open(dir, { sync: false });
          assert.deepEqual(kept, await c.pendingShape());
        } finally {
          await c.close();
        }
      }),
      { seed: 77, numRuns: 25 },
    );
  });
});
