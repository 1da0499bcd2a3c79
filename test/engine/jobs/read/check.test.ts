import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../../../src/engine/drum.js';
import type { DrumOptions } from '../../../../src/options.js';
import { tempDir } from '../../../helpers/tmp.js';

function file(dir: string, name: string, lines: string[]): string {
  const p = join(dir, name);
  fs.writeFileSync(p, `${lines.join('\n')}\n`);
  return p;
}

async function checked(d: Drum, input: string): Promise<string[]> {
  const out: string[] = [];
  await d.check({ inputs: [input], onNew: (u) => out.push(u) });
  return out;
}

describe('check on a writable store', () => {
  // Every tier that could remember a checked URL: line memo, recent table, hot cache (promotions), Bloom filter.
  const configs: [string, DrumOptions][] = [
    ['default tiers', {}],
    ['inline parsing', { workers: 0 }],
    ['Bloom gate', { bloom: 'gate' }],
    ['lossy Bloom', { bloom: 'lossy' }],
  ];
  for (const [name, o] of configs) {
    it(`leaves nothing behind that would call a checked URL seen when it is ingested next (${name})`, async () => {
      const dir = tempDir();
      const d = await Drum.open(join(dir, 'state'), { fsync: false, ...o });
      try {
        // A first batch, so the store, tiers.cache and the Bloom filter exist.
        await d.ingest({ inputs: [file(dir, 'a.txt', ['http://a.example/1', 'http://a.example/2'])], outDir: join(dir, 'out-a') });
        const b = file(dir, 'b.txt', ['http://b.example/1', 'http://b.example/2', 'http://b.example/1', 'http://a.example/1']);
        assert.deepEqual(await checked(d, b), ['http://b.example/1', 'http://b.example/2']);
        assert.deepEqual(await checked(d, b), ['http://b.example/1', 'http://b.example/2'], 'a second check says the same');
        const r = await d.ingest({ inputs: [b], outDir: join(dir, 'out-b') });
        assert.equal(r.uniqueUrls, 2);
        assert.equal(fs.readFileSync(join(dir, 'out-b', 'unique-00001.txt'), 'utf8'), 'http://b.example/1\nhttp://b.example/2\n');
        assert.deepEqual(await checked(d, b), [], 'once ingested, nothing is new');
      } finally {
        await d.close();
      }
    });
  }
});

describe('a small check against a big bucket', () => {
  it('reports exactly the URLs not stored when the merge skips most of the bucket file', async () => {
    const dir = tempDir();
    // One bucket of 40,000 URLs: five blocks; a check of 4 URLs lands on at most 4 of them.
    const d = await Drum.open(join(dir, 'state'), { fsync: false, buckets: 1, workers: 0 });
    try {
      const stored = Array.from({ length: 40000 }, (_, i) => `http://h${i % 97}.example/p/${i}`);
      await d.ingest({ inputs: [file(dir, 'a.txt', stored)], outDir: join(dir, 'out-a') });
      const probe = ['http://h5.example/p/5', 'http://h5.example/p/new', `http://h${39999 % 97}.example/p/39999`, 'http://zz.example/'];
      assert.deepEqual(await checked(d, file(dir, 'b.txt', probe)), ['http://h5.example/p/new', 'http://zz.example/']);
      assert.deepEqual(await checked(d, file(dir, 'c.txt', stored.slice(20000, 20003))), []);
    } finally {
      await d.close();
    }
  });
});

describe('an abandoned job', () => {
  const urls = (p: string, n: number): string[] => Array.from({ length: n }, (_, i) => `http://${p}.example/${i}`);

  async function nextIngest(d: Drum, dir: string): Promise<string> {
    const c = file(dir, 'c.txt', ['http://c.example/1']);
    await d.ingest({ inputs: [c], outDir: join(dir, 'out-c') });
    return fs.readFileSync(join(dir, 'out-c', 'unique-00001.txt'), 'utf8');
  }

  for (const workers of [0, 1]) {
    it(`leaves no key of a check that threw for the next ingest to emit (workers ${workers})`, async () => {
      const dir = tempDir();
      const d = await Drum.open(join(dir, 'state'), { fsync: false, workers });
      try {
        const b = file(dir, 'b.txt', urls('checked', 2));
        await assert.rejects(d.check({ inputs: [b], onNew: () => { throw new Error('consumer failed'); } }), /consumer failed/);
        assert.equal(await nextIngest(d, dir), 'http://c.example/1\n');
        assert.deepEqual(await checked(d, b), urls('checked', 2), 'the checked URLs are still new');
      } finally {
        await d.close();
      }
    });
  }

  it('leaves no key of a checkUpdate whose source threw for the next ingest to emit', async () => {
    const dir = tempDir();
    const d = await Drum.open(join(dir, 'state'), { fsync: false, workers: 0, chunkBytes: 1024 });
    try {
      async function* source() {
        yield urls('fed', 100);
        throw new Error('source failed');
      }
      await assert.rejects(async () => {
        for await (const _ of d.checkUpdate(source())) void _;
      }, /source failed/);
      assert.equal(await nextIngest(d, dir), 'http://c.example/1\n');
    } finally {
      await d.close();
    }
  });

  it('leaves no key of a checkUpdate its consumer stopped early for the next ingest to emit', async () => {
    const dir = tempDir();
    const d = await Drum.open(join(dir, 'state'), { fsync: false, workers: 0, chunkBytes: 1024, mergeEvery: 50, cacheEntries: 0, recentEntries: 0 });
    try {
      // A merge commits the first ~90 URLs; the tail of the 130 is still pending when the consumer stops.
      let got = 0;
      for await (const u of d.checkUpdate([urls('early', 130)])) {
        void u;
        if (++got === 1) break;
      }
      assert.equal(await nextIngest(d, dir), 'http://c.example/1\n');
      const again: string[] = [];
      for await (const u of d.checkUpdate([urls('early', 130)])) again.push(u);
      assert.ok(again.length > 0 && again.length < 130, `the uncommitted tail is new again: ${again.length}`);
    } finally {
      await d.close();
    }
  });

  it('reads a list given to checkUpdate as links, one per element, and a Link with its source', async () => {
    const d = await Drum.open(tempDir(), { fsync: false, workers: 0, chunkBytes: 1024 });
    try {
      const got: string[] = [];
      const rejected: string[] = [];
      const it = d.checkUpdate([[`http://pair.example/a`, `http://pair.example/a`], { url: 'b', source: 'http://pair.example/a' }, 'TAB\there\n'], {
        format: 'lines', onReject: (r) => rejected.push(r.reason),
      });
      let step = await it.next();
      for (; !step.done; step = await it.next()) got.push(step.value);
      assert.deepEqual(got, ['http://pair.example/a', 'http://pair.example/b']);
      assert.deepEqual(rejected, ['control-char']);
      assert.equal(step.value?.linksRead, 4);
    } finally {
      await d.close();
    }
  });
});
