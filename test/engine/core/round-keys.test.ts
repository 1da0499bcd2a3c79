// The round's key table (src/engine/core/round-keys.ts) against a Map model:
// keys from a small pool, find-then-add as its clients use it, across
// clears, at the default load and a fuller one, with and without reserve().

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RoundKeys } from '../../../src/engine/core/round-keys.js';

describe('RoundKeys', () => {
  it('finds the ordinal of each key\'s first arrival as a Map does, across clears and growth', () => {
    fc.assert(fc.property(
      fc.array(fc.array(fc.nat({ max: 200_000 }), { maxLength: 3000 }), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(0.5, 0.8), fc.constantFrom(0, 70_000),
      (rounds, maxLoad, reserve) => {
        const t = new RoundKeys(maxLoad);
        for (const keys of rounds) {
          t.clear();
          if (reserve > 0) t.reserve(reserve);
          const model = new Map<number, number>();
          keys.forEach((k, i) => {
            const hi = Math.imul(k, 0x9e3779b1) >>> 0;
            const lo = k & 0xff; // many keys share a low word
            const o = t.find(hi, lo);
            assert.equal(o, model.get(k) ?? -1);
            if (o < 0) {
              t.add(hi, lo, i);
              model.set(k, i);
            }
          });
          assert.equal(t.size, model.size);
        }
      },
    ), { numRuns: 30 });
  });

  it('takes no more slots than its load allows, and reserve() makes room without growing later', () => {
    const half = new RoundKeys();
    const full = new RoundKeys(0.8);
    for (const t of [half, full]) t.reserve(1_600_000);
    assert.equal(half.bytes, 12 * (1 << 22));
    assert.equal(full.bytes, 12 * (1 << 21));
    for (let k = 0; k < 1_600_000; k++) {
      if (full.find(k, 1) < 0) full.add(k, 1, k);
    }
    assert.equal(full.bytes, 12 * (1 << 21));
    assert.throws(() => full.reserve(10), RangeError);
  });
});
