// The content store's round under a simulated crash (DrumFs faultHook) at
// file operations spread over a run's rounds and at every operation of its
// last commit: the store then verifies sound at a committed round (the old
// state or the new one: no round half there), and a run of the documents
// after that point answers every one as the uninterrupted run did.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { CONTENT_DIR, readContentManifest } from '../../src/content/content-manifest.js';
import { ContentStore } from '../../src/content/content-store.js';
import { verifyContent } from '../../src/content/content-verify.js';
import { DrumFs, type FsOp } from '../../src/io/fs.js';
import { MINHASH_K } from '../../src/content/near/minhash.js';
import { BASES, type Doc, type Verdicts, runAll, runRound } from '../helpers/content-model.js';
import { tempDir } from '../helpers/tmp.js';

class SimulatedCrash extends Error {}

const ROUND = 8;

/** 3 x ROUND documents near the bases, some exact copies, some without enough text. */
function docsOf(): Doc[] {
  return Array.from({ length: 3 * ROUND }, (_, i) => {
    const sig = BASES[i % BASES.length]!.slice();
    for (let k = 0; k < (i * 7) % 40; k++) sig[(k * 13 + i) % MINHASH_K] = (i + k) % 7;
    return { ex: i % 5 === 4 ? i - 2 : i, sig, usable: i % 6 !== 5 };
  });
}

/** Rounds of ROUND documents from docs[from..]. */
const roundsOf = (docs: Doc[], from: number): Doc[][] => Array.from({ length: Math.ceil((docs.length - from) / ROUND) }, (_, r) => docs.slice(from + r * ROUND, from + (r + 1) * ROUND));

/** Opens the store with a hook and puts the rounds through it; the verdicts, or the crash. */
async function runWith(state: string, rounds: Doc[][], hook: (op: FsOp) => void): Promise<void> {
  const dfs = new DrumFs(undefined, hook);
  const store = await ContentStore.open(state, { fsync: true, threshold: 3, minJaccard: 0.5, dfs });
  try {
    const v: Verdicts = { exact: [], near: [], equal: [] };
    for (const docs of rounds) await runRound(store, docs, v);
  } finally {
    await store.close();
  }
}

describe('content store under a crash', () => {
  it('keeps the old state or the new one at a crash anywhere in a round, and a rerun answers as the uninterrupted run', async () => {
    const dir = tempDir('drum-content-crash-');
    const docs = docsOf();
    const first = docs.slice(0, ROUND);
    const want = await runAll(join(dir, 'ref'), [[first], roundsOf(docs, ROUND)], 0.5);
    let ops = 0;
    await runAll(join(dir, 'count'), [[first]], 0.5);
    await runWith(join(dir, 'count'), roundsOf(docs, ROUND), () => void ops++);
    const points = new Set<number>();
    for (let k = 1; k <= ops; k += Math.max(1, Math.floor(ops / 40))) points.add(k);
    for (let k = Math.max(1, ops - 24); k <= ops; k++) points.add(k); // every operation of the last commit
    for (const k of points) {
      const state = join(dir, `s${k}`);
      await runAll(state, [[first]], 0.5);
      let n = 0;
      await assert.rejects(runWith(state, roundsOf(docs, ROUND), (op) => {
        if (++n === k) throw new SimulatedCrash(`crash before ${op} #${k}`);
      }), SimulatedCrash, `op ${k}`);
      const v = verifyContent(state)!;
      assert.deepEqual(v.problems, [], `op ${k}`);
      const at = readContentManifest(join(state, CONTENT_DIR))!.docs;
      assert.ok(at % ROUND === 0 && at >= ROUND && at <= docs.length, `op ${k}: ${at} documents committed`);
      const again = await runAll(state, [roundsOf(docs, at)], 0.5);
      for (const key of ['exact', 'near', 'equal'] as const) assert.deepEqual(again[key], want[key].slice(at), `op ${k}, ${key}`);
    }
  });
});
