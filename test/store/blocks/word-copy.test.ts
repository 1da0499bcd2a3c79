import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { copyWords, LOOP_MAX_WORDS } from '../../../src/store/blocks/word-copy.js';

describe('copyWords', () => {
  it('copies any range as TypedArray.set does, by loop and by set alike', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 4 * LOOP_MAX_WORDS }),
        fc.integer({ min: 0, max: 50 }),
        fc.integer({ min: 0, max: 50 }),
        (n, from, at) => {
          const src = Uint32Array.from({ length: from + n + 3 }, (_, i) => (i * 2654435761) >>> 0);
          const got = new Uint32Array(at + n + 5).fill(7);
          const want = got.slice();
          copyWords(src, from, from + n, got, at);
          want.set(src.subarray(from, from + n), at);
          assert.deepEqual(got, want);
        },
      ),
    );
  });
});
