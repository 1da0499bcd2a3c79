// Tests of the interleaved radix sort (src/bucket/radix-interleaved.ts)
// against the array-by-array reference (radixSortArrays) and a comparison
// sort: same keys, ordinals and seeds in the same order, over unit sizes
// around the interleaved threshold, with and without seeds, and with keys
// whose digits vary in few or many places (so odd and even numbers of
// passes run, and the result is unpacked from either buffer). Also: the
// layout check that picks the interleaved way.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { radixSortArrays, radixSortKeys } from '../../src/bucket/radix-sort.js';
import { INTERLEAVED_MIN, interleavedOf, radixSortInterleaved } from '../../src/bucket/radix-interleaved.js';

/** `count` arrays of `cap` entries end to end in one buffer, as the sort area lays out its slots. */
function endToEnd(cap: number, count: number): Uint32Array[] {
  const buf = new SharedArrayBuffer(4 * cap * count);
  return Array.from({ length: count }, (_, k) => new Uint32Array(buf, 4 * cap * k, cap));
}

/** A small deterministic generator: the test's keys come from fast-check's seed, not from fast-check arrays of thousands. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
}

const unit = fc.record({
  n: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: INTERLEAVED_MIN - 2, max: 3 * INTERLEAVED_MIN })),
  slack: fc.nat({ max: 50 }),
  seeded: fc.boolean(),
  // Which bits of each word vary: none, a few low ones, a host-like high field, all.
  hiMask: fc.constantFrom(0, 0x3, 0x03fc0000, 0x03ffffff, 0xffffffff),
  loMask: fc.constantFrom(0, 0x7, 0x7ff, 0xffc00000, 0xffffffff),
  repeats: fc.boolean(),
  seed: fc.integer(),
});

describe('radixSortInterleaved', () => {
  it('orders keys, ordinals and seeds exactly as the array-by-array sort and a comparison sort do (property)', () => {
    fc.assert(
      fc.property(unit, ({ n, slack, seeded, hiMask, loMask, repeats, seed }) => {
        const cap = n + slack;
        const next = rng(seed);
        const hi0 = new Uint32Array(n);
        const lo0 = new Uint32Array(n);
        for (let i = 0; i < n; i++) {
          const j = repeats && i > 0 && next() % 4 === 0 ? next() % i : -1;
          hi0[i] = j >= 0 ? hi0[j]! : (0x28000000 | (next() & hiMask)) >>> 0;
          lo0[i] = j >= 0 ? lo0[j]! : next() & loMask;
        }
        const count = seeded ? 4 : 3;
        const [hi, lo, ord, s = null] = endToEnd(cap, count);
        const [tHi, tLo, tOrd, tSeed = null] = endToEnd(cap, count);
        hi!.set(hi0);
        lo!.set(lo0);
        for (let i = 0; i < n; i++) {
          ord![i] = i;
          if (s !== null) s[i] = next();
        }
        const ref = { hi: hi!.slice(0, n), lo: lo!.slice(0, n), ord: ord!.slice(0, n), seed: s === null ? null : s.slice(0, n) };
        radixSortArrays(ref.hi, ref.lo, ref.ord, n, new Uint32Array(n), new Uint32Array(n), new Uint32Array(n), ref.seed, s === null ? null : new Uint32Array(n));
        radixSortKeys(hi!, lo!, ord!, n, tHi!, tLo!, tOrd!, s, tSeed);
        assert.deepEqual(hi!.slice(0, n), ref.hi);
        assert.deepEqual(lo!.slice(0, n), ref.lo);
        assert.deepEqual(ord!.slice(0, n), ref.ord);
        if (s !== null) assert.deepEqual(s.slice(0, n), ref.seed);
        const model = [...hi0].map((h, i) => [h, lo0[i]!, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
        assert.deepEqual([...ord!.slice(0, n)], model.map((m) => m[2]));
      }),
      { seed: 20261127, numRuns: 120 },
    );
  });

  it('sorts directly from a layout of three arrays (a keys-only store) and of four', () => {
    for (const count of [3, 4]) {
      const n = INTERLEAVED_MIN + 7;
      const [hi, lo, ord, seed = null] = endToEnd(n, count);
      const scratch = new Uint32Array(count * n);
      const next = rng(count);
      for (let i = 0; i < n; i++) {
        hi![i] = next();
        lo![i] = next();
        ord![i] = i;
        if (seed !== null) seed[i] = i * 3;
      }
      radixSortInterleaved(hi!, lo!, ord!, seed, n, interleavedOf(hi!, lo!, ord!, seed)!, scratch);
      for (let i = 1; i < n; i++) assert.ok(hi![i - 1]! < hi![i]! || (hi![i - 1] === hi![i] && lo![i - 1]! <= lo![i]!));
      if (seed !== null) for (let i = 0; i < n; i++) assert.equal(seed[i], ord![i]! * 3);
    }
  });

  it('takes the interleaved way only for arrays laid end to end in one buffer', () => {
    const [hi, lo, ord, seed] = endToEnd(10, 4);
    assert.equal(interleavedOf(hi!, lo!, ord!, seed!)!.length, 40);
    assert.equal(interleavedOf(hi!, lo!, ord!, null)!.length, 30);
    assert.equal(interleavedOf(hi!, ord!, lo!, null), null);
    assert.equal(interleavedOf(hi!, lo!, ord!, new Uint32Array(10)), null);
    assert.equal(interleavedOf(new Uint32Array(10), new Uint32Array(10), new Uint32Array(10), null), null);
    const [a, b, c] = endToEnd(10, 3);
    assert.equal(interleavedOf(a!, b!, c!.subarray(0, 9), null), null);
  });
});
