import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { RangeCopier } from '../../src/io/range-copy.js';

describe('RangeCopier', () => {
  it('copies any range of any view to any offset exactly as a byte loop would', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 300 }),
        fc.nat({ max: 7 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat({ max: 200 })), { minLength: 1, maxLength: 20 }),
        (bytes, srcOffset, ranges) => {
          // The source is a view at an odd byte offset of a bigger buffer; so is the destination.
          const backing = new Uint8Array(bytes.length + srcOffset);
          backing.set(bytes, srcOffset);
          const src = backing.subarray(srcOffset);
          const dst = new Uint8Array(new ArrayBuffer(520), 3, 512);
          const model = new Uint8Array(512);
          const c = new RangeCopier();
          for (const [a, b, at] of ranges) {
            const start = a % src.length;
            const end = start + (b % (src.length - start + 1));
            const got = c.copy(src, start, end, dst, at);
            for (let i = start; i < end; i++) model[at + i - start] = src[i]!;
            assert.equal(got, at + end - start);
          }
          assert.deepEqual(dst, model);
        },
      ),
      { seed: 4242, numRuns: 300 },
    );
  });

  it('takes fresh views when the source or the destination changes, also between two views of one buffer', () => {
    const buf = new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const dst = new Uint8Array(16);
    const c = new RangeCopier();
    let at = c.copy(buf.subarray(0, 5), 0, 5, dst, 0);
    at = c.copy(buf.subarray(5), 0, 5, dst, at);
    // A second destination: the copier must not keep writing through the first one's view.
    const other = new Uint8Array(8);
    assert.equal(c.copy(buf, 2, 6, other, 1), 5);
    assert.deepEqual([...other], [0, 3, 4, 5, 6, 0, 0, 0]);
    assert.deepEqual([...dst.subarray(0, at)], [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('measures the prefix two ranges share exactly as a byte loop would, at any offsets and any first difference', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.nat(7), fc.nat(7), fc.nat(45), fc.integer({ min: 1, max: 255 }), fc.uint8Array({ maxLength: 40 }), fc.nat(3),
        (stem, offA, offB, cut, flip, noise, view) => {
          // Two copies of `stem` at offsets offA and offB of one array; the second differs by `flip` at `cut`, if inside, and maybe after it.
          const arr = new Uint8Array(view + offA + stem.length + offB + stem.length);
          const src = arr.subarray(view);
          const a = offA;
          const b = offA + stem.length + offB;
          src.set(stem, a);
          src.set(stem, b);
          if (cut < stem.length) {
            src[b + cut] ^= flip;
            for (let j = cut + 1; j < stem.length && j - cut - 1 < noise.length; j++) src[b + j] ^= noise[j - cut - 1]!;
          }
          const max = stem.length;
          let model = 0;
          while (model < max && src[a + model] === src[b + model]) model++;
          assert.equal(new RangeCopier().sharedPrefix(src, a, b, max), model);
          assert.equal(new RangeCopier().sharedPrefix(src, a, b, Math.min(max, 3)), Math.min(model, 3));
        },
      ),
      { seed: 4243, numRuns: 500 },
    );
  });
});
