// SimHash and MinHash properties: identical texts are 0 bits apart and fully
// similar, the Hamming distance is a metric on the fingerprint words and
// agrees with a bit-by-bit count, a small edit moves few bits, unrelated
// texts are far apart; the 16-bit blocks cover the fingerprint.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { block16, hamming64, popcount32, simhash64 } from '../../../src/content/near/simhash.js';
import { MINHASH_K, estimateJaccard, minhash } from '../../../src/content/near/minhash.js';

function sim(words: number[]): [number, number] {
  const out = new Uint32Array(2);
  simhash64(Uint32Array.from(words), words.length, out, 0);
  return [out[0]!, out[1]!];
}

describe('simhash', () => {
  it('gives identical texts distance 0', () => {
    fc.assert(fc.property(fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 200 }), (w) => {
      const [a, b] = sim(w);
      const [c, d] = sim([...w]);
      return hamming64(a, b, c, d) === 0;
    }));
  });

  it('counts bits as a bit-by-bit loop does, symmetrically', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }), (x, y) => {
      let n = 0;
      for (let j = 0; j < 32; j++) n += ((x ^ y) >>> j) & 1;
      return popcount32((x ^ y) >>> 0) === n && hamming64(x, 0, y, 0) === hamming64(y, 0, x, 0);
    }));
  });

  it('moves few bits for one changed word in 400 and many for unrelated texts', () => {
    const w = Array.from({ length: 400 }, (_, i) => (i * 2654435761) >>> 0);
    const v = [...w];
    v[200] = 12345;
    const u = Array.from({ length: 400 }, (_, i) => ((i + 7) * 40503 * 65599) >>> 0);
    const [a, b] = sim(w);
    const [c, d] = sim(v);
    const [e, f] = sim(u);
    assert.ok(hamming64(a, b, c, d) <= 6, `near: ${hamming64(a, b, c, d)}`);
    assert.ok(hamming64(a, b, e, f) >= 16, `unrelated: ${hamming64(a, b, e, f)}`);
  });

  it('cuts a fingerprint into four 16-bit blocks that put it back together', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }), (hi, lo) =>
      (((block16(hi, lo, 0) << 16) | block16(hi, lo, 1)) >>> 0) === hi && (((block16(hi, lo, 2) << 16) | block16(hi, lo, 3)) >>> 0) === lo));
  });
});

describe('minhash', () => {
  it('estimates Jaccard 1 for identical texts and near 0 for disjoint ones', () => {
    const w = Uint32Array.from({ length: 300 }, (_, i) => (i * 2654435761) >>> 0);
    const u = Uint32Array.from({ length: 300 }, (_, i) => ((i + 1000) * 40503) >>> 0);
    const a = new Uint32Array(MINHASH_K);
    const b = new Uint32Array(MINHASH_K);
    const c = new Uint32Array(MINHASH_K);
    minhash(w, w.length, a);
    minhash(w.slice(), w.length, b);
    minhash(u, u.length, c);
    assert.equal(estimateJaccard(a, b), 1);
    assert.ok(estimateJaccard(a, c) < 0.1);
  });
});
