import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { murmur3, murmur3x2 } from '../../src/fingerprint/hash.js';

const h = (s: string, seed: number): number => murmur3(Buffer.from(s), 0, Buffer.byteLength(s), seed);

describe('murmur3', () => {
  it('matches the MurmurHash3 x86_32 reference vectors', () => {
    assert.equal(h('', 0), 0);
    assert.equal(h('', 1), 0x514e28b7);
    assert.equal(h('hello', 0), 0x248bfa47);
    assert.equal(h('Hello, world!', 1234), 0xfaf6cdb3);
    assert.equal(h('The quick brown fox jumps over the lazy dog', 0x9747b28c), 0x2fa826cd);
  });

  it('hashes a range of a larger buffer like the same bytes alone', () => {
    const b = Buffer.from('xxhttp://a.example/pathyy');
    assert.equal(murmur3(b, 2, b.length - 2, 7), h('http://a.example/path', 7));
  });

  it('hashes a view that starts inside its buffer like a copy of the same bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.nat(7), fc.integer(), (bytes, off, seed) => {
        const big = new Uint8Array(off + bytes.length);
        big.set(bytes, off);
        const view = big.subarray(off);
        assert.equal(murmur3(view, 0, view.length, seed), murmur3(Uint8Array.from(bytes), 0, bytes.length, seed));
        // Alternating arrays: the cached view must follow the array.
        assert.equal(murmur3(big, off, big.length, seed), murmur3(view, 0, view.length, seed));
      }),
      { seed: 4244, numRuns: 300 },
    );
  });

  it('computes in two lanes exactly what two single hashes compute', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.integer(), fc.integer(), (bytes, a, b) => {
        const out = new Uint32Array(2);
        murmur3x2(bytes, 0, bytes.length, a, b, out, 0);
        assert.equal(out[0], murmur3(bytes, 0, bytes.length, a));
        assert.equal(out[1], murmur3(bytes, 0, bytes.length, b));
      }),
      { seed: 4242, numRuns: 300 },
    );
  });
});
