// Drum.add, the crawler's URL-seen set: canonical new URLs per call in the
// order given, relative links resolved against the page, rejects by index,
// group commit of concurrent calls (each URL new exactly once, as a Set
// model says), the run it records (run directory, catalog, host table), and
// endRun() ending that run at the calls made before it while more keep coming.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Catalog } from '../../../../src/catalog/catalog.js';
import { Drum } from '../../../../src/engine/drum.js';
import type { DrumOptions } from '../../../../src/options.js';
import { tempDir } from '../../../helpers/tmp.js';

const OPTS: DrumOptions = { workers: 1, fsync: false, chunkBytes: 1024, tuning: { workerDispatchMin: 0, sortEntries: 40 } };

describe('Drum.add', () => {
  it('returns the canonical form of each new link in the order given, relative links resolved against the base', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      const r = await d.add(['b/c', '../up', 'HTTP://Example.COM:80/a/b/c#frag', '//cdn.example.net/x.js', 'http://example.com/q?utm_source=s&id=1'], {
        base: 'http://example.com/a/index.html',
      });
      assert.deepEqual(r.newUrls, ['http://example.com/a/b/c', 'http://example.com/up', 'http://cdn.example.net/x.js', 'http://example.com/q?id=1']);
      assert.equal(r.duplicates, 1);
      assert.equal(r.links, 5);
      const again = await d.add([{ url: '/up', source: 'http://example.com/zzz' }, { url: 'new', source: 'http://example.com/a/' }]);
      assert.deepEqual(again.newUrls, ['http://example.com/a/new']);
      assert.equal(again.duplicates, 1);
    } finally {
      await d.close();
    }
  });

  it('rejects unusable links by their index, and its counts add up', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      const r = await d.add(['relative', '', 'mailto:a@b.example', 'http://ok.example/', 'http://bad host/', '  '], {});
      assert.deepEqual(r.rejects.map((x) => [x.index, x.reason]), [
        [0, 'relative-without-base'], [1, 'empty'], [2, 'unsupported-scheme'], [4, 'invalid-host'], [5, 'empty'],
      ]);
      assert.deepEqual(r.newUrls, ['http://ok.example/']);
      assert.equal(r.links, r.newUrls.length + r.duplicates + r.rejects.length);
      assert.deepEqual(d.runStats()?.rejectsByReason, { 'relative-without-base': 1, empty: 2, 'unsupported-scheme': 1, 'invalid-host': 1 });
    } finally {
      await d.close();
    }
  });

  it('fails a call whose links are not strings or Links with DRUM_BAD_OPTION, and nothing else', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      await assert.rejects(d.add([42 as unknown as string]), { code: 'DRUM_BAD_OPTION' });
      // A bare string would otherwise be one link per character; null and non-object options are refused too.
      await assert.rejects(d.add('http://x.example/' as unknown as string[]), { code: 'DRUM_BAD_OPTION' });
      await assert.rejects(d.add(null as unknown as string[]), { code: 'DRUM_BAD_OPTION' });
      await assert.rejects(d.add(['http://y.example/'], null as unknown as object), { code: 'DRUM_BAD_OPTION' });
      assert.deepEqual((await d.add(['http://fine.example/'])).newUrls, ['http://fine.example/']);
    } finally {
      await d.close();
    }
  });

  it('calls each URL new exactly once across concurrent calls, as a Set model does, and stores every one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.nat(60), { maxLength: 40 }), { minLength: 1, maxLength: 12 }), async (pages) => {
        const d = await Drum.open(tempDir(), OPTS);
        try {
          const calls = pages.map((p) => p.map((n) => `http://h${n % 7}.example/p${n}`));
          const results = await Promise.all(calls.map((c) => d.add(c)));
          const model = new Set(calls.flat());
          const got = results.flatMap((r) => r.newUrls);
          assert.deepEqual([...got].sort(), [...model].sort());
          results.forEach((r, i) => assert.equal(r.links, calls[i]!.length));
          assert.equal((await d.stats()).storeUrls, model.size);
          // Within a call, new URLs come in the order given.
          for (const [i, r] of results.entries()) assert.deepEqual(r.newUrls, calls[i]!.filter((u) => r.newUrls.includes(u)).filter((u, k, a) => a.indexOf(u) === k));
        } finally {
          await d.close();
        }
      }),
      { numRuns: 8 },
    );
  });

  it('stores calls made while a round merges together in the next round', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      await Promise.all(Array.from({ length: 20 }, (_, i) => d.add([`http://g.example/${i}`])));
      const rounds = d.runStats()!.rounds;
      assert.ok(rounds < 20, `20 concurrent calls took ${rounds} rounds`);
    } finally {
      await d.close();
    }
  });

  it('records its run like an ingest: run directory, catalog record and host-table counts', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, OPTS);
    await d.add(['http://a.example/1', 'http://a.example/2', 'http://b.example/1', 'nope']);
    await d.add(['http://a.example/3', 'http://a.example/1']);
    const runId = d.runStats()!.runId;
    const outDir = d.runStats()!.outDir;
    await d.close();
    assert.equal(fs.readFileSync(join(outDir, 'unique-00001.txt'), 'utf8'), 'http://a.example/1\nhttp://a.example/2\nhttp://b.example/1\nhttp://a.example/3\n');
    assert.equal(JSON.parse(fs.readFileSync(join(outDir, 'report.json'), 'utf8')).uniqueUrls, 4);
    assert.match(fs.readFileSync(join(outDir, 'rejects.tsv'), 'utf8'), /\t4\trelative-without-base\tnope\n/);
    const cat = await Catalog.open(dir, { readOnly: true });
    try {
      const rec = await cat.getRun(runId);
      assert.equal(rec?.status, 'complete');
      assert.deepEqual(rec?.counts, { linksRead: 6, uniqueUrls: 4, duplicateUrls: 1, rejectedLines: 1 });
      assert.equal(await cat.hostCount('a.example'), 3);
      assert.equal(await cat.hostCount('b.example'), 1);
    } finally {
      await cat.close();
    }
    const again = await Drum.open(dir, OPTS);
    try {
      assert.equal((await again.stats()).recentRuns[0]?.runId, runId);
    } finally {
      await again.close();
    }
  });

  it('lets close() finish the calls in flight before the store closes', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, OPTS);
    const pending = d.add(Array.from({ length: 500 }, (_, i) => `http://late.example/${i}`));
    await d.close();
    assert.equal((await pending).newUrls.length, 500);
    const again = await Drum.open(dir, OPTS);
    try {
      assert.equal((await again.stats()).storeUrls, 500);
    } finally {
      await again.close();
    }
  });

  it('ends its run at endRun() while calls keep coming: the calls made before it are that run, later ones the next', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      const LATE = 300; // calls made after endRun() at which the writers stop: before the fix, endRun() waited for that
      const calls: { url: string; before: boolean; news: number }[] = [];
      let ending = false;
      let stop = false;
      let late = 0;
      let i = 0;
      const writer = async (): Promise<void> => {
        while (!stop && late < LATE) {
          const url = `http://x${i % 7}.example/${i++ % 150}`;
          const call = { url, before: !ending, news: 0 };
          if (ending) late++;
          call.news = (await d.add([url])).newUrls.length;
          calls.push(call);
        }
      };
      const writers = [writer(), writer(), writer()];
      while (calls.length < 60) await new Promise((r) => setImmediate(r));
      ending = true;
      const first = await d.endRun();
      assert.ok(late < LATE, 'endRun() waited for the writers to stop');
      const after = calls.length;
      while (calls.length < after + 30) await new Promise((r) => setImmediate(r));
      stop = true;
      await Promise.all(writers);
      const second = await d.endRun();
      const before = calls.filter((c) => c.before).length;
      assert.equal(first?.linksRead, before);
      assert.equal(second?.linksRead, calls.length - before);
      const distinct = new Set(calls.map((c) => c.url)).size;
      assert.equal(calls.reduce((n, c) => n + c.news, 0), distinct);
      assert.equal(first!.uniqueUrls + second!.uniqueUrls, distinct);
      assert.equal((await d.stats()).storeUrls, distinct);
    } finally {
      await d.close();
    }
  });
});

describe('Drum.add beforeCommit', () => {
  /** The store's URL count as a reader opened now sees it: what has committed. */
  const committed = async (dir: string): Promise<number> => {
    const r = await Drum.open(dir, { readOnly: true, workers: 0 });
    try {
      return (await r.stats()).storeUrls;
    } finally {
      await r.close();
    }
  };

  it('hands each call its new URLs before the round that stores them commits, and the hooks of one round run together', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, OPTS);
    try {
      const seen: [string, string[], number][] = [];
      let cStarted = (): void => undefined;
      const cHere = new Promise<void>((r) => (cStarted = r));
      const hook = (name: string, wait?: Promise<void>) => async (urls: readonly string[]): Promise<void> => {
        if (name === 'c') cStarted();
        // B's hook waits for C's: with one hook at a time this round would never commit.
        if (wait !== undefined) await Promise.race([wait, new Promise((_, no) => setTimeout(() => no(new Error(`${name}: hooks run one at a time`)), 5000))]);
        seen.push([name, [...urls], await committed(dir)]);
      };
      const a = d.add(['http://a.example/1', 'http://a.example/2'], { beforeCommit: hook('a') });
      // Made while A's round runs: B and C share the next round.
      const b = d.add(['http://b.example/1', 'http://a.example/1'], { beforeCommit: hook('b', cHere) });
      const c = d.add(['http://c.example/1', 'http://b.example/1'], { beforeCommit: hook('c') });
      const [ra, rb, rc] = await Promise.all([a, b, c]);
      assert.deepEqual(seen.map(([n, urls]) => [n, urls]).sort(), [
        ['a', ra.newUrls], ['b', rb.newUrls], ['c', rc.newUrls],
      ].sort());
      assert.deepEqual([ra.newUrls, rb.newUrls, rc.newUrls], [['http://a.example/1', 'http://a.example/2'], ['http://b.example/1'], ['http://c.example/1']]);
      assert.deepEqual(seen.map(([n, , stored]) => [n, stored]).sort(), [['a', 0], ['b', 2], ['c', 2]], 'not committed when its hook runs');
      assert.equal(d.runStats()!.rounds, 2);
    } finally {
      await d.close();
    }
  });

  it('fails the whole round when one call\'s hook rejects: every call of it rejects and none of its links is stored', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, OPTS);
    try {
      await assert.rejects(d.add(['http://x.example/'], { beforeCommit: 42 as unknown as () => Promise<void> }), { code: 'DRUM_BAD_OPTION' });
      const first = d.add(['http://first.example/']);
      let wrote = false;
      const slow = async (): Promise<void> => {
        await new Promise((r) => setTimeout(r, 50));
        wrote = true;
      };
      const refuse = async (): Promise<void> => {
        throw new Error('queue disk full');
      };
      // Made while the first call's round runs: both share the next round.
      const p1 = d.add(['http://ok.example/1'], { beforeCommit: slow });
      const p2 = d.add(['http://ok.example/2'], { beforeCommit: refuse });
      await first;
      await assert.rejects(p1, /queue disk full/);
      await assert.rejects(p2, /queue disk full/);
      assert.ok(wrote, 'the round waited for the other hook before it failed');
      assert.equal(await committed(dir), 1);
      const again = await d.add(['http://ok.example/1', 'http://ok.example/2']);
      assert.deepEqual(again.newUrls, ['http://ok.example/1', 'http://ok.example/2'], 'new again: never stored');
    } finally {
      await d.close();
    }
  });
});
