// MinHash-LSH in the content store against a brute-force model: over random
// small signatures in several rounds, with the store closed and reopened
// between runs, every near verdict is the earliest earlier document (enough
// text, not an exact duplicate) that shares an LSH band with it — among the
// band's first MAX_BAND_CANDIDATES such documents — and whose signature
// agrees in at least minJaccard of the positions, with that count; exact
// verdicts as a Map model gives them. Also the signatures file's crash cut
// and its CRC under verify.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ContentBatch } from '../../src/content/batch.js';
import { MAX_BAND_CANDIDATES, minEqualOf, radixOrder } from '../../src/content/band-merge.js';
import { ContentStore, verifyContent } from '../../src/content/content-store.js';
import { LSH_BANDS, LSH_ROWS, MINHASH_K, equalMinima } from '../../src/content/minhash.js';
import { tempDir } from '../helpers/tmp.js';

interface Doc {
  ex: number;
  sig: Uint32Array;
  usable: boolean;
}

const BASES = Array.from({ length: 4 }, (_, b) => Uint32Array.from({ length: MINHASH_K }, (_, k) => (Math.imul(b * 131 + k + 1, 0x9e3779b1) >>> 8) % 7));

/** Signatures drawn around a few bases (0-60 positions changed, values from a small alphabet) so shared bands and near pairs are common. */
const docArb = fc.record({
  base: fc.integer({ min: 0, max: BASES.length - 1 }),
  changes: fc.array(fc.tuple(fc.integer({ min: 0, max: MINHASH_K - 1 }), fc.integer({ min: 0, max: 6 })), { maxLength: 60 }),
  ex: fc.integer({ min: 0, max: 8 }),
  usable: fc.boolean(),
}).map(({ base, changes, ex, usable }): Doc => {
  const sig = BASES[base]!.slice();
  for (const [k, v] of changes) sig[k] = v;
  return { ex, sig, usable: usable || changes.length > 0 };
});

interface Verdicts {
  exact: number[];
  near: number[];
  equal: number[];
}

async function runAll(state: string, runs: Doc[][][], minJaccard: number): Promise<Verdicts> {
  const v: Verdicts = { exact: [], near: [], equal: [] };
  for (const rounds of runs) {
    const store = await ContentStore.open(state, { fsync: false, threshold: 3, minJaccard });
    try {
      assert.equal(store.near, 'minhash');
      for (const docs of rounds) {
        const b = new ContentBatch(Math.max(1, docs.length), true);
        b.reset(store.docs);
        for (const d of docs) {
          b.sigs.set(d.sig, b.sigAt(b.n));
          b.add(Uint32Array.of(d.ex, d.ex * 3, 0, 0), 0, d.usable);
        }
        store.round(b, docs.map((_, i) => `http://x.example/${b.first + i}`));
        for (let i = 0; i < b.n; i++) {
          v.exact.push(b.exactOf[i]!);
          v.near.push(b.nearOf[i]!);
          v.equal.push(b.nearOf[i]! >= 0 ? b.nearDist[i]! : -1);
        }
      }
      store.endRun();
    } finally {
      await store.close();
    }
  }
  return v;
}

function model(all: Doc[], minJaccard: number): Verdicts {
  const v: Verdicts = { exact: [], near: [], equal: [] };
  const first = new Map<number, number>();
  const band = new Map<string, number[]>(); // band number and its rows -> documents taking part, in order
  const need = minEqualOf(minJaccard);
  all.forEach((d, i) => {
    const ex = first.get(d.ex) ?? -1;
    if (ex < 0) first.set(d.ex, i);
    v.exact.push(ex);
    let best = -1;
    let eq = -1;
    if (d.usable && ex < 0) {
      const cands = new Set<number>();
      for (let k = 0; k < LSH_BANDS; k++) {
        const key = `${k}:${Array.from(d.sig.subarray(k * LSH_ROWS, (k + 1) * LSH_ROWS)).join(',')}`;
        const docs = band.get(key) ?? [];
        for (const e of docs.slice(0, MAX_BAND_CANDIDATES)) cands.add(e);
        band.set(key, [...docs, i]);
      }
      for (const e of [...cands].sort((a, b) => a - b)) {
        const q = equalMinima(all[e]!.sig, 0, d.sig, 0);
        if (q >= need) {
          best = e;
          eq = q;
          break;
        }
      }
    }
    v.near.push(best);
    v.equal.push(eq);
  });
  return v;
}

describe('MinHash-LSH band table', () => {
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

  it('keeps only the first MAX_BAND_CANDIDATES documents of a band as candidates', async () => {
    const far = Uint32Array.from({ length: MINHASH_K }, (_, k) => (k < LSH_ROWS ? 1 : 1000 + k)); // shares band 0 only
    const docs: Doc[] = Array.from({ length: MAX_BAND_CANDIDATES }, (_, i) => {
      const sig = far.slice();
      sig.fill(5000 + i, LSH_ROWS);
      return { ex: i + 10, sig, usable: true };
    });
    const late = { ex: 1, sig: far.slice(), usable: true };
    const copy = far.slice();
    for (let k = 1; k < LSH_BANDS; k++) copy[k * LSH_ROWS] = 9; // one row off in every other band: 76 equal minima, band 0 shared only
    docs.push(late, { ex: 2, sig: copy, usable: true });
    const got = await runAll(tempDir('drum-content-cap-'), [[docs.slice(0, 20), docs.slice(20)]], 0.5);
    assert.deepEqual(got, model(docs, 0.5));
    // The last document is a copy of `late`, which came after the band's first MAX_BAND_CANDIDATES: not a candidate.
    assert.equal(got.near[docs.length - 1], -1);
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
