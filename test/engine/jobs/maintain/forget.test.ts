// Drum.forget: URLs removed in one delete round are new again to the next
// ingest; every tier (line memos, hot cache, recent table, Bloom gate in
// lossy mode, tiers.cache after a reopen) stops vouching for them; the
// forget is a run in the manifest and the catalog (counts, reject line
// numbers) that reconcile and repair --catalog keep a forget; its hosts'
// counts go down, also after a crash before the catalog write; an input
// ingested before a forget is read again; a fault at any file operation of
// the forget leaves the old or the new state, and verify passes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Catalog } from '../../../../src/catalog/catalog.js';
import { Drum, repair, upgradeStore } from '../../../../src/engine/drum.js';
import { keyOfString } from '../../../../src/fingerprint/key.js';
import { readUrlValues } from '../../../helpers/values.js';
import { isDrumError } from '../../../../src/errors.js';
import type { DrumOptions } from '../../../../src/options.js';
import type { ForgetRequest } from '../../../../src/engine/api.js';
import { readManifest } from '../../../../src/store/manifest.js';
import { tempDir } from '../../../helpers/tmp.js';
import { withDrum } from '../../../helpers/drum.js';
import { flipByte } from '../../../helpers/damage.js';
import { openUnder } from '../../../helpers/fds.js';

const OPTS: DrumOptions = { workers: 0, fsync: false, chunkBytes: 1024, tuning: { workerDispatchMin: 0, sortEntries: 40 } };

/** Ingests `urls` as a file; returns the URLs the run found new. */
async function ingestUrls(d: Drum, dir: string, urls: string[], name = `in-${Math.random().toString(36).slice(2)}.txt`): Promise<string[]> {
  const file = join(dir, '..', name);
  fs.writeFileSync(file, urls.map((u) => `${u}\n`).join(''));
  const out: string[] = [];
  const r = await d.ingest({ inputs: [file], outDir: join(dir, '..', `out-${Math.random().toString(36).slice(2)}`) });
  for (const f of r.outputFiles) out.push(...fs.readFileSync(join(r.outDir, f), 'utf8').split('\n').filter((l) => l !== ''));
  return out;
}

async function hostCounts(dir: string): Promise<Map<string, number>> {
  const c = await Catalog.open(dir, { readOnly: true });
  try {
    return new Map((await c.topHosts(100)).map((h) => [h.host, h.uniqueUrls]));
  } finally {
    await c.close();
  }
}

const urlsOf = (host: string, n: number): string[] => Array.from({ length: n }, (_, i) => `http://${host}/p${i}`);

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
    await repair(dir, { catalog: true });
    assert.equal((await record())?.kind, 'forget');
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

  it('refuses --host on a keys-only store, and deletes nothing', async () => {
    const dir = join(tempDir(), 'state');
    await withDrum(dir, { ...OPTS, values: false }, async (d) => {
      await ingestUrls(d, dir, urlsOf('x.example', 3));
      await assert.rejects(d.forget({ hosts: ['x.example'] }), (e) => isDrumError(e, 'DRUM_NEEDS_UPGRADE'));
      assert.equal((await d.stats()).storeUrls, 3);
    });
  });

  it('forgets a host by its exact name: another host sharing its key-range fingerprint keeps its URLs', async () => {
    const dir = join(tempDir(), 'state');
    const hostBits = 2; // four host fingerprints: of eight hosts, some must share one
    const hosts = Array.from({ length: 8 }, (_, i) => `s${i}.example`);
    const prefix = (h: string): number => keyOfString(`http://${h}/`, hostBits)[0] >>> (32 - hostBits);
    // Two hosts with one fingerprint (eight hosts, four fingerprints: there is such a pair).
    const [gone, twin] = hosts.flatMap((a, i) => hosts.slice(i + 1).filter((b) => prefix(a) === prefix(b)).map((b) => [a, b] as const))[0]!;
    const all = hosts.flatMap((h) => urlsOf(h, 5));
    await withDrum(dir, { ...OPTS, hostBits }, async (d) => {
      await ingestUrls(d, dir, all);
      const r = await d.forget({ hosts: [`${gone.toUpperCase()}:80`], urls: [`http://${gone}/p1`, `http://${twin}/p2`] });
      assert.deepEqual(r.hosts, [{ host: gone, forgotten: 5, unknownHost: 0 }]);
      assert.deepEqual([r.forgotten, r.asked, r.repeats, r.notStored], [6, 2, 1, 0]);
      assert.deepEqual(await ingestUrls(d, dir, all), [...urlsOf(gone, 5), `http://${twin}/p2`].sort((a, b) => all.indexOf(a) - all.indexOf(b)));
    });
    const counts = await hostCounts(dir);
    assert.equal(counts.get(gone), 5);
    assert.equal(counts.get(twin), 5);
  });

  it('keeps the URLs whose host check is unknown (stored before an upgrade) and counts them', async () => {
    const dir = join(tempDir(), 'state');
    await withDrum(dir, { ...OPTS, values: false }, (d) => ingestUrls(d, dir, urlsOf('u.example', 4)));
    await upgradeStore(dir);
    await withDrum(dir, OPTS, async (d) => {
      await ingestUrls(d, dir, urlsOf('u.example', 6));
      const r = await d.forget({ hosts: ['u.example'] });
      assert.deepEqual(r.hosts, [{ host: 'u.example', forgotten: 2, unknownHost: 4 }]);
      assert.deepEqual(await ingestUrls(d, dir, urlsOf('u.example', 6)), urlsOf('u.example', 6).slice(4));
    });
  });

  it('closes the key file of a bucket whose values delta it cannot read when forgetting a host, and forgets nothing', async () => {
    const dir = join(tempDir(), 'state');
    await withDrum(dir, { ...OPTS, buckets: 1, hostBits: 0, journalKeys: 0 }, async (d) => {
      await ingestUrls(d, dir, urlsOf('v.example', 40));
      await ingestUrls(d, dir, urlsOf('w.example', 5));
      const delta = readManifest(dir)!.buckets[0]!.values!.deltas![0]!;
      // Bit rot in the delta's one block: this process wrote the bucket, so its check before the forget trusts it.
      flipByte(join(dir, delta.file), 40);
      const open = openUnder(join(dir, 'store')).length;
      await assert.rejects(d.forget({ hosts: ['v.example'] }), (e) => isDrumError(e, 'DRUM_CORRUPT_FILE'));
      assert.equal(openUnder(join(dir, 'store')).length, open);
      assert.equal(readManifest(dir)!.storeUrls, 45);
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

  it('leaves the old or the new state, sound, when an OS error hits any file operation of the forget', async () => {
    const urls = urlsOf('f.example', 40);
    for (let at = 1; ; at++) {
      const dir = join(tempDir(), 'state');
      await withDrum(dir, OPTS, (d) => ingestUrls(d, dir, urls));
      let ops = 0;
      let failed = false;
      const hook = (): void => {
        if (++ops === at) {
          failed = true;
          throw Object.assign(new Error('injected EIO'), { code: 'EIO' });
        }
      };
      await withDrum(dir, { ...OPTS, faultHook: hook } as DrumOptions, async (d) => {
        await d.forget(urls.slice(0, 10)).catch((e) => {
          if (!isDrumError(e)) throw e;
        });
      }).catch(() => undefined);
      await withDrum(dir, OPTS, async (d) => {
        assert.equal((await d.verify()).ok, true, `fault at op ${at}`);
        const n = (await d.stats()).storeUrls;
        assert.ok(n === 40 || n === 30, `old or new state at op ${at}: ${n}`);
        const back = await ingestUrls(d, dir, urls);
        assert.deepEqual(back, n === 40 ? [] : urls.slice(0, 10));
      });
      if (!failed) break;
    }
  });

  it('leaves no output files when a full disk stops it before its commit, so the same forget into the same outDir runs again', async () => {
    const urls = urlsOf('f.example', 40);
    for (let at = 1; ; at++) {
      const root = tempDir();
      const dir = join(root, 'state');
      const outDir = join(root, 'forgot');
      await withDrum(dir, OPTS, (d) => ingestUrls(d, dir, urls));
      let ops = 0;
      // A full disk: from operation `at` on, every write, open for writing and mkdir fails.
      const hook = (op: string): void => {
        if (++ops >= at && (op === 'write' || op === 'open-write' || op === 'mkdir')) throw Object.assign(new Error('injected ENOSPC'), { code: 'ENOSPC' });
      };
      const stopped = await withDrum(dir, { ...OPTS, faultHook: hook } as DrumOptions, async (d) => {
        return d.forget({ hosts: ['f.example'], outDir }).then(() => false, (e) => {
          assert.ok(isDrumError(e, 'DRUM_IO'), String(e));
          return true;
        });
      }).catch((e) => {
        assert.ok(isDrumError(e, 'DRUM_IO'), String(e));
        return true;
      });
      if (!stopped) break;
      await withDrum(dir, OPTS, async (d) => {
        if ((await d.stats()).storeUrls === 0) return; // committed before the disk filled: done
        const r = await d.forget({ hosts: ['f.example'], outDir });
        assert.equal(r.forgotten, 40, `full disk from op ${at}`);
      });
    }
  });

  it('refuses with DRUM_IO and forgets nothing when the disk will not take its work file of hosts or of URLs', async (t) => {
    if (!fs.existsSync('/dev/full')) return t.skip('needs /dev/full (Linux)');
    const urls = urlsOf('w.example', 10);
    const dir = join(tempDir(), 'state');
    await withDrum(dir, OPTS, async (d) => {
      await ingestUrls(d, dir, urls);
      // /dev/full refuses every write with ENOSPC: a disk with no room for the work file.
      const cases: [string, ForgetRequest][] = [['forget-hosts.txt', { hosts: ['w.example'] }], ['forget-urls.txt', { urls: urls.slice(0, 3) }]];
      for (const [file, req] of cases) {
        fs.symlinkSync('/dev/full', join(dir, 'work', file));
        await assert.rejects(d.forget(req), (e) => isDrumError(e, 'DRUM_IO'), file);
        fs.rmSync(join(dir, 'work', file), { force: true });
        assert.equal((await d.stats()).storeUrls, 10, file);
      }
      assert.equal((await d.forget({ hosts: ['w.example'] })).forgotten, 10);
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
