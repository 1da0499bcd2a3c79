// Tests for src/tiers/hot-cache.ts: never a false hit (against a Set model),
// keeps every key when no set overflows, CLOCK spares referenced keys, the
// disabled cache, memory accounting and the spread of narrow key families.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { HotCache, HOT_WAYS } from '../../src/tiers/hot-cache.js';
import { id, narrowFamilies } from './keys.js';
import { DEFAULTS } from '../../src/options.js';

// Few distinct halves so that keys repeat and sets overflow in tiny caches.
const smallKey = fc.tuple(fc.integer({ min: 0, max: 7 }), fc.integer({ min: 0, max: 15 }))
  .map(([a, b]): [number, number] => [(a * 0x01000001) >>> 0, (b * 0x10001) >>> 0]);
const op = fc.tuple(fc.boolean(), smallKey);

describe('HotCache', () => {
  it('never reports a key that was never inserted, and counts lookups and hits like the model', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 40 }), fc.array(op, { maxLength: 300 }), (entries, ops) => {
        const c = new HotCache(entries);
        const model = new Set<string>();
        let lookups = 0;
        let hits = 0;
        for (const [isInsert, [hi, lo]] of ops) {
          if (isInsert) {
            c.insert(hi, lo);
            model.add(id(hi, lo));
            assert.equal(c.has(hi, lo), true, 'a key is present right after its insert');
            lookups++;
            hits++;
          } else {
            const got = c.has(hi, lo);
            lookups++;
            if (got) hits++;
            if (got) assert.ok(model.has(id(hi, lo)), `false hit for ${id(hi, lo)}`);
          }
          assert.ok(c.size <= c.entries);
        }
        assert.equal(c.lookups, lookups);
        assert.equal(c.hits, hits);
      }),
      { seed: 4242, numRuns: 300 },
    );
  });

  it('keeps every inserted key when no set receives more keys than it has ways', () => {
    const key = fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }));
    fc.assert(
      fc.property(fc.integer({ min: 8, max: 256 }), fc.array(key, { maxLength: 400 }), (entries, keys) => {
        const c = new HotCache(entries);
        const perSet = new Map<number, Set<string>>();
        const kept: [number, number][] = [];
        for (const [hi, lo] of keys) {
          const s = c.setOf(hi, lo);
          const inSet = perSet.get(s) ?? new Set<string>();
          perSet.set(s, inSet);
          if (inSet.has(id(hi, lo)) || inSet.size < c.ways) {
            inSet.add(id(hi, lo));
            kept.push([hi, lo]);
          }
        }
        for (const [hi, lo] of kept) c.insert(hi, lo);
        for (const [hi, lo] of kept) assert.equal(c.has(hi, lo), true, `lost ${id(hi, lo)}`);
        assert.equal(c.evictions, 0);
      }),
      { seed: 4242, numRuns: 200 },
    );
  });

  it('evicts an unreferenced key before a key that was hit since its insert (CLOCK)', () => {
    const c = new HotCache(HOT_WAYS); // one set
    for (let i = 0; i < HOT_WAYS; i++) c.insert(1, i);
    assert.equal(c.has(1, 0), true); // sets key 0's reference bit
    c.insert(2, 99); // hand at way 0: clears its bit, moves on, evicts way 1
    assert.equal(c.has(1, 0), true, 'referenced key survived');
    assert.equal(c.has(1, 1), false, 'first unreferenced key was evicted');
    assert.equal(c.has(2, 99), true);
    assert.equal(c.evictions, 1);
    assert.equal(c.size, HOT_WAYS);
  });

  it('still finds room when every way of a full set is referenced', () => {
    const c = new HotCache(HOT_WAYS);
    for (let i = 0; i < HOT_WAYS; i++) c.insert(1, i);
    for (let i = 0; i < HOT_WAYS; i++) c.has(1, i);
    c.insert(3, 3);
    assert.equal(c.has(3, 3), true);
    let left = 0;
    for (let i = 0; i < HOT_WAYS; i++) if (c.has(1, i)) left++;
    assert.equal(left, HOT_WAYS - 1);
  });

  it('misses every lookup and holds no memory when sized 0', () => {
    const c = new HotCache(0);
    c.insert(1, 2);
    assert.equal(c.has(1, 2), false);
    assert.equal(c.bytes, 0);
    assert.equal(c.entries, 0);
    assert.equal(c.lookups, 1);
    assert.equal(c.hits, 0);
  });

  it('reports the memory bytesFor predicts and never more entries than asked for', () => {
    for (const n of [1, 7, 8, 9, 100, 1 << 12, (1 << 18) + 3]) {
      const c = new HotCache(n);
      assert.equal(c.bytes, HotCache.bytesFor(n));
      assert.ok(c.entries <= n && c.entries > n - HOT_WAYS, `entries ${c.entries} for ${n}`);
    }
    assert.equal(new HotCache().entries, DEFAULTS.cacheEntries, 'the class default is the engine default');
  });

  it('rejects a negative or fractional size as DRUM_BAD_OPTION', () => {
    assert.throws(() => new HotCache(-1), { code: 'DRUM_BAD_OPTION' });
    assert.throws(() => new HotCache(1.5), { code: 'DRUM_BAD_OPTION' });
  });

  it('forgets every key on clear()', () => {
    const c = new HotCache(64);
    for (let i = 0; i < 20; i++) c.insert(i, i);
    c.clear();
    for (let i = 0; i < 20; i++) assert.equal(c.has(i, i), false);
    assert.equal(c.size, 0);
  });

  it('drops exactly the removed keys and keeps every other key it held', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.nat({ max: 5000 }), { maxLength: 300 }), fc.array(fc.nat({ max: 5000 }), { maxLength: 100 }), (ins, rem) => {
        const t = new HotCache(64 * HOT_WAYS);
        for (const k of ins) t.insert(k, k ^ 0x5bd1e995);
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

  it('takes a new key into the way a remove freed', () => {
    const t = new HotCache(1 * HOT_WAYS);
    for (let i = 0; i < 8; i++) t.insert(i, i);
    assert.equal(t.remove(3, 3), true);
    t.insert(100, 100);
    assert.equal(t.has(100, 100), true);
    assert.equal(t.size, 8);
  });

  for (const [family, keys] of Object.entries(narrowFamilies(1024))) {
    it(`spreads 1024 keys that differ in ${family} over many sets`, () => {
      const c = new HotCache(1024 * HOT_WAYS); // 1024 sets: ~647 distinct expected
      const sets = new Set(keys.map(([hi, lo]) => c.setOf(hi, lo)));
      assert.ok(sets.size > 550, `only ${sets.size} sets used`);
    });
  }
});
