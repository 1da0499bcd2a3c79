// The Bloom filter against a plain Set model, with the key journal from
// tiny to the default: batch after batch, ingested or fed through
// checkUpdate with --bloom gate or lossy, a store whose key files hold a key
// names a Bloom file; that file and the journal's keys hold every stored key
// (the journal alone while the key files are empty: the session builds the
// filter from it); `gate` emits exactly the URLs the Set has not seen, and
// `lossy` never emits one it has (it may drop new ones, which are then not
// stored).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Drum } from '../../../src/engine/drum.js';
import type { DrumOptions } from '../../../src/options.js';
import { readManifest } from '../../../src/store/manifest.js';
import { unanswered } from '../../helpers/bloom-store.js';
import { checkUpdateAll } from '../../helpers/drum.js';
import { withReopens } from '../../helpers/reopen.js';
import { tempDir } from '../../helpers/tmp.js';

// Already-canonical URLs over a few hosts, so the model is a Set of strings.
const POOL = Array.from({ length: 150 }, (_, i) => `http://h${i % 7}.example/p/${Math.floor(i / 7)}`);

const config = fc.record({
  bloom: fc.constantFrom<'gate' | 'lossy'>('gate', 'lossy'),
  // 2 bits a key: a crowded filter, so that lossy drops new URLs now and then.
  bloomBitsPerKey: fc.constantFrom(2, 10),
  journalKeys: fc.constantFrom(1, 7, 64, 1 << 18),
  buckets: fc.constantFrom(1, 8),
  cacheEntries: fc.constantFrom(0, 64),
  recentEntries: fc.constantFrom(0, 64),
  lineMemoEntries: fc.constantFrom(0, 1 << 20),
  reopen: fc.boolean(),
});

const steps = fc.array(
  fc.record({ ingest: fc.boolean(), urls: fc.array(fc.nat({ max: POOL.length - 1 }), { maxLength: 120, size: 'max' }) }),
  { minLength: 1, maxLength: 6 },
);

/** The new URLs of one batch: through ingest (a file) or checkUpdate. */
async function feed(d: Drum, dir: string, k: number, ingest: boolean, urls: string[]): Promise<string[]> {
  if (!ingest) return checkUpdateAll(d, urls);
  const input = join(dir, `batch-${k}.txt`);
  fs.writeFileSync(input, urls.map((u) => `${u}\n`).join(''));
  const r = await d.ingest({ inputs: [input], outDir: join(dir, `out-${k}`), force: true });
  return r.outputFiles.flatMap((f) => fs.readFileSync(join(r.outDir, f), 'utf8').split('\n').filter((l) => l !== ''));
}

/** The stored URLs of `seen` that neither the Bloom file nor the key journal holds. */
async function notAnswered(state: string, seen: Set<string>): Promise<string[]> {
  const m = readManifest(state)!;
  const keyFilesEmpty = m.buckets.every((e) => !e || e.keys === 0);
  assert.ok(m.bloom || keyFilesEmpty, 'a store whose key files hold a key names a Bloom file');
  return unanswered(state, m, seen);
}

describe('the Bloom filter and the key journal against a Set model', () => {
  it('holds every stored key, and gate emits exactly what the Set has not seen while lossy never emits what it has', async () => {
    await fc.assert(
      fc.asyncProperty(config, steps, async (cfg, ss) => {
        const dir = tempDir();
        const state = join(dir, 'state');
        const { reopen, ...rest } = cfg;
        const opts: DrumOptions = { ...rest, workers: 0, fsync: false, chunkBytes: 1024 };
        const seen = new Set<string>();
        await withReopens(state, opts, reopen, ss, async (d, step, k) => {
          const urls = step.urls.map((i) => POOL[i]!);
          const expected = [...new Set(urls.filter((u) => !seen.has(u)))];
          const got = await feed(d, dir, k, step.ingest, urls);
          if (cfg.bloom === 'gate') assert.deepEqual(got, expected);
          else assert.deepEqual(got, expected.filter((u) => got.includes(u)), 'lossy emits only unseen URLs, once, in order');
          for (const u of got) seen.add(u);
          assert.equal(readManifest(state)!.storeUrls, seen.size);
          if (seen.size > 0) assert.deepEqual(await notAnswered(state, seen), []);
        }, async (d) => {
          const v = await d.verify();
          assert.equal(v.ok, true, JSON.stringify(v.problems));
        });
      }),
      { seed: 1618, numRuns: 50, endOnFailure: true },
    );
  });
});
