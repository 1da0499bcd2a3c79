// The store with values against a Map model (url -> docID, firstRun,
// lastEmitted, hostCheck) over several library runs, merges of every size
// and reopens: docIDs dense from 0 in first-arrival order, never reused;
// firstRun the run that first stored the URL; lastEmitted the clock of its
// round; the host check of its host. Values are read straight from the files.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { Drum } from '../../src/engine/drum.js';
import { hostCheckOf, keyOfString } from '../../src/fingerprint/key.js';
import { readManifest } from '../../src/store/manifest.js';
import type { DrumOptions } from '../../src/options.js';
import { tempDir } from '../helpers/tmp.js';
import { readUrlValues } from '../helpers/values.js';
import { withReopens } from '../helpers/reopen.js';

const POOL = Array.from({ length: 90 }, (_, i) => `http://h${i % 7}.example/p/${Math.floor(i / 7)}`);

const config = fc.record({
  buckets: fc.constantFrom(1, 4, 16),
  hostBits: fc.constantFrom(0, 24),
  cacheEntries: fc.constantFrom(0, 64),
  recentEntries: fc.constantFrom(0, 64),
  bufferEntries: fc.integer({ min: 16, max: 64 }),
  sortEntries: fc.constantFrom(1, 5, 1 << 20),
  mergeEvery: fc.option(fc.integer({ min: 3, max: 60 }), { nil: undefined }),
  workers: fc.constantFrom(0, 1),
  // The key journal: off, tiny (folded often, values carried through the fold), default.
  journalKeys: fc.constantFrom(0, 3, 50, 1 << 18),
  reopen: fc.boolean(),
});
const batches = fc.array(fc.array(fc.nat({ max: POOL.length - 1 }), { maxLength: 120, size: 'max' }), { minLength: 1, maxLength: 5 });

interface Model {
  docID: number;
  firstRun: number;
  lastEmitted: number;
}

function hostCheckOfUrl(url: string): number {
  const b = Buffer.from(url, 'latin1');
  const hs = url.indexOf('://') + 3;
  return hostCheckOf(b, hs, url.indexOf('/', hs));
}

describe('a store with values against a Map model', () => {
  it('gives each new URL the next docID in first-arrival order, its first run and its round clock, across runs and reopens', async () => {
    await fc.assert(
      fc.asyncProperty(config, batches, async (cfg, bs) => {
        const dir = tempDir();
        let clock = 1_700_000_000_000;
        const opts: DrumOptions = {
          buckets: cfg.buckets, hostBits: cfg.hostBits, cacheEntries: cfg.cacheEntries, recentEntries: cfg.recentEntries,
          workers: cfg.workers, fsync: false, chunkBytes: 1024, mergeEvery: cfg.mergeEvery, now: () => clock, journalKeys: cfg.journalKeys,
          tuning: { bufferEntries: cfg.bufferEntries, sortEntries: cfg.sortEntries, workerDispatchMin: 0 },
        };
        const model = new Map<string, Model>();
        await withReopens(dir, opts, cfg.reopen, bs, async (d, b) => {
          clock += 3_600_000;
          const urls = b.map((i) => POOL[i]!);
          const got: string[] = [];
          for await (const u of d.checkUpdate([urls])) got.push(u);
          // An empty batch starts no run (and stores nothing the model would number).
          const run = readManifest(dir)?.run?.seq ?? 0;
          const expected: string[] = [];
          for (const u of urls) {
            if (model.has(u)) continue;
            model.set(u, { docID: model.size, firstRun: run, lastEmitted: Math.floor(clock / 1000) });
            expected.push(u);
          }
          assert.deepEqual(got, expected);
        }, async (d) => {
          const v = await d.verify();
          assert.equal(v.ok, true, JSON.stringify(v.problems));
        });
        const stored = readUrlValues(dir);
        assert.equal(stored.size, model.size);
        assert.equal(readManifest(dir)!.docIDs, model.size);
        for (const [url, m] of model) {
          const [hi, lo] = keyOfString(url, cfg.hostBits);
          const s = stored.get(`${hi}:${lo}`);
          assert.ok(s, url);
          assert.deepEqual(
            { docID: s.docID, firstRun: s.firstRun, lastEmitted: s.lastEmitted, hostCheck: s.hostCheck, flags: s.flags },
            { ...m, hostCheck: hostCheckOfUrl(url), flags: 1 },
            url,
          );
        }
      }),
      { seed: 1818, numRuns: 15, plugins: [fc.interruptAfterTimeLimit(30_000, { failOnInterrupt: true })] },
    );
  });

  it('drops a forgotten URL\'s value and gives it a new docID when it comes back, never reusing one', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, { workers: 0, fsync: false });
    const ids = (): Map<string, number> => {
      const v = readUrlValues(dir);
      return new Map(POOL.slice(0, 5).filter((u) => v.has(keyOfString(u, 24).join(':'))).map((u) => [u, v.get(keyOfString(u, 24).join(':'))!.docID]));
    };
    try {
      for await (const _ of d.checkUpdate([POOL.slice(0, 3)])) void _;
      await d.forget([POOL[1]!]);
      assert.deepEqual(ids(), new Map([[POOL[0]!, 0], [POOL[2]!, 2]]));
      for await (const _ of d.checkUpdate([[POOL[1]!, POOL[3]!]])) void _;
      assert.deepEqual(ids(), new Map([[POOL[0]!, 0], [POOL[1]!, 3], [POOL[2]!, 2], [POOL[3]!, 4]]));
      assert.equal((await d.verify()).ok, true);
    } finally {
      await d.close();
    }
  });
});
