// The key journal's RAM table against a Map model: finds every key added
// with its value, no key it was not given, through its doublings, and stops
// at its capacity.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { JournalTable } from '../../../src/store/journal/journal-table.js';
import { isDrumError } from '../../../src/errors.js';

const key = fc.tuple(fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff }));

describe('the key journal table', () => {
  it('finds each key added with its value, and no other, against a Map', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 3000 }), fc.array(key, { maxLength: 200 }), fc.constantFrom(0, 1, 6), (adds, probes, words) => {
        const t = new JournalTable(words, 4096);
        const model = new Map<string, number[]>();
        for (const [hi, lo] of adds) {
          const k = `${hi}:${lo}`;
          if (model.has(k)) continue; // a journal never holds a key twice
          const v = Array.from({ length: words }, (_, i) => (hi ^ (lo + i)) >>> 0);
          t.add(hi, lo, Uint32Array.from(v), 0);
          model.set(k, v);
        }
        assert.equal(t.count, model.size);
        for (const [k, v] of model) {
          const [hi, lo] = k.split(':').map(Number) as [number, number];
          const e = t.find(hi, lo);
          assert.ok(e >= 0, k);
          assert.deepEqual([...t.values.subarray(e * words, (e + 1) * words)], v);
        }
        for (const [hi, lo] of probes) assert.equal(t.has(hi, lo), model.has(`${hi}:${lo}`));
      }),
      { seed: 7, numRuns: 60 },
    );
  });

  it('refuses a key past its capacity with DRUM_INTERNAL, and clear() empties it', () => {
    const t = new JournalTable(0, 3);
    for (let i = 0; i < 3; i++) t.add(i, i, new Uint32Array(0), 0);
    assert.equal(t.room, 0);
    assert.throws(() => t.add(9, 9, new Uint32Array(0), 0), (e) => isDrumError(e, 'DRUM_INTERNAL'));
    t.clear();
    assert.equal(t.count, 0);
    assert.equal(t.has(1, 1), false);
    t.add(1, 1, new Uint32Array(0), 0);
    assert.equal(t.has(1, 1), true);
  });
});
