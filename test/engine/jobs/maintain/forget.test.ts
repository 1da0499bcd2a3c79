// Drum.forget: URLs removed in one delete round are new again to the next
// ingest; every tier (line memos, hot cache, recent table, Bloom gate in
// lossy mode, tiers.cache after a reopen) stops vouching for them; the
// forget is a run in the manifest and the catalog (counts, reject line
// numbers) that reconcile and repair --catalog keep a forget; its hosts'
// counts go down, also after a crash before the catalog write; an input
// ingested before a forget is read again; a forgotten URL that comes back
// gets a new docID; it agrees with a Set model. Forgets of hosts are in
// forget-hosts.test.ts, file faults in forget-faults.test.ts.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Catalog } from '../../../../src/catalog/catalog.js';
import { Drum, repair } from '../../../../src/engine/drum.js';
import { keyOfString } from '../../../../src/fingerprint/key.js';
import { readUrlValues } from '../../../helpers/values.js';
import type { DrumOptions } from '../../../../src/options.js';
import { readManifest } from '../../../../src/store/manifest.js';
import { tempDir } from '../../../helpers/tmp.js';
import { withDrum } from '../../../helpers/drum.js';
import { hostCounts, ingestUrls, OPTS, urlsOf } from './forget-fixtures.js';

describe('Drum.forget', () => {
  it('fsyncs the directory holding its output directory as it makes it, and the output directory before the manifest names its run', async () => {
    const dir = join(tempDir(), 'state');
    const outDir = join(dir, '..', 'forget-out');
    const ops: string[] = [];
    let recording = false;
    const hook = (op: string, path: string): void => {
      if (!recording) return;
      if (op === 'fsync' && (path === outDir || path === join(dir, '..'))) ops.push(path === outDir ? 'fsync out' : 'fsync parent');
      if (op === 'rename' && path === join(dir, 'MANIFEST')) ops.push('manifest');
    };
    await withDrum(dir, { ...OPTS, fsync: true, faultHook: hook }, async (d) => {
      await ingestUrls(d, dir, urlsOf('a.example', 5));
      recording = true;
      await d.forget({ urls: ['http://a.example/p1'], outDir });
    });
    // (The forget folds the key journal first, a commit of its own.)
    const parent = ops.indexOf('fsync parent');
    const out = ops.lastIndexOf('fsync out');
    assert.ok(parent >= 0 && parent < out && out < ops.lastIndexOf('manifest') && ops.at(-1) === 'manifest', ops.join(', '));
  });

  it('removes the listed URLs in one round, and the next ingest finds them new again', async () => {
    const dir = join(tempDir(), 'state');
    await withDrum(dir, OPTS, async (d) => {
      assert.equal((await ingestUrls(d, dir, urlsOf('a.example', 30))).length, 30);
      const before = readManifest(dir)!;
      const r = await d.forget(['http://A.example:80/p3', 'http://a.example/p7#frag', 'http://a.example/nope', 'http://a.example/p3', 'mailto:x@y']);
      assert.deepEqual([r.asked, r.forgotten, r.notStored, r.repeats, r.rejectedLines], [4, 2, 1, 1, 1]);
      assert.deepEqual(r.rejects, [{ input: 0, line: 5, reason: r.rejects[0]!.reason }]);
      assert.equal(r.storeUrls, 28);
      // The key journal held the 30 URLs: the forget folds it into the bucket files first (a commit of its own).
      assert.ok(before.journal !== undefined);
      assert.equal(readManifest(dir)!.commit, before.commit + 2, 'the fold, then one commit');
      assert.equal(readManifest(dir)!.journal, undefined);
      assert.deepEqual(fs.readFileSync(join(r.outDir, 'forgotten.txt'), 'utf8'), 'http://a.example/p3\nhttp://a.example/p7\n');
      assert.deepEqual(await ingestUrls(d, dir, urlsOf('a.example', 30)), ['http://a.example/p3', 'http://a.example/p7']);
      assert.equal((await d.verify()).ok, true);
    });
  });

  it('leaves no tier answering "seen" for a forgotten URL: memos, hot cache, recent table, and tiers.cache after a reopen', async () => {
    const dir = join(tempDir(), 'state');
    const urls = urlsOf('t.example', 20);
    await withDrum(dir, OPTS, async (d) => {
      await ingestUrls(d, dir, urls);
      // Seen again: the line memos, the recent table and the hot cache now hold them.
      await ingestUrls(d, dir, urls);
      await ingestUrls(d, dir, urls);
      await d.forget(urls.slice(0, 5));
      assert.deepEqual(await ingestUrls(d, dir, urls), urls.slice(0, 5));
      await d.forget(urls.slice(5, 10));
    });
    // Reopened: the tiers come back from tiers.cache and memo.cache.
    await withDrum(dir, OPTS, async (d) => {
      assert.deepEqual(await ingestUrls(d, dir, urls), urls.slice(5, 10));
    });
  });

  it('rebuilds the Bloom filter so lossy mode takes a forgotten URL as new again', async () => {
    const dir = join(tempDir(), 'state');
    const urls = urlsOf('b.example', 50);
    // Journal off: the ingest merges and writes the Bloom file the forget replaces.
    const opts: DrumOptions = { ...OPTS, bloom: 'lossy', journalKeys: 0 };
    await withDrum(dir, opts, async (d) => {
      await ingestUrls(d, dir, urls);
      const before = readManifest(dir)!.bloom!.file;
      await d.forget(urls.slice(0, 3));
      assert.notEqual(readManifest(dir)!.bloom!.file, before);
      assert.deepEqual(await ingestUrls(d, dir, urls), urls.slice(0, 3));
    });
    await withDrum(dir, OPTS, async (d) => {
      await d.forget(urls.slice(10, 12));
    });
    // Forgotten by an open without the filter: it is dropped, never left naming forgotten keys.
    assert.equal(readManifest(dir)!.bloom, null);
    await withDrum(dir, opts, async (d) => {
      assert.deepEqual(await ingestUrls(d, dir, urls), urls.slice(10, 12));
    });
  });

  it('is a run: drum runs lists it with its counts and reject line numbers, reconcile and repair keep it a forget', async () => {
    const dir = join(tempDir(), 'state');
    const list = join(dir, '..', 'list.txt');
    fs.writeFileSync(list, 'http://r.example/p1\nnot a url\nhttp://r.example/p2\n\nhttp://r.example/zz\n');
    const runId = await withDrum(dir, OPTS, async (d) => {
      await ingestUrls(d, dir, urlsOf('r.example', 5));
      return (await d.forget({ inputs: [list] })).runId;
    });
    const record = async () => {
      const c = await Catalog.open(dir, { readOnly: true });
      try {
        return await c.getRun(runId);
      } finally {
        await c.close();
      }
    };
    const rec = await record();
    assert.equal(rec?.kind, 'forget');
    assert.deepEqual({ ...rec!.forget, rejects: rec!.forget!.rejects!.map((x) => x.line) },
      { asked: 3, forgotten: 2, notStored: 1, repeats: 0, rejectedLines: 1, rejects: [2] });
    assert.equal(readManifest(dir)!.history.at(-1)!.kind, 'forget');
    const own = (await record())!;
    fs.rmSync(join(dir, 'catalog', 'CURRENT')); // a damaged catalog: a sound one the repair leaves as it is
    await repair(dir, { catalog: true });
    // Salvaged from the damaged catalog: the forget's record as the forget wrote it.
    assert.deepEqual(await record(), own);
    assert.equal((await hostCounts(dir)).get('r.example'), 3, 'repair subtracts the forgotten URLs again');
    fs.rmSync(join(dir, 'catalog'), { recursive: true }); // a lost catalog: nothing to salvage
    await repair(dir, { catalog: true });
    // Rebuilt from the manifest: the forget's record less its first rejects (rejects.tsv has them).
    const { rejects: _first, ...counts } = own.forget!;
    assert.deepEqual((await record())!.forget, counts);
    assert.deepEqual([(await record())!.counts, (await record())!.options], [own.counts, own.options]);
    assert.equal((await hostCounts(dir)).get('r.example'), 3, 'repair subtracts the forgotten URLs again');
  });

  it('takes a forget\'s URLs off the host counts, also when a crash kept its catalog writes from happening', async () => {
    const dir = join(tempDir(), 'state');
    await withDrum(dir, OPTS, async (d) => {
      await ingestUrls(d, dir, [...urlsOf('h1.example', 6), ...urlsOf('h2.example', 4)]);
    });
    // The catalog as it was before the forget: as if the process died between the forget's commit and its catalog batch.
    const before = join(dir, '..', 'catalog-before');
    fs.cpSync(join(dir, 'catalog'), before, { recursive: true });
    const runId = await withDrum(dir, OPTS, async (d) => (await d.forget([...urlsOf('h1.example', 2), 'http://h2.example/p0'])).runId);
    assert.deepEqual(await hostCounts(dir), new Map([['h1.example', 4], ['h2.example', 3]]));
    fs.rmSync(join(dir, 'catalog'), { recursive: true });
    fs.cpSync(before, join(dir, 'catalog'), { recursive: true });
    await withDrum(dir, OPTS, async () => undefined);
    assert.deepEqual(await hostCounts(dir), new Map([['h1.example', 4], ['h2.example', 3]]));
    const c = await Catalog.open(dir, { readOnly: true });
    try {
      assert.equal((await c.getRun(runId))?.kind, 'forget');
    } finally {
      await c.close();
    }
  });

  it('reads again an input ingested before a forget (it may hold URLs made new again)', async () => {
    const dir = join(tempDir(), 'state');
    const file = join(dir, '..', 'same.txt');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(file, urlsOf('s.example', 10).map((u) => `${u}\n`).join(''));
    await withDrum(dir, OPTS, async (d) => {
      await d.ingest({ inputs: [file], outDir: join(dir, '..', 'o1') });
      const skipped = await d.ingest({ inputs: [file], outDir: join(dir, '..', 'o2') });
      assert.equal(skipped.inputs[0]!.skipped, true);
      await d.forget(['http://s.example/p4']);
      const again = await d.ingest({ inputs: [file], outDir: join(dir, '..', 'o3') });
      assert.equal(again.inputs[0]!.skipped, false);
      assert.equal(again.uniqueUrls, 1);
    });
  });

  it('gives a forgotten URL that comes back a new docID, never its old one', async () => {
    const dir = join(tempDir(), 'state');
    const urls = urlsOf('d.example', 4);
    const docID = (u: string): number => readUrlValues(dir).get(keyOfString(u, 24).join(':'))!.docID;
    await withDrum(dir, OPTS, async (d) => {
      await ingestUrls(d, dir, urls);
      const before = docID(urls[1]!);
      await d.forget([urls[1]!]);
      assert.equal(readUrlValues(dir).has(keyOfString(urls[1]!, 24).join(':')), false);
      await ingestUrls(d, dir, urls);
      assert.equal(docID(urls[1]!), 4);
      assert.notEqual(docID(urls[1]!), before);
    });
  });

  it('agrees with a Set model over random ingests, forgets of URLs and of hosts, and reopens', async () => {
    const pool = [...urlsOf('m1.example', 8), ...urlsOf('m2.example', 8)];
    const op = fc.oneof(
      fc.record({ t: fc.constant('ingest' as const), urls: fc.subarray(pool, { minLength: 1 }) }),
      fc.record({ t: fc.constant('forget' as const), urls: fc.subarray(pool, { minLength: 1 }) }),
      fc.record({ t: fc.constant('reopen' as const), urls: fc.constant([] as string[]) }),
      fc.record({ t: fc.constant('host' as const), urls: fc.constantFrom<string[]>(['m1.example'], ['m2.example'], ['m1.example', 'm2.example']) }),
    );
    await fc.assert(fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
      const dir = join(tempDir(), 'state');
      const model = new Set<string>();
      let d = await Drum.open(dir, OPTS);
      try {
        for (const o of ops) {
          if (o.t === 'reopen') {
            await d.close();
            d = await Drum.open(dir, OPTS);
          } else if (o.t === 'host') {
            const r = await d.forget({ hosts: o.urls });
            const had = [...model].filter((u) => o.urls.includes(new URL(u).host));
            assert.equal(r.forgotten, had.length);
            for (const u of had) model.delete(u);
          } else if (o.t === 'forget') {
            const r = await d.forget(o.urls);
            const had = o.urls.filter((u) => model.has(u));
            assert.equal(r.forgotten, had.length);
            for (const u of o.urls) model.delete(u);
          } else {
            const got = (await d.add(o.urls)).newUrls;
            const want = [...new Set(o.urls)].filter((u) => !model.has(u));
            assert.deepEqual(got, want);
            for (const u of o.urls) model.add(u);
          }
        }
      } finally {
        await d.close();
      }
    }), { numRuns: 12 });
  });
});
