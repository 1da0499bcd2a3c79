import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { dedupeSorted, radixSortKeys, sortUnique } from '../../src/bucket/radix-sort.js';

const key = fc.tuple(fc.oneof(fc.constant(0), fc.constant(0xffffffff), fc.nat({ max: 7 }), fc.integer({ min: 0, max: 0xffffffff })), fc.oneof(fc.nat({ max: 3 }), fc.integer({ min: 0, max: 0xffffffff })));

describe('radixSortKeys', () => {
  it('sorts like a 64-bit comparison sort and keeps equal keys in ordinal order', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 300 }), (pairs) => {
        const n = pairs.length;
        const hi = Uint32Array.from(pairs.map((p) => p[0]));
        const lo = Uint32Array.from(pairs.map((p) => p[1]));
        const ord = Uint32Array.from(pairs.map((_, i) => i));
        radixSortKeys(hi, lo, ord, n, new Uint32Array(n), new Uint32Array(n), new Uint32Array(n));
        const model = pairs.map((p, i) => [p[0], p[1], i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
        assert.deepEqual([...hi], model.map((m) => m[0]));
        assert.deepEqual([...lo], model.map((m) => m[1]));
        assert.deepEqual([...ord], model.map((m) => m[2]));
      }),
      { seed: 4242, numRuns: 200 },
    );
  });

  it('moves each seed with its key and keeps the first arrival\'s seed for a repeated key (property)', () => {
    fc.assert(
      fc.property(fc.array(key, { maxLength: 300 }), (pairs) => {
        const n = pairs.length;
        const hi = Uint32Array.from(pairs.map((p) => p[0]));
        const lo = Uint32Array.from(pairs.map((p) => p[1]));
        const ord = Uint32Array.from(pairs.map((_, i) => i));
        const seed = Uint32Array.from(pairs.map((_, i) => (Math.imul(i, 2654435761) >>> 0)));
        const t = (): Uint32Array => new Uint32Array(n);
        const u = sortUnique(hi, lo, ord, n, t(), t(), t(), seed, t());
        const first = new Map<string, number>();
        pairs.forEach((p, i) => { if (!first.has(`${p[0]}:${p[1]}`)) first.set(`${p[0]}:${p[1]}`, i); });
        assert.equal(u, first.size);
        for (let i = 0; i < u; i++) {
          const o = first.get(`${hi[i]}:${lo[i]}`)!;
          assert.equal(ord[i], o);
          assert.equal(seed[i], Math.imul(o, 2654435761) >>> 0);
        }
      }),
      { seed: 4243, numRuns: 200 },
    );
  });

  it('drops repeats keeping the first arrival', () => {
    const hi = Uint32Array.from([1, 1, 1, 2, 2]);
    const lo = Uint32Array.from([5, 5, 6, 0, 0]);
    const ord = Uint32Array.from([3, 9, 4, 1, 7]);
    const n = dedupeSorted(hi, lo, ord, 5);
    assert.equal(n, 3);
    assert.deepEqual([...ord.subarray(0, n)], [3, 4, 1]);
  });
});

describe('radixSortKeys on large inputs', () => {
  it('sorts 100k keys with 16-bit digits as a comparison sort would', () => {
    const n = 100_000;
    const hi = new Uint32Array(n), lo = new Uint32Array(n), ord = new Uint32Array(n);
    let x = 12345;
    for (let i = 0; i < n; i++) {
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      hi[i] = x % 97;
      x = (Math.imul(x, 1103515245) + 12345) >>> 0;
      lo[i] = x;
      ord[i] = i;
    }
    const model = Array.from({ length: n }, (_, i) => [hi[i]!, lo[i]!, i] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    radixSortKeys(hi, lo, ord, n, new Uint32Array(n), new Uint32Array(n), new Uint32Array(n));
    for (let i = 0; i < n; i += 997) assert.deepEqual([hi[i], lo[i], ord[i]], model[i]);
    for (let i = 1; i < n; i++) assert.ok(hi[i - 1]! < hi[i]! || (hi[i - 1] === hi[i] && lo[i - 1]! <= lo[i]!));
  });
});
