// MinHash-LSH in the content store against a brute-force model: over random
// small signatures in several rounds, with the store closed and reopened
// between runs, every near verdict is the earliest document among the
// first documents (enough text, not an exact duplicate) of the LSH bands it
// has whose signature agrees in at least minJaccard of the positions, with
// that count; exact verdicts as a Map model gives them. Also the signatures
// file's crash cut and its CRC under verify.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { radixOrder } from '../../../src/content/near/band-candidates.js';
import { verifyContent } from '../../../src/content/content-verify.js';
import { LSH_BANDS, LSH_ROWS, MINHASH_K } from '../../../src/content/near/minhash.js';
import { BASES, type Doc, docArb, model, runAll } from '../../helpers/content-model.js';
import { tempDir } from '../../helpers/tmp.js';

describe('MinHash-LSH band map', () => {
  it('finds the earliest near copy the brute-force model finds, across rounds, runs and reopens', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.array(fc.array(docArb, { maxLength: 16 }), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(0.3, 0.5, 0.8, 1),
      async (runs, minJaccard) => {
        const state = tempDir('drum-content-bands-');
        const got = await runAll(state, runs, minJaccard);
        const want = model(runs.flat(2), minJaccard);
        assert.deepEqual(got.exact, want.exact);
        assert.deepEqual(got.near, want.near);
        assert.deepEqual(got.equal, want.equal);
        assert.equal(verifyContent(state)?.sound, true);
      },
    ), { numRuns: 60 });
  });

  it('radix-sorts indices by their keys as a comparator sort does, ties in index order', () => {
    fc.assert(fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.constantFrom(0, 1, 0x10000, 0xffffffff, 77)), { maxLength: 300 }), (rows) => {
      const n = rows.length;
      const a = Uint32Array.from(rows, (r) => r[0]);
      const b = Uint32Array.from(rows, (r) => r[1]);
      const got = Array.from(radixOrder(n, [b, a], new Uint32Array(n), new Uint32Array(n)));
      const want = Array.from({ length: n }, (_, i) => i).sort((x, y) => (b[x]! - b[y]!) || (a[x]! - a[y]!) || (x - y));
      assert.deepEqual(got, want);
    }));
  });

  it('offers a document the first document of each band it has, not a later one sharing that band', async () => {
    const far = Uint32Array.from({ length: MINHASH_K }, (_, k) => (k < LSH_ROWS ? 1 : 1000 + k)); // shares band 0 only
    const first = far.slice();
    first.fill(5000, LSH_ROWS);
    const late = { ex: 1, sig: far.slice(), usable: true };
    const copy = far.slice();
    for (let k = 1; k < LSH_BANDS; k++) copy[k * LSH_ROWS] = 9; // one row off in every other band: 76 equal minima, band 0 shared only
    const docs: Doc[] = [{ ex: 10, sig: first, usable: true }, late, { ex: 2, sig: copy, usable: true }];
    const got = await runAll(tempDir('drum-content-first-'), [[docs.slice(0, 2)], [docs.slice(2)]], 0.5);
    assert.deepEqual(got, model(docs, 0.5));
    // The last document is a copy of `late`, which came after band 0's first document: not a candidate.
    assert.equal(got.near[2], -1);
  });

  it('cuts the signatures file to its committed length and finds a flipped byte with verify', async () => {
    const state = tempDir('drum-content-sigs-');
    const d: Doc = { ex: 1, sig: BASES[0]!.slice(), usable: true };
    await runAll(state, [[[d]]], 0.5);
    const sigs = join(state, 'content', 'docs.sigs');
    assert.equal(fs.statSync(sigs).size, MINHASH_K * 4);
    fs.appendFileSync(sigs, Buffer.alloc(100, 7));
    const again = await runAll(state, [[[{ ex: 2, sig: BASES[0]!.slice(), usable: true }]]], 0.5);
    assert.deepEqual(again.near, [0]);
    assert.equal(fs.statSync(sigs).size, 2 * MINHASH_K * 4);
    assert.equal(verifyContent(state)?.sound, true);
    const b = fs.readFileSync(sigs);
    b[MINHASH_K * 4 + 3] ^= 1;
    fs.writeFileSync(sigs, b);
    const v = verifyContent(state)!;
    assert.equal(v.sound, false);
    assert.match(v.problems.join(' '), /signatures.*CRC/);
  });
});
