// Tests for src/tiers/mix.ts: the key mixes are bijections in each half (keys
// that differ in one half never collide on the mix) and the range reduction
// stays inside [0, n) even at the extremes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fmix32, mixKey, mixKey2, rangeScale } from '../../src/tiers/mix.js';

const u32 = fc.integer({ min: 0, max: 0xffffffff });

describe('tier hash mixing', () => {
  it('never maps two keys that differ only in lo, or only in hi, to the same mix', () => {
    fc.assert(
      fc.property(u32, u32, u32, (fixed, a, b) => {
        fc.pre(a !== b);
        assert.notEqual(mixKey(fixed, a), mixKey(fixed, b));
        assert.notEqual(mixKey(a, fixed), mixKey(b, fixed));
        assert.notEqual(mixKey2(fixed, a), mixKey2(fixed, b));
        assert.notEqual(mixKey2(a, fixed), mixKey2(b, fixed));
      }),
      { seed: 4242, numRuns: 2000 },
    );
  });

  it('returns uint32 values', () => {
    fc.assert(
      fc.property(u32, u32, (hi, lo) => {
        for (const v of [fmix32(hi), mixKey(hi, lo), mixKey2(hi, lo)]) {
          assert.ok(Number.isInteger(v) && v >= 0 && v <= 0xffffffff);
        }
      }),
      { seed: 4242, numRuns: 500 },
    );
  });

  it('reduces the largest uint32 to n - 1 and zero to 0 for any n up to 2^31 - 1', () => {
    for (const n of [1, 2, 3, 1000, 2 ** 25 + 7, 2 ** 27, 2 ** 31 - 1]) {
      assert.equal(Math.floor(0xffffffff * rangeScale(n)), n - 1);
      assert.equal(Math.floor(0 * rangeScale(n)), 0);
    }
  });
});
