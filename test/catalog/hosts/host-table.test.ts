// Tests of the host table: a round's parts written to a delta file of its
// own and recorded with the round's marker in one batch, a crash while the
// file is written or before its batch (reads and folds ignore it, the redo
// replaces it: no double count), folds into the host table file in name
// ranges (a failed commit changes nothing), and catalogs of the older
// layouts (parts as LevelDB values; the table in a sublevel, a fold in
// progress) read, finished and moved into files. Every check compares
// against a plain Map model.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Catalog, type HostCount } from '../../../src/catalog/catalog.js';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import { roundKey } from '../../../src/catalog/keys.js';
import { tempDir } from '../../helpers/tmp.js';
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

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

type LegacySub = { put: (k: string, v: unknown) => Promise<void>; keys: () => { all: () => Promise<string[]> } };

function sublevel(c: Catalog, name: string, valueEncoding: string): LegacySub {
  const db = (c as unknown as { db: { sublevel: (n: string, o: unknown) => LegacySub } }).db;
  return db.sublevel(name, { valueEncoding });
}

/** Records a round the way catalogs before the round delta files did: each part a LevelDB value, then the marker. */
async function applyLegacy(c: Catalog, runId: string, round: number, parts: Map<string, number>[]): Promise<void> {
  const marker = roundKey(runId, round);
  const deltas = sublevel(c, 'hostDeltas', 'view');
  for (let i = 0; i < parts.length; i++) await deltas.put(`${marker}#${String(i).padStart(6, '0')}`, encodeHostMap(parts[i]!));
  await sublevel(c, 'rounds', 'json').put(marker, parts.reduce((a, m) => a + m.size, 0));
}

function deltaFiles(state: string): string[] {
  const dir = join(state, 'hosts');
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.startsWith('delta-')).sort() : [];
}

async function expectTable(c: Catalog, model: Model): Promise<void> {
  assert.deepEqual(await c.topHosts(100_000), sorted(model));
  const some = [...model.keys()].slice(0, 3);
  for (const h of some) assert.equal(await c.hostCount(h), model.get(h));
}

describe('host counts of a round recorded as a delta file', () => {
  it('writes a round\'s parts to a delta file of its own, none into LevelDB, and counts it once', async () => {
    const state = tempDir();
    const c = await Catalog.open(state, { sync: false });
    try {
      const parts = roundParts(1, 60, 8);
      const model: Model = new Map();
      addTo(model, parts);
      assert.equal(await c.applyHostCounts('r', 1, parts.map(encodeHostMap)), true);
      assert.equal(await c.applyHostCounts('r', 1, parts.map(encodeHostMap)), false);
      assert.equal(await c.pendingDeltas(), 8);
      await expectTable(c, model);
      assert.deepEqual(deltaFiles(state), ['delta-r-0000000001.hd']);
      assert.deepEqual(await sublevel(c, 'hostDeltas', 'view').keys().all(), []);
    } finally {
      await c.close();
    }
  });

  it('ignores a round cut short while its delta file was written, and its redo counts it exactly once', async () => {
    const state = tempDir();
    const model: Model = new Map();
    const c = await Catalog.open(state, { sync: false });
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
    const c2 = await Catalog.open(state, { sync: false, foldSliceBytes: 300 });
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

  it('ignores a delta file whose batch never committed, and the next fold removes it', async () => {
    const state = tempDir();
    const c = await Catalog.open(state, { sync: false });
    try {
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
    } finally {
      await c.close();
    }
  });

  it('replaces the leftovers of a crashed apply on redo, whatever part the crash fell in (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 12 }), async (n, k) => {
        const c = await Catalog.open(tempDir(), { sync: false });
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

/** Makes the catalog's next LevelDB batch writes fail, as if the process died there, from the `at`-th on. */
function failBatches(c: Catalog, at: number): () => void {
  type Chained = { write: (o?: unknown) => Promise<void> };
  const db = (c as unknown as { db: { batch: (...a: unknown[]) => unknown } }).db;
  const batch = db.batch.bind(db);
  let calls = 0;
  const crashes = (): boolean => ++calls >= at;
  db.batch = (...a: unknown[]) => {
    if (a.length > 0) return crashes() ? Promise.reject(new Error('simulated crash')) : batch(...a);
    const chained = batch() as Chained;
    const write = chained.write.bind(chained);
    chained.write = (o?: unknown) => (crashes() ? Promise.reject(new Error('simulated crash')) : write(o));
    return chained;
  };
  return () => {
    db.batch = batch;
  };
}

function tableFiles(state: string): string[] {
  const dir = join(state, 'hosts');
  return existsSync(dir) ? readdirSync(dir).filter((n) => !n.startsWith('delta-')).sort() : [];
}

describe('folding deltas into the host table file', () => {
  it('folds in several name ranges into a new file, and a fold whose commit fails changes nothing', async () => {
    const state = tempDir();
    const c = await Catalog.open(state, { sync: false, foldSliceBytes: 256 });
    const model: Model = new Map();
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
    await c.close();
    const c2 = await Catalog.open(state, { sync: false, foldSliceBytes: 256 });
    try {
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
    } finally {
      await c2.close();
    }
  });

  it('keeps rounds\' parts out of LevelDB\'s table files, and a fold\'s delta files until the next fold', async () => {
    const state = tempDir();
    const ldbBytes = (): number => readdirSync(join(state, 'catalog')).filter((f) => f.endsWith('.ldb')).reduce((a, f) => a + statSync(join(state, 'catalog', f)).size, 0);
    const c = await Catalog.open(state, { sync: false });
    try {
      const model: Model = new Map();
      // ~1.5 MB of parts: as LevelDB values they were written out to table files, which LevelDB maps when it compacts them.
      for (let r = 0; r < 6; r++) {
        const parts = roundParts(300 + r, 40_000, 1);
        addTo(model, parts);
        await c.applyHostCounts('r', r, parts.map(encodeHostMap));
      }
      await c.close();
      const c2 = await Catalog.open(state, { sync: false });
      try {
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
      } finally {
        await c2.close();
      }
    } catch (e) {
      await c.close().catch(() => undefined);
      throw e;
    }
  });

  it('removes the spill files a fold cut short by a crash left behind', async () => {
    const state = tempDir();
    const c = await Catalog.open(state, { sync: false, foldSliceBytes: 256 });
    try {
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
    } finally {
      await c.close();
    }
  });

  it('lists every host in name order, the table file merged with pending deltas', async () => {
    const c = await Catalog.open(tempDir(), { sync: false, foldSliceBytes: 300 });
    try {
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
    } finally {
      await c.close();
    }
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

describe('catalogs written before the round delta files and the host table file', () => {
  it('reads and folds parts kept as LevelDB values beside round delta files, and drops those of unmarked rounds', async () => {
    const state = tempDir();
    const c = await Catalog.open(state, { sync: false, foldSliceBytes: 256 });
    try {
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
    } finally {
      await c.close();
    }
  });

  it('finishes a legacy fold a crash cut short, then moves the table into a file, counts unchanged', async () => {
    const state = tempDir();
    const c = await Catalog.open(state, { sync: false });
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
    await c.close();
  });
});
