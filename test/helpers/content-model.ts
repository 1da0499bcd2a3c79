// Test helper for the MinHash content store: documents as (exact key,
// signature, enough text), a fast-check generator of them around a few base
// signatures (so shared bands and near pairs are common), a runner that
// puts runs of rounds through ContentStore (reopening between runs), and
// the brute-force model of the verdicts: a document is an exact copy of the
// earliest document with its payload key; else a near copy of the earliest
// of its bands' first documents (enough text, not an exact copy) whose
// signature agrees in at least minJaccard of the positions. Test-only.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ContentBatch } from '../../src/content/batch.js';
import { minEqualOf } from '../../src/content/near/band-candidates.js';
import { ContentStore, type ContentStoreOptions } from '../../src/content/content-store.js';
import { LSH_BANDS, LSH_ROWS, MINHASH_K, equalMinima } from '../../src/content/near/minhash.js';

export interface Doc {
  ex: number;
  sig: Uint32Array;
  usable: boolean;
}

export const BASES = Array.from({ length: 4 }, (_, b) => Uint32Array.from({ length: MINHASH_K }, (_, k) => (Math.imul(b * 131 + k + 1, 0x9e3779b1) >>> 8) % 7));

/** Signatures drawn around a few bases (0-60 positions changed, values from a small alphabet). */
export const docArb = fc.record({
  base: fc.integer({ min: 0, max: BASES.length - 1 }),
  changes: fc.array(fc.tuple(fc.integer({ min: 0, max: MINHASH_K - 1 }), fc.integer({ min: 0, max: 6 })), { maxLength: 60 }),
  ex: fc.integer({ min: 0, max: 8 }),
  usable: fc.boolean(),
}).map(({ base, changes, ex, usable }): Doc => {
  const sig = BASES[base]!.slice();
  for (const [k, v] of changes) sig[k] = v;
  return { ex, sig, usable: usable || changes.length > 0 };
});

/** The exact key words of a document. */
export const exactKey = (d: Doc): [number, number] => [d.ex, d.ex * 3];

export interface Verdicts {
  exact: number[];
  near: number[];
  equal: number[];
}

/** Puts each run's rounds through a MinHash content store in `state` (opened per run); the verdicts in document order. */
export async function runAll(state: string, runs: Doc[][][], minJaccard: number, o: Partial<ContentStoreOptions> = {}): Promise<Verdicts> {
  const v: Verdicts = { exact: [], near: [], equal: [] };
  for (const rounds of runs) {
    const store = await ContentStore.open(state, { fsync: false, threshold: 3, minJaccard, ...o });
    try {
      assert.equal(store.near, 'minhash');
      for (const docs of rounds) await runRound(store, docs, v);
      store.endRun();
    } finally {
      await store.close();
    }
  }
  return v;
}

/** One round of `docs` through an open store; appends their verdicts to v. */
export async function runRound(store: ContentStore, docs: Doc[], v: Verdicts): Promise<void> {
  const b = new ContentBatch(Math.max(1, docs.length), true);
  b.reset(store.docs);
  for (const d of docs) {
    b.sigs.set(d.sig, b.sigAt(b.n));
    b.add(Uint32Array.of(...exactKey(d), 0, 0), 0, d.usable);
  }
  await store.round(b, docs.map((_, i) => `http://x.example/${b.first + i}`));
  for (let i = 0; i < b.n; i++) {
    v.exact.push(b.exactOf[i]!);
    v.near.push(b.nearOf[i]!);
    v.equal.push(b.nearOf[i]! >= 0 ? b.nearDist[i]! : -1);
  }
}

/** The band keys' stand-in of the model: band number and its rows. */
export function bandName(sig: Uint32Array, k: number): string {
  return `${k}:${Array.from(sig.subarray(k * LSH_ROWS, (k + 1) * LSH_ROWS)).join(',')}`;
}

/** Whether a document has a band map entry: enough text and not an exact copy. */
export function takesPart(all: readonly Doc[], i: number, exact: readonly number[]): boolean {
  return all[i]!.usable && exact[i]! < 0;
}

export function model(all: Doc[], minJaccard: number): Verdicts {
  const v: Verdicts = { exact: [], near: [], equal: [] };
  const first = new Map<number, number>();
  const band = new Map<string, number>(); // band -> the first document taking part with it
  const need = minEqualOf(minJaccard);
  all.forEach((d, i) => {
    const ex = first.get(d.ex) ?? -1;
    if (ex < 0) first.set(d.ex, i);
    v.exact.push(ex);
    let best = -1;
    let eq = -1;
    if (takesPart(all, i, v.exact)) {
      const cands = new Set<number>();
      for (let k = 0; k < LSH_BANDS; k++) {
        const e = band.get(bandName(d.sig, k));
        if (e === undefined) band.set(bandName(d.sig, k), i);
        else cands.add(e);
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
