import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { crc32Combine } from '../../../src/store/blocks/crc-combine.js';

describe('crc32Combine', () => {
  it('gives the CRC of two byte strings joined from the CRC of each', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.uint8Array({ maxLength: 3000 }), (a, b) => {
        const joined = Buffer.concat([a, b]);
        assert.equal(crc32Combine(crc32(a), crc32(b), b.length), crc32(joined));
      }),
    );
  });

  it('joins three strings alike in either grouping, at lengths past 2^32 bytes', () => {
    // (A B) C = A (B C): a length folded wrongly past 32 bits (a store file's body can exceed 4 GiB) breaks it.
    const crc = fc.integer({ min: 0, max: 0xffffffff });
    const len = fc.oneof(fc.integer({ min: 0, max: 1 << 20 }), fc.integer({ min: 2 ** 31, max: 2 ** 41 }));
    fc.assert(
      fc.property(crc, crc, crc, len, len, (a, b, c, lb, lc) => {
        assert.equal(crc32Combine(crc32Combine(a, b, lb), c, lc), crc32Combine(a, crc32Combine(b, c, lc), lb + lc));
      }),
    );
  });
});
