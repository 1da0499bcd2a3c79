// Tests of the host table's bounded batches: a round applied in several
// LevelDB batches (marker last), a crash between those batches (reads and
// folds ignore the partial round, the redo replaces it: no double count),
// and a fold in hash slices that a crash interrupts and the next fold
// resumes. Every check compares against a plain Map model.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Catalog, type HostCount } from '../../src/catalog/catalog.js';
import { encodeHostMap } from '../../src/catalog/host-delta.js';
import { tempDir } from '../helpers/tmp.js';

type Model = Map<string, number>;

/** A round as several parts; a host may appear in more than one part. */
function roundParts(seed: number, hosts: number, parts: number): Map<string, number>[] {
  const out: Map<string, number>[] = [];
  let x = seed;
  for (let p = 0; p < parts; p++) {
    const m = new Map<string, number>();
    for (let i = 0; i < hosts; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      if (x % 3 === 0) m.set(`h${(x >>> 8) % (2 * hosts)}.example`, 1 + (x % 5));
    }
    out.push(m);
  }
  return out;
}

function addTo(model: Model, parts: Map<string, number>[]): void {
  for (const m of parts) for (const [h, n] of m) model.set(h, (model.get(h) ?? 0) + n);
}

function sorted(m: Model): HostCount[] {
  return [...m].map(([host, uniqueUrls]) => ({ host, uniqueUrls })).sort((a, b) => b.uniqueUrls - a.uniqueUrls || (a.host < b.host ? -1 : 1));
}

/** Yields the encoded parts, then throws like a process dying mid-apply. */
function* dyingAfter(parts: Map<string, number>[], k: number): Generator<Uint8Array> {
  for (let i = 0; i < k; i++) yield encodeHostMap(parts[i]!);
  throw new Error('simulated crash');
}

async function expectTable(c: Catalog, model: Model): Promise<void> {
  assert.deepEqual(await c.topHosts(100_000), sorted(model));
  const some = [...model.keys()].slice(0, 3);
  for (const h of some) assert.equal(await c.hostCount(h), model.get(h));
}

describe('host counts applied in bounded batches', () => {
  it('writes a round in several batches and counts it once, marker last', async () => {
    const c = await Catalog.open(tempDir(), { sync: false, hostBatchBytes: 256 });
    try {
      const parts = roundParts(1, 60, 8);
      const model: Model = new Map();
      addTo(model, parts);
      assert.equal(await c.applyHostCounts('r', 1, parts.map(encodeHostMap)), true);
      assert.equal(await c.applyHostCounts('r', 1, parts.map(encodeHostMap)), false);
      assert.equal(await c.pendingDeltas(), 8);
      await expectTable(c, model);
    } finally {
      await c.close();
    }
  });

  it('ignores a round cut short between batches, and its redo counts it exactly once', async () => {
    const state = tempDir();
    const model: Model = new Map();
    const c = await Catalog.open(state, { sync: false, hostBatchBytes: 200 });
    const first = roundParts(2, 40, 3);
    addTo(model, first);
    await c.applyHostCounts('r', 1, first.map(encodeHostMap));
    const second = roundParts(3, 40, 10);
    await assert.rejects(c.applyHostCounts('r', 2, dyingAfter(second, 7)));
    assert.equal(await c.hasRound('r', 2), false);
    await expectTable(c, model);
    assert.equal(await c.pendingDeltas(), 3);
    await c.close();
    // A new process: the fold at open must not take the partial round in.
    const c2 = await Catalog.open(state, { sync: false, hostBatchBytes: 200, foldSliceBytes: 300 });
    try {
      assert.equal(await c2.compactHosts(), 3);
      await expectTable(c2, model);
      addTo(model, second);
      assert.equal(await c2.applyHostCounts('r', 2, second.map(encodeHostMap)), true);
      await expectTable(c2, model);
      assert.equal(await c2.compactHosts(), 10);
      await expectTable(c2, model);
      assert.equal(await c2.pendingDeltas(), 0);
    } finally {
      await c2.close();
    }
  });

  it('replaces the leftovers of a crashed apply on redo, whatever batch the crash fell in (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 100, max: 2000 }), async (n, k, batch) => {
        const c = await Catalog.open(tempDir(), { sync: false, hostBatchBytes: batch });
        try {
          const parts = roundParts(n * 31 + k, 30, n);
          await assert.rejects(c.applyHostCounts('run', 0, dyingAfter(parts, Math.min(k, n))));
          await c.applyHostCounts('run', 0, parts.slice(0, n).map(encodeHostMap));
          const model: Model = new Map();
          addTo(model, parts);
          await expectTable(c, model);
        } finally {
          await c.close();
        }
      }),
      { seed: 4242, numRuns: 12 },
    );
  });
});

describe('folding deltas in slices', () => {
  it('folds in several slices and resumes a fold a crash cut short, counts unchanged throughout', async () => {
    const state = tempDir();
    const c = await Catalog.open(state, { sync: false, foldSliceBytes: 256 });
    const model: Model = new Map();
    for (let r = 0; r < 4; r++) {
      const parts = roundParts(10 + r, 50, 3);
      addTo(model, parts);
      await c.applyHostCounts('r', r, parts.map(encodeHostMap));
    }
    // Let the fold's third batch write fail, as if the process died there
    // (array batches and chained batches alike).
    type Chained = { write: (o?: unknown) => Promise<void> };
    const db = (c as unknown as { db: { batch: (...a: unknown[]) => unknown } }).db;
    const batch = db.batch.bind(db);
    let calls = 0;
    const crashes = (): boolean => ++calls === 3;
    db.batch = (...a: unknown[]) => {
      if (a.length > 0) return crashes() ? Promise.reject(new Error('simulated crash')) : batch(...a);
      const chained = batch() as Chained;
      const write = chained.write.bind(chained);
      chained.write = (o?: unknown) => (crashes() ? Promise.reject(new Error('simulated crash')) : write(o));
      return chained;
    };
    await assert.rejects(c.compactHosts());
    db.batch = batch;
    await expectTable(c, model);
    await c.close();
    const c2 = await Catalog.open(state, { sync: false, foldSliceBytes: 256 });
    try {
      await expectTable(c2, model);
      assert.equal(await c2.compactHosts(), 12);
      assert.equal(await c2.pendingDeltas(), 0);
      await expectTable(c2, model);
      const more = roundParts(99, 50, 2);
      addTo(model, more);
      await c2.applyHostCounts('r', 9, more.map(encodeHostMap));
      await expectTable(c2, model);
    } finally {
      await c2.close();
    }
  });
});
