import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChunkSet } from '../../src/tiers/chunk-set.js';

describe('ChunkSet', () => {
  it('marks exactly the keys that repeat an earlier key of the same chunk, chunk after chunk', () => {
    const cs = new ChunkSet();
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat({ max: 5 }), fc.nat({ max: 40 })), { maxLength: 3000 }), (pairs) => {
        const n = pairs.length;
        const keys = new Uint32Array(2 * n);
        pairs.forEach(([h, l], i) => {
          keys[2 * i] = h;
          keys[2 * i + 1] = l;
        });
        const rep = new Uint8Array(n);
        const count = cs.mark(keys, n, rep);
        const seen = new Set<string>();
        let expected = 0;
        pairs.forEach(([h, l], i) => {
          const k = `${h}/${l}`;
          assert.equal(rep[i], seen.has(k) ? 1 : 0);
          if (seen.has(k)) expected++;
          seen.add(k);
        });
        assert.equal(count, expected);
      }),
      { seed: 4242, numRuns: 200 },
    );
  });
});
