// How many new URLs `--bloom lossy` drops, against a plain Set model: a
// store of random size is made exactly (`gate`), then rounds of random size
// — up to ten times the store in new URLs, mixed with stored ones — go
// through ingest or checkUpdate in lossy mode, in one long-running Drum or
// reopened before each, with or without the key journal and with small
// merge rounds or one. Lossy never emits a URL the Set holds, and the new
// URLs it drops stay under the filter's design rate (its nominal rate at
// the bits per key, which a filter filled to its capacity reaches) with a
// generous margin; each run's report expects about as many as it dropped.
// A filter that took every new key past its size dropped nearly all of them.
// Does not check gate's exact answer (journal-bloom.property.test.ts does).
// REQUIRES: a build (npm run build); writes only under tempDir().

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Drum } from '../../../src/engine/drum.js';
import type { DrumOptions } from '../../../src/options.js';
import type { RunReport } from '../../../src/stats/report.js';
import { blockedFpRate, optimalK } from '../../../src/tiers/bloom.js';
import { ingestAll, withDrum } from '../../helpers/drum.js';
import { withReopens } from '../../helpers/reopen.js';
import { tempDir } from '../../helpers/tmp.js';

const url = (i: number): string => `http://h${i % 97}.example/p/${i}`;

const config = fc.record({
  bloomBitsPerKey: fc.constantFrom(4, 10),
  journalKeys: fc.constantFrom(0, 64, 1 << 18),
  mergeEvery: fc.constantFrom(undefined, 3000),
  reopen: fc.boolean(),
  store: fc.integer({ min: 0, max: 3000 }),
});

const rounds = fc.array(
  fc.record({ ingest: fc.boolean(), fresh: fc.integer({ min: 0, max: 20_000 }), stored: fc.integer({ min: 0, max: 3000 }), seed: fc.nat() }),
  { minLength: 1, maxLength: 3 },
);

/** The nominal rate at `bits` bits a key: what a filter filled to its capacity answers at. */
function designRate(bits: number): number {
  return blockedFpRate(1e6, (1e6 * 512) / bits, optimalK(bits));
}

/** The new URLs of one batch through checkUpdate (which stores them), and its report. */
async function checkUpdateWithReport(d: Drum, urls: string[]): Promise<{ got: string[]; report: RunReport | null }> {
  const it = d.checkUpdate([urls]);
  const got: string[] = [];
  for (let r = await it.next(); ; r = await it.next()) {
    if (r.done === true) return { got, report: r.value };
    got.push(r.value);
  }
}

/** The new URLs of one batch through an ingest of a file written in `dir`, and its report. */
async function ingestWithReport(d: Drum, dir: string, name: string, urls: string[]): Promise<{ got: string[]; report: RunReport }> {
  const input = join(dir, `${name}.txt`);
  fs.writeFileSync(input, urls.map((u) => `${u}\n`).join(''));
  const report = await d.ingest({ inputs: [input], outDir: join(dir, `out-${name}`), force: true });
  const got = report.outputFiles.flatMap((f) => fs.readFileSync(join(report.outDir, f), 'utf8').split('\n').filter((l) => l !== ''));
  return { got, report };
}

/** `fresh` new URLs from `next` on and `stored` of the Set's, shuffled by `seed`. */
function batch(next: number, fresh: number, stored: number, seen: string[], seed: number): string[] {
  const urls = Array.from({ length: fresh }, (_, i) => url(next + i));
  for (let i = 0; i < stored && seen.length > 0; i++) urls.push(seen[(seed + i * 7919) % seen.length]!);
  let s = seed >>> 0;
  for (let i = urls.length - 1; i > 0; i--) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = s % (i + 1);
    [urls[i], urls[j]] = [urls[j]!, urls[i]!];
  }
  return urls;
}

describe('lossy mode against a Set model, rounds of up to ten times the store in new URLs', () => {
  it('never emits a stored URL and drops new ones under the filter\'s design rate, about as many as the report expects', async () => {
    await fc.assert(
      fc.asyncProperty(config, rounds, async (cfg, rs) => {
        const dir = tempDir();
        const state = join(dir, 'state');
        const base: DrumOptions = { workers: 0, fsync: false, bloomBitsPerKey: cfg.bloomBitsPerKey, journalKeys: cfg.journalKeys };
        const first = Array.from({ length: cfg.store }, (_, i) => url(i));
        const seen = new Set(await withDrum(state, { ...base, bloom: 'gate', journalKeys: 0 }, (d) => ingestAll(d, dir, 'store', first)));
        assert.equal(seen.size, cfg.store);
        let next = cfg.store;
        const p = designRate(cfg.bloomBitsPerKey);
        const opts: DrumOptions = { ...base, bloom: 'lossy', ...(cfg.mergeEvery === undefined ? {} : { mergeEvery: cfg.mergeEvery }) };
        await withReopens(state, opts, cfg.reopen, rs, async (d, r, k) => {
          const urls = batch(next, r.fresh, r.stored, [...seen], r.seed);
          next += r.fresh;
          const { got, report } = r.ingest ? await ingestWithReport(d, dir, `round-${k}`, urls) : await checkUpdateWithReport(d, urls);
          for (const u of got) assert.equal(seen.has(u), false, `${u} was stored already`);
          assert.equal(new Set(got).size, got.length, 'each new URL once');
          const dropped = r.fresh - got.length;
          const allowed = 1.25 * p * r.fresh + 5 * Math.sqrt(p * r.fresh) + 10;
          assert.ok(dropped <= allowed, `${dropped} of ${r.fresh} new URLs dropped, at most ${allowed.toFixed(0)} allowed`);
          if (report !== null) {
            const e = report.tiers.bloom.expectedWronglyDropped;
            assert.ok(Math.abs(dropped - e) <= 0.5 * e + 5 * Math.sqrt(e) + 10, `${dropped} dropped, ${e.toFixed(1)} expected`);
          }
          for (const u of got) seen.add(u);
        });
      }),
      { seed: 20261129, numRuns: 20, endOnFailure: true },
    );
  });
});
