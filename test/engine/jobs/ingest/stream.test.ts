// Drum.stream(), the node:stream face of the engine: URL lines or TSV rows
// in (any chunking), new URLs out in arrival order; close() while a stream
// is live; the run it records; and what a stream destroyed mid-way leaves
// behind.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../../../src/engine/drum.js';
import type { DrumOptions } from '../../../../src/options.js';
import { Catalog } from '../../../../src/catalog/catalog.js';
import type { LinkReject } from '../../../../src/engine/api.js';
import { tempDir } from '../../../helpers/tmp.js';

const OPTS: DrumOptions = { workers: 1, fsync: false, chunkBytes: 1024, tuning: { workerDispatchMin: 0, sortEntries: 40 } };
const urls = (n: number, seed: number): string[] => Array.from({ length: n }, (_, i) => `http://h${(i * seed) % 13}.example/p/${(i * 7919 + seed) % (n / 2)}`);

/** Every file under dir with its size and mtime. */
function listTree(dir: string): [string, number, number][] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort().map((f) => {
    const st = fs.statSync(join(dir, f));
    return [f, st.isDirectory() ? -1 : st.size, st.mtimeMs];
  });
}

async function collect(d: Drum, chunks: string[]): Promise<string[]> {
  const s = d.stream();
  let out = '';
  s.on('data', (b: Buffer | string) => (out += b.toString()));
  for (const c of chunks) if (!s.write(c)) await once(s, 'drain');
  s.end();
  await once(s, 'end');
  return out.split('\n').filter((l) => l !== '');
}

describe('Drum.stream', () => {
  it('emits exactly the URLs not seen before, in arrival order, however the input is cut', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      const seen = new Set<string>();
      for (const [batch, cut] of [[urls(3000, 3), 17], [urls(3000, 5), 4096]] as const) {
        const text = `${batch.join('\n')}\n`;
        const chunks: string[] = [];
        for (let i = 0; i < text.length; i += cut) chunks.push(text.slice(i, i + cut));
        const expected = batch.filter((u) => !seen.has(u) && (seen.add(u), true));
        assert.deepEqual(await collect(d, chunks), expected);
      }
      assert.equal((await d.stats()).storeUrls, seen.size);
    } finally {
      await d.close();
    }
  });

  it('leaves the committed store and a Drum usable from its close event when destroyed mid-way, and forgets what it had not committed', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      assert.equal((await collect(d, [`${urls(500, 3).join('\n')}\n`])).length > 0, true);
      const before = (await d.stats()).storeUrls;
      const s = d.stream();
      s.resume();
      const fresh = Array.from({ length: 20_000 }, (_, i) => `http://fresh${i % 50}.example/${i}`);
      s.write(`${fresh.join('\n')}\n`);
      await new Promise((r) => setTimeout(r, 5));
      s.destroy();
      await once(s, 'close');
      // Its 'close' comes once its cleanup is done: the next job may start at once, and sees a sound store.
      const next = await collect(d, [`${fresh.join('\n')}\n`]);
      const v = await d.verify();
      assert.equal(v.ok, true, JSON.stringify(v.problems));
      // Whatever the destroyed stream had committed is a duplicate now; the rest is new, once each.
      const after = (await d.stats()).storeUrls;
      assert.equal(after, before + fresh.length);
      assert.equal(new Set(next).size, next.length);
    } finally {
      await d.close();
    }
  });

  it('closes cleanly right after a stream is destroyed mid-way, and nothing writes to the state directory after close', async () => {
    const dir = tempDir();
    // Inline parsing and frequent merges: the destroyed stream's last push is most likely merging when close() is called.
    const opts: DrumOptions = { workers: 0, fsync: false, chunkBytes: 1024, mergeEvery: 500 };
    const d = await Drum.open(dir, opts);
    const s = d.stream();
    s.resume();
    s.write(`${Array.from({ length: 20_000 }, (_, i) => `http://c${i % 40}.example/${i}`).join('\n')}\n`);
    await new Promise((r) => setTimeout(r, 5));
    s.destroy();
    await d.close();
    const snapshot = (): string => JSON.stringify(listTree(dir));
    const closed = snapshot();
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(snapshot(), closed, 'the state directory changed after close() returned');
    const again = await Drum.open(dir, opts);
    try {
      const v = await again.verify();
      assert.equal(v.ok, true, JSON.stringify(v.problems));
    } finally {
      await again.close();
    }
  });

  it('reads TSV source<TAB>target rows, resolving each target against its source, and reports rejects by line', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      const s = d.stream();
      const rejects: LinkReject[] = [];
      s.on('reject', (r: LinkReject) => rejects.push(r));
      const text = 'source\ttarget\nhttp://a.example/dir/\tpage\nhttp://a.example/dir/\t../top#x\nhttp://a.example/\tmailto:x@a.example\n';
      const got = await collectFrom(s, [text.slice(0, 20), text.slice(20)]);
      assert.deepEqual(got, ['http://a.example/dir/page', 'http://a.example/top']);
      assert.deepEqual(rejects.map((r) => [r.index, r.reason]), [[4, 'unsupported-scheme']]);
      assert.equal(s.report?.uniqueUrls, 2);
      assert.equal(s.report?.rejectedLines, 1);
    } finally {
      await d.close();
    }
  });

  it('lets close() wait for a live stream to end, so what it carried is stored and printed', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, OPTS);
    const s = d.stream();
    let out = '';
    s.on('data', (b: Buffer) => (out += b.toString()));
    const closed = d.close();
    s.write('http://live.example/1\nhttp://live.example/2\n');
    setTimeout(() => s.end('http://live.example/1\nhttp://live.example/3\n'), 20);
    await closed;
    assert.equal(out, 'http://live.example/1\nhttp://live.example/2\nhttp://live.example/3\n');
    const again = await Drum.open(dir, OPTS);
    try {
      assert.equal((await again.stats()).storeUrls, 3);
    } finally {
      await again.close();
    }
  });

  it('records its run in the catalog and its hosts in the host table', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, OPTS);
    const s = d.stream();
    await collectFrom(s, ['http://h1.example/a\nhttp://h1.example/b\nhttp://h2.example/a\n']);
    await d.close();
    const cat = await Catalog.open(dir, { readOnly: true });
    try {
      const runs = await cat.listRuns(5);
      assert.equal(runs.length, 1);
      assert.equal(runs[0]!.status, 'complete');
      assert.equal(runs[0]!.runId, s.report?.runId);
      assert.equal(runs[0]!.counts.uniqueUrls, 3);
      assert.equal(await cat.hostCount('h1.example'), 2);
    } finally {
      await cat.close();
    }
  });
});

async function collectFrom(s: NodeJS.ReadWriteStream, chunks: string[]): Promise<string[]> {
  let out = '';
  s.on('data', (b: Buffer | string) => (out += b.toString()));
  for (const c of chunks) if (!s.write(c)) await once(s, 'drain');
  s.end();
  await once(s, 'end');
  return out.split('\n').filter((l) => l !== '');
}
