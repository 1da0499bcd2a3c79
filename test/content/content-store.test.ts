// A SimHash content store against a brute-force model: over random documents in
// several rounds, with the store closed and reopened between runs, every
// exact verdict is the earliest earlier document with the same payload key
// (a Map model), and every near verdict is the earliest earlier document
// with enough text within k bits (all pairs checked) with its distance —
// the permuted-table merge finds exactly the pairs the brute force finds;
// the exact map lives on the DRUM core's bucket files. Also its crash,
// lock and verify guarantees, the new directories' and logs' names made
// durable before the first manifest, and a near method or threshold other
// than the store was made with refused.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { ContentBatch } from '../../src/content/batch.js';
import { ContentStore } from '../../src/content/content-store.js';
import { DrumFs } from '../../src/io/fs.js';
import { verifyContent } from '../../src/content/content-verify.js';
import { hamming64 } from '../../src/content/near/simhash.js';
import { acquireLock } from '../../src/store/lock.js';
import { tempDir } from '../helpers/tmp.js';

interface Doc {
  ex: number;
  hi: number;
  lo: number;
  usable: boolean;
}

/** Documents drawn around a few base fingerprints (0-5 bits flipped) so near pairs are common. */
const docArb = fc.record({
  base: fc.integer({ min: 0, max: 5 }),
  flips: fc.array(fc.integer({ min: 0, max: 63 }), { maxLength: 5 }),
  ex: fc.integer({ min: 0, max: 6 }),
  usable: fc.boolean(),
}).map(({ base, flips, ex, usable }): Doc => {
  let hi = Math.imul(base + 1, 0x9e3779b1) >>> 0;
  let lo = Math.imul(base + 7, 0x85ebca6b) >>> 0;
  for (const f of flips) {
    if (f < 32) hi = (hi ^ (1 << f)) >>> 0;
    else lo = (lo ^ (1 << (f - 32))) >>> 0;
  }
  return { ex, hi, lo, usable: usable || flips.length > 0 };
});

async function runAll(state: string, runs: Doc[][][], k: number): Promise<{ exact: number[]; near: number[]; dist: number[] }> {
  const exact: number[] = [];
  const near: number[] = [];
  const dist: number[] = [];
  for (const rounds of runs) {
    const store = await ContentStore.open(state, { fsync: false, near: 'simhash', threshold: k });
    try {
      for (const docs of rounds) {
        const b = new ContentBatch(Math.max(1, docs.length));
        b.reset(store.docs);
        for (const d of docs) b.add(Uint32Array.of(d.ex, d.ex * 3, d.hi, d.lo), 0, d.usable);
        await store.round(b, docs.map((_, i) => `http://x.example/${b.first + i}`));
        for (let i = 0; i < b.n; i++) {
          exact.push(b.exactOf[i]!);
          near.push(b.nearOf[i]!);
          dist.push(b.nearOf[i]! >= 0 ? b.nearDist[i]! : -1);
        }
      }
      store.endRun();
    } finally {
      await store.close();
    }
  }
  return { exact, near, dist };
}

function model(all: Doc[], k: number): { exact: number[]; near: number[]; dist: number[] } {
  const first = new Map<number, number>();
  const exact: number[] = [];
  const near: number[] = [];
  const dist: number[] = [];
  all.forEach((d, i) => {
    exact.push(first.has(d.ex) ? first.get(d.ex)! : -1);
    if (!first.has(d.ex)) first.set(d.ex, i);
    let best = -1;
    let bd = -1;
    if (d.usable) {
      for (let j = 0; j < i && best < 0; j++) {
        const e = all[j]!;
        const h = hamming64(d.hi, d.lo, e.hi, e.lo);
        if (e.usable && h <= k) {
          best = j;
          bd = h;
        }
      }
    }
    near.push(best);
    dist.push(bd);
  });
  return { exact, near, dist };
}

describe('content store', () => {
  it('answers exact and near verdicts as the brute-force model does, across rounds, runs and reopens', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.array(fc.array(docArb, { maxLength: 12 }), { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 0, max: 3 }),
      async (runs, k) => {
        const state = tempDir('drum-content-store-');
        const got = await runAll(state, runs, k);
        const want = model(runs.flat(2), k);
        assert.deepEqual(got.exact, want.exact);
        assert.deepEqual(got.near, want.near);
        assert.deepEqual(got.dist, want.dist);
        assert.equal(verifyContent(state)?.sound, true);
      },
    ), { numRuns: 60 });
  });

  it('removes what a crashed round left and cuts the document log to its committed length', async () => {
    const state = tempDir('drum-content-crash-');
    const d: Doc = { ex: 1, hi: 5, lo: 6, usable: true };
    await runAll(state, [[[d]]], 3);
    const dir = join(state, 'content');
    const left = ['sim0-g000009.tbl.tmp', 'sim0-g000009.tbl', 'exact/b0003-g000009.keys', 'exact/b0003-g000009.vals.tmp', 'work/exact/spill-b0003.dat'];
    fs.mkdirSync(join(dir, 'work', 'exact'), { recursive: true });
    for (const f of left) fs.writeFileSync(join(dir, f), 'uncommitted');
    fs.appendFileSync(join(dir, 'docs.urls'), 'http://torn.example/');
    const store = await ContentStore.open(state, { fsync: false, near: 'simhash', threshold: 3 });
    await store.close();
    for (const f of left) assert.ok(!fs.existsSync(join(dir, f)), f);
    assert.equal(fs.readFileSync(join(dir, 'docs.urls'), 'utf8'), 'http://x.example/0\n');
    const again = await runAll(state, [[[d]]], 3);
    assert.deepEqual(again.exact, [0]);
  });

  it('refuses a near method or threshold other than the store was made with, before it removes anything or holds the lock after', async () => {
    const state = tempDir('drum-content-asked-');
    await runAll(state, [[[{ ex: 1, hi: 5, lo: 6, usable: true }]]], 3);
    const left = join(state, 'content', 'sim0-g000009.tbl.tmp');
    fs.writeFileSync(left, 'uncommitted');
    const manifest = fs.readFileSync(join(state, 'content', 'CONTENT-MANIFEST'));
    for (const asked of [{ near: 'minhash', threshold: null, minJaccard: null }, { near: null, threshold: 2, minJaccard: null }, { near: null, threshold: null, minJaccard: 0.5 }] as const) {
      await assert.rejects(ContentStore.open(state, { fsync: false, threshold: 3, asked }), { code: 'DRUM_POLICY_MISMATCH' }, JSON.stringify(asked));
    }
    assert.ok(fs.existsSync(left), 'refused before the open cleans up');
    assert.deepEqual(fs.readFileSync(join(state, 'content', 'CONTENT-MANIFEST')), manifest);
    const store = await ContentStore.open(state, { fsync: false, threshold: 3, asked: { near: 'simhash', threshold: 3, minJaccard: null } });
    await store.close();
    assert.ok(!fs.existsSync(left));
  });

  it('answers a payload stored in an earlier run with its first docID', async () => {
    const state = tempDir('drum-content-earlier-');
    const d = (ex: number): Doc => ({ ex, hi: ex, lo: 1, usable: false });
    await runAll(state, [[[d(1), d(2), d(1)]]], 3);
    const again = await runAll(state, [[[d(3), d(2)], [d(1)]]], 3);
    assert.deepEqual(again.exact, [-1, 1, 0]);
    const files = fs.readdirSync(join(state, 'content', 'exact'));
    assert.ok(files.some((f) => f.endsWith('.keys')) && files.some((f) => f.endsWith('.vals')), files.join(' '));
  });

  it('refuses a second writer with DRUM_LOCKED', async () => {
    const state = tempDir('drum-content-lock-');
    const lock = await acquireLock((fs.mkdirSync(state, { recursive: true }), state));
    try {
      await assert.rejects(ContentStore.open(state, { fsync: false, near: 'simhash', threshold: 3 }), { code: 'DRUM_LOCKED' });
    } finally {
      await lock.release();
    }
  });

  it('finds a flipped byte in an exact map file with verify, and refuses to merge with it', async () => {
    const state = tempDir('drum-content-verify-map-');
    await runAll(state, [[[{ ex: 1, hi: 5, lo: 6, usable: true }]]], 3);
    const dir = join(state, 'content', 'exact');
    const keys = fs.readdirSync(dir).find((f) => f.endsWith('.keys'))!;
    const b = fs.readFileSync(join(dir, keys));
    b[b.length - 5] ^= 1; // the last key's last byte
    fs.writeFileSync(join(dir, keys), b);
    const v = verifyContent(state)!;
    assert.equal(v.sound, false);
    assert.match(v.problems.join(' '), /exact map.*checksum/);
    await assert.rejects(runAll(state, [[[{ ex: 1, hi: 1, lo: 1, usable: true }]]], 3), { code: 'DRUM_CORRUPT_FILE' });
  });

  it('finds a flipped byte in a table with verify, and refuses to read it', async () => {
    const state = tempDir('drum-content-verify-');
    await runAll(state, [[[{ ex: 1, hi: 5, lo: 6, usable: true }, { ex: 2, hi: 9, lo: 6, usable: true }]]], 3);
    const dir = join(state, 'content');
    const table = fs.readdirSync(dir).find((f) => f.startsWith('sim2-'))!;
    const b = fs.readFileSync(join(dir, table));
    b[16 + 4] ^= 1; // the first record's key, lo word
    fs.writeFileSync(join(dir, table), b);
    const v = verifyContent(state)!;
    assert.equal(v.sound, false);
    assert.match(v.problems.join(' '), /CRC/);
    await assert.rejects(runAll(state, [[[{ ex: 3, hi: 1, lo: 1, usable: true }]]], 3), { code: 'DRUM_CORRUPT_FILE' });
  });
});

describe('a new content store\'s directories and files', () => {
  it('fsyncs the directory holding each one it makes, before its first manifest', async () => {
    const base = tempDir('drum-content-dirs-');
    const state = join(base, 'crawl', 'state');
    const ops: string[] = [];
    const dfs = new DrumFs(undefined, (op, path) => void ops.push(`${op} ${path}`));
    const store = await ContentStore.open(state, { fsync: true, threshold: 3, dfs });
    await store.close();
    const manifest = ops.indexOf(`rename ${join(state, 'content', 'CONTENT-MANIFEST')}`);
    assert.ok(manifest >= 0, ops.join('\n'));
    for (const held of [state, dirname(state), base]) {
      const at = ops.indexOf(`fsync ${held}`);
      assert.ok(at >= 0 && at < manifest, `${held} fsynced before the first manifest:\n${ops.join('\n')}`);
    }
  });

  it('creates its document log and signatures, and fsyncs their directory, before its first manifest, so a power loss before its first round leaves a store that verifies', async () => {
    const state = join(tempDir('drum-content-logs-'), 'state');
    const content = join(state, 'content');
    const ops: string[] = [];
    const dfs = new DrumFs(undefined, (op, path) => void ops.push(`${op} ${path}`));
    const store = await ContentStore.open(state, { fsync: true, threshold: 3, dfs });
    await store.close();
    const manifest = ops.indexOf(`rename ${join(content, 'CONTENT-MANIFEST')}`);
    const created = ['docs.urls', 'docs.idx', 'docs.sigs'].map((f) => ops.indexOf(`open-write ${join(content, f)}`));
    const synced = ops.indexOf(`fsync ${content}`, Math.max(...created));
    assert.ok(created.every((at) => at >= 0) && synced >= 0 && synced < manifest, ops.join('\n'));
    assert.deepEqual(verifyContent(state)!.problems, []);
  });
});
