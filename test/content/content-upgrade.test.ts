// A content store in the earlier layout (`drum-content/1`: the exact and
// band tables each one sorted `*.tbl` file), written here record by record
// as that layout has it, is converted once when a writer opens it: its
// tables become DRUM core bucket files, it verifies sound before and after,
// and every later document gets the verdicts the model gives over all
// documents. A crash at file operations spread over the conversion and at
// each of its commit's leaves a store
// that converts at the next open and answers the same.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  BAND_KIND, CONTENT_DIR, EXACT_KIND, type ContentManifest, readContentManifest, tableName, writeContentManifest,
} from '../../src/content/content-manifest.js';
import { ContentBatch } from '../../src/content/batch.js';
import { ContentStore } from '../../src/content/content-store.js';
import { verifyContent } from '../../src/content/content-verify.js';
import { DocLog } from '../../src/content/doc-log.js';
import { LSH_BANDS, bandKey } from '../../src/content/near/minhash.js';
import { SigFile } from '../../src/content/near/sig-file.js';
import { permute } from '../../src/content/near/sim-merge.js';
import { TableWriter } from '../../src/content/near/table-file.js';
import { DrumFs, type FsOp } from '../../src/io/fs.js';
import { type Doc, docArb, exactKey, model, runAll } from '../helpers/content-model.js';
import { tempDir } from '../helpers/tmp.js';

class SimulatedCrash extends Error {}

const GEN = 3;

/** Writes `docs` as a `drum-content/1` MinHash store in state (one committed round, generation GEN). */
function writeV1(state: string, docs: Doc[]): void {
  const dir = join(state, CONTENT_DIR);
  fs.mkdirSync(dir, { recursive: true });
  const dfs = new DrumFs();
  const exact: [number, number, number][] = [];
  const bands: [number, number, number][] = [];
  const firstOf = new Map<number, number>();
  const key = new Uint32Array(2);
  docs.forEach((d, i) => {
    const e = firstOf.get(d.ex);
    if (e === undefined) {
      firstOf.set(d.ex, i);
      exact.push([...exactKey(d), i]);
    }
    if (!d.usable || e !== undefined) return;
    for (let b = 0; b < LSH_BANDS; b++) {
      bandKey(d.sig, b, key, 0);
      bands.push([key[0]!, key[1]!, i]);
    }
  });
  const table = (kind: number, rows: [number, number, number][]): string => {
    rows.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    const w = new TableWriter(dfs, join(dir, tableName(kind, GEN)), kind);
    for (const [h, l, doc] of rows) w.push(h, l, doc);
    w.finish(false);
    return tableName(kind, GEN);
  };
  const log = new DocLog(dfs, dir, 0, 0, true);
  log.append(docs.map((_, i) => `http://x.example/${i}`), false);
  log.close();
  const sigs = new SigFile(dfs, dir, 0, 0, true);
  for (const d of docs) sigs.append(d.sig, 1, false);
  sigs.close();
  const m = {
    format: 'drum-content/1', near: 'minhash', generation: GEN, docs: docs.length, urlBytes: log.urlBytes, runs: 1, threshold: 3,
    exact: table(EXACT_KIND, exact), sim: [null, null, null, null], bands: table(BAND_KIND, bands), sigCrc: sigs.crc,
  };
  writeContentManifest(dfs, dir, m as unknown as ContentManifest, false);
}

describe('content store in the drum-content/1 layout', () => {
  it('is converted once at open and answers later documents as the model does over all of them', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(docArb, { minLength: 1, maxLength: 24 }), fc.array(fc.array(docArb, { maxLength: 12 }), { minLength: 1, maxLength: 2 }),
      async (old, later) => {
        const state = tempDir('drum-content-v1-');
        writeV1(state, old);
        assert.equal(verifyContent(state)?.sound, true);
        const notices: string[] = [];
        const got = await runAll(state, [later], 0.5, { onNotice: (m) => notices.push(m) });
        assert.equal(notices.length, 1);
        const want = model([...old, ...later.flat()], 0.5);
        for (const k of ['exact', 'near', 'equal'] as const) assert.deepEqual(got[k], want[k].slice(old.length), k);
        const m = readContentManifest(join(state, CONTENT_DIR))!;
        assert.equal(m.format, 'drum-content/2');
        assert.deepEqual(fs.readdirSync(join(state, CONTENT_DIR)).filter((f) => f.endsWith('.tbl')), []);
        assert.deepEqual(verifyContent(state)!.problems, []);
      },
    ), { numRuns: 25 });
  });

  it('keeps a SimHash store\'s tables and converts its exact table', async () => {
    const state = tempDir('drum-content-v1-sim-');
    const dir = join(state, CONTENT_DIR);
    fs.mkdirSync(dir, { recursive: true });
    const dfs = new DrumFs();
    const sims: [number, number][] = [[0x12345678, 0x9abcdef0], [0x0f0f0f0f, 0xf0f0f0f0]];
    const p = new Uint32Array(2);
    const tables = [0, 1, 2, 3].map((t) => {
      const rows = sims.map(([h, l], doc) => (permute(h, l, t, p), [p[0]!, p[1]!, doc] as const)).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
      const w = new TableWriter(dfs, join(dir, tableName(t + 1, GEN)), t + 1);
      for (const [h, l, doc] of rows) w.push(h, l, doc);
      w.finish(false);
      return tableName(t + 1, GEN);
    });
    const w = new TableWriter(dfs, join(dir, tableName(EXACT_KIND, GEN)), EXACT_KIND);
    w.push(1, 3, 0);
    w.push(2, 6, 1);
    w.finish(false);
    const log = new DocLog(dfs, dir, 0, 0, true);
    log.append(['http://x.example/0', 'http://x.example/1'], false);
    log.close();
    // A store written before MinHash: no `near`.
    const m = { format: 'drum-content/1', generation: GEN, docs: 2, urlBytes: log.urlBytes, runs: 1, threshold: 3, exact: tableName(EXACT_KIND, GEN), sim: tables };
    writeContentManifest(dfs, dir, m as unknown as ContentManifest, false);
    const store = await ContentStore.open(state, { fsync: false, threshold: 3 });
    try {
      assert.equal(store.near, 'simhash');
      const b = new ContentBatch(3);
      b.reset(store.docs);
      b.add(Uint32Array.of(2, 6, 7, 7), 0, true); // docID 1's payload
      b.add(Uint32Array.of(9, 9, 0x12345678 ^ 0b101, 0x9abcdef0), 0, true); // two bits from docID 0
      b.add(Uint32Array.of(1, 3, 5, 5), 0, true); // docID 0's payload
      await store.round(b, ['http://x.example/2', 'http://x.example/3', 'http://x.example/4']);
      assert.deepEqual([...b.exactOf.subarray(0, 3)], [1, -1, 0]);
      assert.deepEqual([b.nearOf[1], b.nearDist[1]], [0, 2]);
    } finally {
      await store.close();
    }
    assert.deepEqual(verifyContent(state)!.problems, []);
    assert.equal(readContentManifest(dir)!.format, 'drum-content/2');
  });

  it('converts at the next open after a crash at a file operation of the conversion', async () => {
    const dir = tempDir('drum-content-v1-crash-');
    const docs = fc.sample(docArb, { numRuns: 30, seed: 7 });
    const later = fc.sample(docArb, { numRuns: 10, seed: 8 });
    const want = model([...docs, ...later], 0.5);
    let ops = 0;
    writeV1(join(dir, 'count'), docs);
    const count = await ContentStore.open(join(dir, 'count'), { fsync: true, threshold: 3, dfs: new DrumFs(undefined, () => void ops++) });
    await count.close();
    const points = new Set<number>();
    for (let k = 1; k <= ops; k += Math.max(1, Math.floor(ops / 40))) points.add(k);
    // The last 25 operations: the manifest's commit, the old tables' removal and the rest of the open.
    for (let k = Math.max(1, ops - 24); k <= ops; k++) points.add(k);
    for (const k of points) {
      const state = join(dir, `s${k}`);
      writeV1(state, docs);
      let n = 0;
      const hook = (op: FsOp): void => {
        if (++n === k) throw new SimulatedCrash(`crash before ${op} #${k}`);
      };
      await assert.rejects(ContentStore.open(state, { fsync: true, threshold: 3, dfs: new DrumFs(undefined, hook) }).then((s) => s.close()), SimulatedCrash);
      assert.deepEqual(verifyContent(state)!.problems, [], `op ${k}`);
      const got = await runAll(state, [[later]], 0.5);
      for (const key of ['exact', 'near', 'equal'] as const) assert.deepEqual(got[key], want[key].slice(docs.length), `op ${k}, ${key}`);
    }
  });
});
