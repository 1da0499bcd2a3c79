// drum ingest --revisit-after against a Map model (url -> lastEmitted) with a
// fake clock: each run emits, into revisit-NNNNN.txt and in arrival order,
// every stored URL of its input last emitted at least the interval before
// the run started, once, and moves its last emission to the run's clock;
// new URLs go to unique-NNNNN.txt as always. Across runs, reopens (warm tier
// caches from earlier runs), small merges and tiny tiers.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { DrumOptions } from '../../src/options.js';
import { Drum } from '../../src/engine/drum.js';
import { isDrumError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';
import { readUrlValues } from '../helpers/values.js';
import { withReopens } from '../helpers/reopen.js';
import { outputLines } from '../helpers/run-output.js';
import { keyOfString } from '../../src/fingerprint/key.js';

const POOL = Array.from({ length: 60 }, (_, i) => `http://h${i % 5}.example/p/${Math.floor(i / 5)}`);

const config = fc.record({
  cacheEntries: fc.constantFrom(0, 64),
  recentEntries: fc.constantFrom(0, 64),
  lineMemoEntries: fc.constantFrom(0, 1024),
  mergeEvery: fc.option(fc.integer({ min: 3, max: 40 }), { nil: undefined }),
  workers: fc.constantFrom(0, 1),
  reopen: fc.boolean(),
});
const runs = fc.array(
  fc.record({
    urls: fc.array(fc.nat({ max: POOL.length - 1 }), { minLength: 1, maxLength: 80, size: 'max' }),
    revisit: fc.option(fc.constantFrom(0, 3600, 86400), { nil: undefined }),
    hoursLater: fc.integer({ min: 0, max: 60 }),
  }),
  { minLength: 1, maxLength: 5 },
);

describe('revisit against a Map model with a fake clock', () => {
  it('emits each due stored URL once per run in arrival order and moves its last emission to the run clock', async () => {
    await fc.assert(
      fc.asyncProperty(config, runs, async (cfg, rs) => {
        const dir = tempDir();
        const state = join(dir, 'state');
        let clock = 1_700_000_000_000;
        const opts: DrumOptions = {
          cacheEntries: cfg.cacheEntries, recentEntries: cfg.recentEntries, lineMemoEntries: cfg.lineMemoEntries, workers: cfg.workers,
          fsync: false, chunkBytes: 1024, mergeEvery: cfg.mergeEvery, now: () => clock, tuning: { workerDispatchMin: 0 },
        };
        const model = new Map<string, number>(); // url -> lastEmitted (unix s)
        await withReopens(state, opts, cfg.reopen, rs, async (d, r, k) => {
          clock += r.hoursLater * 3_600_000 + 1000;
          const now = Math.floor(clock / 1000);
          const input = join(dir, `in-${k}.txt`);
          const urls = r.urls.map((i) => POOL[i]!);
          fs.writeFileSync(input, urls.map((u) => `${u}\n`).join(''));
          const fresh: string[] = [];
          const due: string[] = [];
          const seen = new Set<string>();
          for (const u of urls) {
            if (seen.has(u)) continue;
            seen.add(u);
            const last = model.get(u);
            if (last === undefined) {
              fresh.push(u);
              model.set(u, now);
            } else if (r.revisit !== undefined && last < now && now - last >= r.revisit) {
              due.push(u);
              model.set(u, now);
            }
          }
          const out = join(dir, `out-${k}`);
          const report = await d.ingest({ inputs: [input], outDir: out, revisitAfter: r.revisit, force: true });
          assert.deepEqual(outputLines(out, 'unique'), fresh, `run ${k}: new`);
          assert.deepEqual(outputLines(out, 'revisit'), due, `run ${k}: due`);
          assert.equal(report.revisitUrls, due.length);
        });
        const stored = readUrlValues(state);
        for (const [u, last] of model) assert.equal(stored.get(keyOfString(u, 24).join(':'))?.lastEmitted, last, u);
      }),
      { seed: 777, numRuns: 25, plugins: [fc.interruptAfterTimeLimit(40_000, { failOnInterrupt: true })] },
    );
  });

  it('refuses a revisit interval that is not whole seconds >= 0 with DRUM_BAD_OPTION, before the run starts', async () => {
    const dir = tempDir();
    fs.writeFileSync(join(dir, 'a.txt'), 'http://a.example/\n');
    const d = await Drum.open(join(dir, 'state'), { workers: 0, fsync: false });
    try {
      for (const revisitAfter of [-5, 1.5, Number.NaN]) {
        await assert.rejects(d.ingest({ inputs: [join(dir, 'a.txt')], revisitAfter }), (e) => isDrumError(e, 'DRUM_BAD_OPTION'), String(revisitAfter));
      }
      assert.equal((await d.stats()).storeUrls, 0);
    } finally {
      await d.close();
    }
  });
});
