// Tests for src/tiers/recent-table.ts: never a false hit (against a Set
// model), exact per-set FIFO replacement when full, merges do not forget,
// the disabled table, memory accounting and the spread of narrow key families.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RecentTable, RECENT_WAYS } from '../../src/tiers/recent-table.js';
import { id, narrowFamilies } from './keys.js';
import { DEFAULTS } from '../../src/options.js';

const smallKey = fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 15 }))
  .map(([a, b]): [number, number] => [(a * 0x01000001) >>> 0, (b * 0x10001) >>> 0]);
const op = fc.tuple(fc.constantFrom('add', 'has', 'hasOrAdd', 'merged'), smallKey);

describe('RecentTable', () => {
  it('never reports a key that was never added, whatever mix of add, has, hasOrAdd and merges', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(op, { maxLength: 300 }), (entries, ops) => {
        const t = new RecentTable(entries);
        const model = new Set<string>();
        for (const [kind, [hi, lo]] of ops) {
          const k = id(hi, lo);
          if (kind === 'add') {
            t.add(hi, lo);
            model.add(k);
            assert.equal(t.has(hi, lo), true, 'a key is present right after its add');
          } else if (kind === 'has') {
            if (t.has(hi, lo)) assert.ok(model.has(k), `false hit for ${k}`);
          } else if (kind === 'hasOrAdd') {
            if (t.hasOrAdd(hi, lo)) assert.ok(model.has(k), `false hit for ${k}`);
            model.add(k);
            assert.equal(t.has(hi, lo), true, 'a key is present right after hasOrAdd');
          } else {
            t.onMerged();
          }
          assert.ok(t.size <= t.entries);
        }
      }),
      { seed: 4242, numRuns: 300 },
    );
  });

  it('when full, holds exactly the last keys added to each set (FIFO per set)', () => {
    const key = fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }));
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.uniqueArray(key, { maxLength: 400, selector: ([hi, lo]) => id(hi, lo) }),
        (entries, keys) => {
          const t = new RecentTable(entries);
          const perSet = new Map<number, [number, number][]>();
          for (const [hi, lo] of keys) {
            assert.equal(t.hasOrAdd(hi, lo), false, 'a distinct key is new');
            const s = t.setOf(hi, lo);
            perSet.set(s, [...(perSet.get(s) ?? []), [hi, lo]]);
          }
          assert.equal(t.hits, 0);
          for (const list of perSet.values()) {
            list.forEach(([hi, lo], i) => {
              const shouldStay = i >= list.length - t.ways;
              assert.equal(t.has(hi, lo), shouldStay, `key ${i} of ${list.length} in its set`);
            });
          }
        },
      ),
      { seed: 4242, numRuns: 200 },
    );
  });

  it('answers hasOrAdd true for a repeat and counts it as a hit', () => {
    const t = new RecentTable(1024);
    assert.equal(t.hasOrAdd(7, 8), false);
    assert.equal(t.hasOrAdd(7, 8), true);
    assert.equal(t.hasOrAdd(8, 7), false);
    assert.equal(t.lookups, 3);
    assert.equal(t.hits, 1);
    assert.equal(t.size, 2);
  });

  it('keeps its keys across onMerged()', () => {
    const t = new RecentTable(64);
    t.add(1, 2);
    t.onMerged();
    t.onMerged();
    assert.equal(t.has(1, 2), true);
    assert.equal(t.merges, 2);
  });

  it('keeps working when far more keys than its capacity are added', () => {
    const t = new RecentTable(256);
    for (let i = 0; i < 100_000; i++) t.add(i >>> 3, i);
    assert.equal(t.size, t.entries);
    assert.equal(t.has(99_999 >>> 3, 99_999), true, 'the newest key is always present');
    assert.ok(t.evictions >= 100_000 - t.entries);
  });

  it('misses every lookup and holds no memory when sized 0', () => {
    const t = new RecentTable(0);
    assert.equal(t.hasOrAdd(1, 2), false);
    assert.equal(t.hasOrAdd(1, 2), false);
    t.add(3, 4);
    assert.equal(t.has(3, 4), false);
    assert.equal(t.bytes, 0);
  });

  it('reports the memory bytesFor predicts and never more entries than asked for', () => {
    for (const n of [1, 5, 8, 17, 1000, 1 << 20]) {
      const t = new RecentTable(n);
      assert.equal(t.bytes, RecentTable.bytesFor(n));
      assert.ok(t.entries <= n && t.entries > n - RECENT_WAYS);
    }
    assert.equal(new RecentTable().entries, DEFAULTS.recentEntries, 'the class default is the engine default');
    assert.throws(() => new RecentTable(2 ** 29), { code: 'DRUM_BAD_OPTION' });
  });

  it('forgets every key on clear()', () => {
    const t = new RecentTable(64);
    for (let i = 0; i < 20; i++) t.add(i, 0);
    t.clear();
    for (let i = 0; i < 20; i++) assert.equal(t.has(i, 0), false);
    assert.equal(t.size, 0);
  });

  it('drops exactly the removed keys and keeps every other key it held', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat({ max: 5000 }), { maxLength: 300 }), fc.array(fc.nat({ max: 5000 }), { maxLength: 100 }), (ins, rem) => {
        const t = new RecentTable(64 * RECENT_WAYS);
        for (const k of ins) t.add(k, k ^ 0x5bd1e995);
        const held = ins.filter((k) => t.has(k, k ^ 0x5bd1e995));
        const size = t.size;
        const gone = new Set<number>();
        for (const k of rem) {
          assert.equal(t.remove(k, k ^ 0x5bd1e995), held.includes(k) && !gone.has(k));
          if (held.includes(k)) gone.add(k);
        }
        for (const k of held) assert.equal(t.has(k, k ^ 0x5bd1e995), !gone.has(k));
        assert.equal(t.size, size - gone.size);
      }),
      { seed: 4242, numRuns: 200 },
    );
  });

  for (const [family, keys] of Object.entries(narrowFamilies(1024))) {
    it(`spreads 1024 keys that differ in ${family} over many sets`, () => {
      const t = new RecentTable(1024 * RECENT_WAYS);
      const sets = new Set(keys.map(([hi, lo]) => t.setOf(hi, lo)));
      assert.ok(sets.size > 550, `only ${sets.size} sets used`);
    });
  }
});
