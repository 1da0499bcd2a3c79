import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Drum } from '../../../../src/engine/drum.js';
import { isDrumError } from '../../../../src/errors.js';
import type { DrumOptions } from '../../../../src/options.js';
import { readManifest } from '../../../../src/store/manifest.js';
import { tempDir } from '../../../helpers/tmp.js';
import { checkUpdateAll } from '../../../helpers/drum.js';

// Canonical URLs over a few hosts, and raw forms the default policy folds into them.
const POOL = Array.from({ length: 140 }, (_, i) => `http://h${i % 9}.example/p/${Math.floor(i / 9)}${i % 4 === 0 ? '?a=1' : ''}`);
const RAW = [...POOL, ...POOL.map((u) => u.replace('http://h', 'HTTP://H') + '#f'), 'mailto:nobody@h1.example'];
const canonicalOf = (raw: string): string | null => (raw.startsWith('mailto:') ? null : raw.replace('#f', '').replace('HTTP://H', 'http://h'));

async function resolveAll(d: Drum, dir: string, lines: string[]): Promise<{ answers: [number | null, string][]; rejects: number[] }> {
  const input = join(dir, `q-${Math.random().toString(36).slice(2)}.txt`);
  fs.writeFileSync(input, lines.join('\n') + '\n');
  const answers: [number | null, string][] = [];
  const rejects: number[] = [];
  await d.resolve({ inputs: [input], format: 'lines', onResolved: (doc, url) => answers.push([doc, url]), onReject: (r) => rejects.push(r.line) });
  return { answers, rejects };
}

describe('Drum.resolve', () => {
  it('gives each link its URL\'s docID in input order, null when not stored, and the docID gives the URL back, against a Map model', async () => {
    const config = fc.record({
      buckets: fc.constantFrom(1, 8),
      sortEntries: fc.constantFrom(2, 40, 1 << 20),
      resolveRoundLinks: fc.constantFrom(1, 7, 1 << 21),
      cacheEntries: fc.constantFrom(0, 64),
      maxBucketEntries: fc.option(fc.integer({ min: 4, max: 100 }), { nil: undefined }),
      reopen: fc.boolean(),
    });
    const idx = fc.nat({ max: RAW.length - 1 });
    const rounds = fc.array(fc.record({ store: fc.array(idx, { maxLength: 80 }), ask: fc.array(idx, { maxLength: 60 }) }), { minLength: 1, maxLength: 3 });
    await fc.assert(
      fc.asyncProperty(config, rounds, async (cfg, rs) => {
        const dir = tempDir();
        const opts: DrumOptions = {
          buckets: cfg.buckets, cacheEntries: cfg.cacheEntries, lineMemoEntries: 64, workers: 0, fsync: false,
          tuning: { sortEntries: cfg.sortEntries, resolveRoundLinks: cfg.resolveRoundLinks, maxBucketEntries: cfg.maxBucketEntries },
        };
        const model = new Map<string, number>();
        let d = await Drum.open(dir, opts);
        try {
          for (const r of rs) {
            for (const u of await checkUpdateAll(d, r.store.map((i) => RAW[i]!))) model.set(u, model.size);
            if (cfg.reopen) {
              await d.close();
              d = await Drum.open(dir, opts);
            }
            const lines = r.ask.map((i) => RAW[i]!);
            const { answers, rejects } = await resolveAll(d, dir, lines);
            const expected: [number | null, string][] = [];
            const expectedRejects: number[] = [];
            lines.forEach((l, k) => {
              const c = canonicalOf(l);
              if (c === null) expectedRejects.push(k + 1);
              else expected.push([model.get(c) ?? null, c]);
            });
            assert.deepEqual(answers, expected);
            assert.deepEqual(rejects, expectedRejects);
            const docs = answers.filter((a) => a[0] !== null);
            assert.deepEqual(await d.urls(docs.map((a) => a[0]!)), docs.map((a) => a[1]));
          }
        } finally {
          await d.close();
        }
      }),
      { numRuns: 20 },
    );
  });

  it('reads a read-only store, and refuses a keys-only one with DRUM_NEEDS_UPGRADE', async () => {
    const dir = tempDir();
    const w = await Drum.open(dir, { workers: 0, fsync: false });
    await checkUpdateAll(w, ['http://a.example/1', 'http://b.example/2']);
    await w.close();
    const r = await Drum.open(dir, { readOnly: true, workers: 0 });
    try {
      assert.deepEqual((await resolveAll(r, tempDir(), ['http://b.example/2', 'http://c.example/3'])).answers, [[1, 'http://b.example/2'], [null, 'http://c.example/3']]);
    } finally {
      await r.close();
    }
    const k = tempDir();
    const keysOnly = await Drum.open(k, { workers: 0, fsync: false, values: false });
    try {
      await checkUpdateAll(keysOnly, ['http://a.example/1']);
      await assert.rejects(resolveAll(keysOnly, k, ['http://a.example/1']), (e) => isDrumError(e, 'DRUM_NEEDS_UPGRADE'));
    } finally {
      await keysOnly.close();
    }
  });

  it('answers a round of more distinct links than its first key table holds, repeats too', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, { workers: 0, fsync: false });
    try {
      const stored = Array.from({ length: 30_000 }, (_, i) => `http://s${i % 97}.example/${i}`);
      await checkUpdateAll(d, stored);
      const lines = [...Array.from({ length: 60_000 }, (_, i) => (i % 2 === 0 ? stored[i >>> 1]! : `http://n${i % 89}.example/${i}`)), stored[5]!, 'http://n1.example/1'];
      const { answers } = await resolveAll(d, dir, lines);
      assert.equal(answers.length, lines.length);
      answers.forEach(([doc, url], k) => assert.deepEqual([doc, url], [k < 60_000 ? (k % 2 === 0 ? k >>> 1 : null) : k === 60_000 ? 5 : null, lines[k]]));
    } finally {
      await d.close();
    }
  });

  it('counts every file of a bucket\'s values, its deltas too, in the bytes of the store it reports', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, { workers: 0, fsync: false, buckets: 4, journalKeys: 0 });
    try {
      const urls = Array.from({ length: 3000 }, (_, i) => `http://h${i % 13}.example/${i}`);
      await checkUpdateAll(d, urls.slice(0, 2000));
      await checkUpdateAll(d, urls.slice(2000));
      const m = readManifest(dir)!;
      assert.ok(m.buckets.some((e) => (e?.values?.deltas?.length ?? 0) > 0), 'the second batch wrote values deltas');
      // The key files and every values file the manifest names, each as long as it is on disk.
      const named = m.buckets.flatMap((e) => (e ? [e.file, e.values!.file, ...(e.values!.deltas ?? []).map((x) => x.file)] : []));
      const onDisk = named.reduce((a, f) => a + fs.statSync(join(dir, f)).size, 0);
      const input = join(dir, 'q.txt');
      fs.writeFileSync(input, `${urls[0]}\n`);
      const r = await d.resolve({ inputs: [input], format: 'lines', onResolved: () => {} });
      assert.equal(r.storeBytes, onDisk);
    } finally {
      await d.close();
    }
  });
});
