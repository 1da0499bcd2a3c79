import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { bucketRange, digitOf, inPrefix, inSlice, planSlices, rangeWords, type PrefixRange } from '../../src/bucket/key-range.js';

const big = (hi: number, lo: number): bigint => (BigInt(hi) << 32n) | BigInt(lo);
const word = fc.nat({ max: 0xffffffff });

/** Keys of a skewed bucket: a few hot prefixes, one key repeated, the rest spread. */
const keysArb = fc.array(
  fc.oneof(
    fc.tuple(word, word),
    fc.tuple(fc.constantFrom(0x12345678, 0x12345679, 0xfedcba98), word),
    fc.tuple(fc.constant(0x0abcdef0), fc.constantFrom(7, 8, 9)),
    fc.constant<[number, number]>([0xffffffff, 0xffffffff]),
  ),
  { maxLength: 300 },
);

/** Counts keys of `r` by their next `width` bits, the reference way (BigInt). */
function countRef(keys: [number, number][]) {
  return (r: PrefixRange, width: number, out: Float64Array): void => {
    out.fill(0);
    const { baseHi, baseLo } = rangeWords(r);
    for (const [h, l] of keys) {
      if (!inPrefix(r, baseHi, baseLo, h, l)) continue;
      out[Number((big(h, l) >> BigInt(64 - r.bits - width)) & ((1n << BigInt(width)) - 1n))]!++;
    }
  };
}

describe('key ranges', () => {
  it('extracts any digit of a 64-bit key like a BigInt shift does, across the word boundary too', () => {
    fc.assert(
      fc.property(word, word, fc.integer({ min: 0, max: 63 }), fc.integer({ min: 1, max: 8 }), (h, l, p, w) => {
        fc.pre(p + w <= 64);
        const ref = Number((big(h, l) >> BigInt(64 - p - w)) & ((1n << BigInt(w)) - 1n));
        assert.equal(digitOf(h, l, p, w), ref);
      }),
      { seed: 4242, numRuns: 2000 },
    );
  });

  it('tells whether a key has a prefix for every prefix length from 0 to 64 bits', () => {
    fc.assert(
      fc.property(word, word, word, word, fc.integer({ min: 0, max: 64 }), (h, l, bh, bl, bits) => {
        const base = bits === 0 ? 0n : (big(bh, bl) >> BigInt(64 - bits)) << BigInt(64 - bits);
        const r = { bits, base };
        const { baseHi, baseLo } = rangeWords(r);
        const want = bits === 0 || big(h, l) >> BigInt(64 - bits) === base >> BigInt(64 - bits);
        assert.equal(inPrefix(r, baseHi, baseLo, h, l), want);
        // The key's own prefix always matches.
        const own = { bits, base: bits === 0 ? 0n : (big(h, l) >> BigInt(64 - bits)) << BigInt(64 - bits) };
        const ow = rangeWords(own);
        assert.ok(inPrefix(own, ow.baseHi, ow.baseLo, h, l));
      }),
      { seed: 4242, numRuns: 1000 },
    );
  });

  it('plans ascending slices of at most cap entries that hold every key of the bucket exactly once', () => {
    fc.assert(
      fc.property(keysArb, fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 3 }), (pairs, cap, bucketBits) => {
        // Put every key in bucket 0 of `bucketBits` bits, as the bucket split would.
        const keys = pairs.map(([h, l]): [number, number] => [bucketBits === 0 ? h : h >>> bucketBits, l]);
        const slices = planSlices(bucketRange(0, bucketBits), keys.length, cap, countRef(keys));
        let planned = 0;
        for (let i = 0; i < slices.length; i++) {
          const s = slices[i]!;
          const inside = keys.filter(([h, l]) => inSlice(s, h, l));
          assert.equal(inside.length, s.count);
          if (s.single) {
            assert.ok(s.count > cap);
            assert.equal(new Set(inside.map(([h, l]) => big(h, l))).size, 1);
          } else {
            assert.ok(s.count <= cap && s.count > 0);
          }
          if (i > 0) {
            const p = slices[i - 1]!;
            assert.ok(!p.unbounded && big(p.upperHi, p.upperLo) <= big(s.lowerHi, s.lowerLo), 'slices ascend and do not overlap');
          }
          planned += s.count;
        }
        assert.equal(planned, keys.length);
      }),
      { seed: 4242, numRuns: 300 },
    );
  });

  it('makes one single-key slice for a key repeated more often than the sort area holds', () => {
    const keys: [number, number][] = [[5, 1], ...Array.from({ length: 50 }, (): [number, number] => [5, 2]), [5, 3]];
    const slices = planSlices({ bits: 0, base: 0n }, keys.length, 10, countRef(keys));
    assert.deepEqual(slices.map((s) => [s.count, s.single]), [[1, false], [50, true], [1, false]]);
  });

  it('refuses a count that the bucket does not hold (a planning bug, not a data problem)', () => {
    assert.throws(() => planSlices({ bits: 0, base: 0n }, 5, 2, countRef([[1, 1], [2, 2]])), /holds 2 entries, 5 expected/);
  });
});
