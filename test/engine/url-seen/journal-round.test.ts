// Journal rounds and folds through the library: a small batch into a merged
// store leaves every key file as it was and stores its new keys in the key
// journal; a reader answers check and resolve for journaled URLs; a crash
// between the journal's append and the manifest loses nothing committed and
// stores nothing uncommitted; a fold merges the journal into the key files
// with the docIDs the journal gave.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../../src/engine/drum.js';
import type { DrumOptions } from '../../../src/options.js';
import { readManifest } from '../../../src/store/manifest.js';
import { tempDir } from '../../helpers/tmp.js';
import { withDrum } from '../../helpers/drum.js';
import { readUrlValues } from '../../helpers/values.js';

const O: DrumOptions = { workers: 0, fsync: false, chunkBytes: 4096 };
const urls = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `http://h${(from + i) % 13}.example/p/${from + i}`);

function file(dir: string, name: string, list: string[]): string {
  const p = join(dir, name);
  fs.writeFileSync(p, list.map((u) => `${u}\n`).join(''));
  return p;
}

/** What a fault hook throws: an IO error. */
function eio(): never {
  throw Object.assign(new Error('injected'), { code: 'EIO' });
}

/** n URLs of `host` whose paths start with `prefix`. */
const hostUrls = (host: string, prefix: string, n: number): string[] => Array.from({ length: n }, (_, i) => `http://${host}/${prefix}${i}`);

async function newOf(d: Drum, dir: string, name: string, list: string[]): Promise<string[]> {
  const r = await d.ingest({ inputs: [file(dir, name, list)], outDir: join(dir, `out-${name}`) });
  return r.outputFiles.flatMap((f) => fs.readFileSync(join(r.outDir, f), 'utf8').split('\n').filter((l) => l !== ''));
}

describe('the key journal', () => {
  it('stores a small batch\'s new URLs in the journal and leaves every key file as it was', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    let d = await Drum.open(state, { ...O, journalKeys: 0 });
    assert.equal((await newOf(d, dir, 'a.txt', urls(0, 2000))).length, 2000);
    await d.close();
    const merged = readManifest(state)!;
    assert.equal(merged.journal, undefined);
    // Tiers and line memo off: every repeat reaches the journal's table.
    d = await Drum.open(state, { ...O, cacheEntries: 0, recentEntries: 0, lineMemoEntries: 0 });
    try {
      const got = await newOf(d, dir, 'b.txt', [...urls(1990, 20), ...urls(1995, 5)]);
      assert.deepEqual(got, urls(2000, 10));
      const m = readManifest(state)!;
      assert.deepEqual(m.buckets, merged.buckets, 'no key or values file rewritten');
      assert.equal(m.journal!.keys, 10);
      assert.equal(m.storeUrls, 2010);
      assert.equal(m.docIDs, 2010);
      const first = JSON.parse(fs.readFileSync(join(dir, 'out-b.txt', 'report.json'), 'utf8')) as { tiers: { journal: { keys: number } } };
      assert.equal(first.tiers.journal.keys, 10, 'the report of the run that journaled them counts its keys');
      const r = await d.ingest({ inputs: [file(dir, 'c.txt', urls(2000, 10))], outDir: join(dir, 'out-c') });
      assert.equal(r.uniqueUrls, 0);
      assert.equal(r.tiers.journal.rounds, 1);
      assert.ok(r.tiers.journal.hits > 0, 'the journal answered repeats of its own keys');
      assert.equal(r.tiers.journal.keys, 10);
      const v = await d.verify();
      assert.equal(v.ok, true, JSON.stringify(v.problems));
      assert.equal(v.keysChecked, 2010);
    } finally {
      await d.close();
    }
  });

  it('lets a reader answer check and resolve for journaled URLs, with the docIDs the journal gave', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    const w = await Drum.open(state, O);
    try {
      await newOf(w, dir, 'a.txt', urls(0, 300));
      assert.ok(readManifest(state)!.journal, 'the batch went to the journal');
      const r = await Drum.open(state, { ...O, readOnly: true });
      try {
        const fresh: string[] = [];
        await r.check({ inputs: [file(dir, 'q.txt', urls(290, 20))], onNew: (u) => fresh.push(u) });
        assert.deepEqual(fresh, urls(300, 10));
        const docs = new Map<string, number | null>();
        await r.resolve({ inputs: [file(dir, 'r.txt', [...urls(0, 3), 'http://nowhere.example/'])], onResolved: (id, u) => void docs.set(u, id) });
        assert.deepEqual([...docs.values()], [0, 1, 2, null]);
        assert.deepEqual(await r.urls([0, 299]), [urls(0, 1)[0], urls(299, 1)[0]]);
      } finally {
        await r.close();
      }
    } finally {
      await w.close();
    }
  });

  it('folds the journal into the key files when a batch would overflow it, keeping every docID', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    const d = await Drum.open(state, { ...O, journalKeys: 100 });
    try {
      await newOf(d, dir, 'a.txt', urls(0, 60));
      const before = readUrlValues(state);
      assert.equal(readManifest(state)!.journal!.keys, 60);
      const r = await d.ingest({ inputs: [file(dir, 'b.txt', urls(60, 60))], outDir: join(dir, 'out-b') });
      assert.equal(r.tiers.journal.folds, 1);
      const m = readManifest(state)!;
      assert.equal(m.journal!.keys, 60, 'the fold emptied it; the batch then went to a new journal');
      assert.ok(m.buckets.some((e) => e !== null), 'the first 60 are in key files now');
      const after = readUrlValues(state);
      for (const [k, v] of before) assert.deepEqual(after.get(k), v, k);
      assert.equal(after.size, 120);
      assert.equal((await d.verify()).ok, true);
    } finally {
      await d.close();
    }
  });

  it('loses no committed key and keeps no uncommitted one when the manifest write after an append fails', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    let fail = false;
    let renames = 0;
    const opts: DrumOptions = {
      // The run's first manifest (its start) goes through; its round's manifest fails.
      ...O, faultHook: (op, path) => {
        if (fail && op === 'rename' && path.endsWith('MANIFEST') && ++renames === 2) eio();
      },
    };
    const d = await Drum.open(state, opts);
    await newOf(d, dir, 'a.txt', urls(0, 50));
    const committed = readManifest(state)!.journal!;
    fail = true;
    await assert.rejects(d.ingest({ inputs: [file(dir, 'b.txt', urls(40, 30))], outDir: join(dir, 'out-b') }));
    fail = false;
    await d.close().catch(() => undefined);
    assert.deepEqual(readManifest(state)!.journal, committed, 'the manifest names the journal as it was');
    assert.ok(fs.statSync(join(state, committed.file)).size > committed.bytes, 'the failed round\'s batch is in the file, past the committed end');
    await withDrum(state, O, async (again) => {
      const r = await again.ingest({ inputs: [join(dir, 'b.txt')], outDir: join(dir, 'out-b2'), force: true });
      assert.equal(r.uniqueUrls, 20, 'the 20 URLs of the failed round are new again; the 10 committed ones are not');
      assert.equal((await again.verify()).ok, true);
      assert.equal(readManifest(state)!.journal!.keys, 70);
    });
  });

  it('keeps each store\'s journaled keys its own when two stores in one process take journal rounds at once', async () => {
    const dir = tempDir();
    const o: DrumOptions = { ...O, cacheEntries: 0, recentEntries: 0, lineMemoEntries: 0 };
    const a = await Drum.open(join(dir, 'a'), o);
    const b = await Drum.open(join(dir, 'b'), o);
    const A = urls(0, 50).map((u) => u.replace('.example', '.a.example'));
    const B = urls(0, 50).map((u) => u.replace('.example', '.b.example'));
    try {
      const [ra, rb] = await Promise.all([a.add(A), b.add(B)]);
      assert.deepEqual([ra.newUrls.length, rb.newUrls.length], [50, 50]);
      assert.deepEqual([(await a.add(A)).newUrls.length, (await b.add(B)).newUrls.length], [0, 0]);
      assert.equal((await a.add(B.slice(0, 10))).newUrls.length, 10, 'the other store\'s URLs are new here');
    } finally {
      await a.close();
      await b.close();
    }
    for (const s of ['a', 'b']) await withDrum(join(dir, s), o, async (d) => assert.equal((await d.verify()).ok, true));
  });

  it('empties the journal in RAM as soon as a fold commits, even when the fold fails after its commit', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    let armed = false;
    const opts: DrumOptions = {
      ...O, journalKeys: 100,
      // The fold's own work files refuse to go, after the fold's manifest is in place.
      faultHook: (op, path) => {
        if (armed && op === 'unlink' && path.includes(`${join('work', 'fold')}`)) {
          armed = false;
          eio();
        }
      },
    };
    const u = (p: string, n: number): string[] => hostUrls('x.example', p, n);
    const d = await Drum.open(state, opts);
    try {
      assert.equal((await d.add(u('a', 80))).newUrls.length, 80);
      armed = true;
      await assert.rejects(d.add(u('b', 50)));
      assert.equal(readManifest(state)!.journal, undefined, 'the fold committed');
      assert.equal((await d.add(u('c', 15))).newUrls.length, 15);
      assert.equal(readManifest(state)!.journal!.keys, 15);
    } finally {
      await d.close().catch(() => undefined);
    }
    await withDrum(state, { ...O, journalKeys: 100 }, async (again) => {
      assert.equal((await again.verify()).ok, true);
      assert.deepEqual((await again.add([...u('a', 80), ...u('c', 15)])).newUrls, []);
      assert.equal((await again.add(u('b', 50))).newUrls.length, 50, 'the failed round stored nothing');
    });
  });

  it('keeps the journal\'s end and table with the disk when a manifest write fails after its rename', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    let armed = false;
    let dirSyncs = 0;
    const opts: DrumOptions = {
      // fsync on, so each commit ends with the state directory's fsync: the run's first commit passes, its round's fails.
      ...O, fsync: true, cacheEntries: 0, recentEntries: 0, lineMemoEntries: 0,
      faultHook: (op, path) => {
        if (armed && op === 'fsync' && path === state && ++dirSyncs === 2) eio();
      },
    };
    const u = (p: string, n: number): string[] => hostUrls('y.example', p, n);
    const d = await Drum.open(state, opts);
    try {
      await d.add(u('a', 20));
      await d.endRun();
      armed = true;
      await assert.rejects(d.add(u('b', 30)));
      armed = false;
      assert.equal(readManifest(state)!.journal!.keys, 50, 'the round\'s manifest is on disk');
      // Its URLs are stored: not new again, and the next batch goes after them in the journal.
      assert.deepEqual((await d.add(u('b', 30))).newUrls, []);
      assert.equal((await d.add(u('c', 5))).newUrls.length, 5);
    } finally {
      await d.close().catch(() => undefined);
    }
    await withDrum(state, O, async (again) => {
      assert.equal((await again.verify()).ok, true);
      assert.equal(readManifest(state)!.journal!.keys, 55);
      assert.deepEqual((await again.add([...u('a', 20), ...u('b', 30), ...u('c', 5)])).newUrls, []);
    });
  });

  it('gives a new store asked for a Bloom gate a filter from its first run, while every key is in the journal', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    for (const bloom of ['gate', 'lossy'] as const) {
      const d = await Drum.open(join(state, bloom), { ...O, bloom });
      try {
        const a = await d.ingest({ inputs: [file(dir, 'a.txt', urls(0, 300))], outDir: join(dir, `out-a-${bloom}`) });
        assert.ok(readManifest(join(state, bloom))!.journal, 'the run went to the journal');
        assert.ok(a.tiers.bloom.sizeBytes > 0, `${bloom}: a filter answered the run`);
        // The store was empty: every new URL is one the filter called new, or one of its false positives.
        assert.equal(a.tiers.bloom.definitelyNew + a.tiers.bloom.falsePositives, a.uniqueUrls);
        assert.equal(a.uniqueUrls, 300);
      } finally {
        await d.close();
      }
      // A later process reads the journal's keys into its filter: none of them is new again, and none is dropped.
      const e = await Drum.open(join(state, bloom), { ...O, bloom, cacheEntries: 0, recentEntries: 0, lineMemoEntries: 0 });
      try {
        const got = await newOf(e, dir, `b-${bloom}.txt`, urls(250, 100));
        assert.ok(got.every((u) => !urls(0, 300).includes(u)), 'no stored URL is new again');
        if (bloom === 'gate') assert.deepEqual(got, urls(300, 50));
        const st = await e.stats();
        assert.equal(st.storeUrls, 300 + got.length);
      } finally {
        await e.close();
      }
    }
  });
});
