// Smoke test of scripts/tier-sweep.ts on a tiny synthetic crawl (2,000
// links, cache off, one Bloom setting, inline parsing, 4 buckets, rounds of 1,024 keys): the sweep runs
// the real engine, every configuration finds the same new URLs, turning both
// RAM tiers off sends every test to disk, and the Bloom rows add up. No
// timing assertions; the measured tables live in docs/tiers.md.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { cacheConfigs, renderMarkdown, runSweep, type SweepResult } from '../../scripts/tier-sweep.js';
import { DEFAULTS } from '../../src/options.js';
import { meanFpOverFill } from '../../scripts/lib/tiers/tier-runs.js';
import { blockedFpRate } from '../../src/tiers/bloom.js';

describe('tier sweep', () => {
  let work = '';
  let r: SweepResult;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), 'drum-tier-sweep-test-'));
    r = await runSweep({
      links: 2000, seed: 1, work, heritrix: null, sizes: [], bits: [10], roundEntries: 1024,
      only: new Set(['fresh', 'bloom']), base: { workers: 0, buckets: 4 },
    });
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('sweeps the cache off and each size, with the recent table at its default and off', () => {
    assert.deepEqual(cacheConfigs([10]).map((c) => [c.cacheEntries, c.recentEntries]), [[0, DEFAULTS.recentEntries], [1024, DEFAULTS.recentEntries], [0, 0], [1024, 0]]);
    assert.equal(r.scenarios.length, 1);
    assert.deepEqual(r.scenarios[0]!.rows.map((x) => [x.cacheEntries, x.recentEntries]), [[0, DEFAULTS.recentEntries], [0, 0]]);
  });

  it('finds the same new URLs in every configuration', () => {
    const rows = r.scenarios[0]!.rows;
    assert.ok(rows[0]!.uniqueUrls > 0 && rows[0]!.uniqueUrls < rows[0]!.tests);
    for (const row of rows) assert.equal(row.uniqueUrls, rows[0]!.uniqueUrls);
  });

  it('answers repeats in RAM with the recent table on, and with both tiers off sends every test but in-chunk repeats to disk', () => {
    const [onOff, offOff] = r.scenarios[0]!.rows;
    assert.ok(onOff!.answeredInRam > 0.5, `answeredInRam ${onOff!.answeredInRam}`);
    assert.ok(onOff!.answeredInRam >= offOff!.answeredInRam);
    assert.equal(offOff!.cacheHits + offOff!.recentHits, 0);
    assert.equal(offOff!.answeredInRam, offOff!.chunkHits / offOff!.tests);
    assert.equal(offOff!.diskLookups, offOff!.tests - offOff!.chunkHits);
  });

  it('counts every new URL of the second batch as definitely new or a false positive, and lossy mode only drops', () => {
    const b = r.bloom[0]!;
    assert.equal(b.definitelyNew + b.falsePositives, b.exactUnique);
    assert.ok(b.lossyUnique <= b.exactUnique);
    assert.equal(b.wronglyDropped, b.exactUnique - b.lossyUnique);
    assert.ok(b.keysAtStart > 0 && b.blocks > 0);
  });

  it('renders the cache and Bloom tables as Markdown', () => {
    const md = renderMarkdown(r);
    assert.match(md, /\| hot cache \| recent table \|/);
    assert.match(md, /\| bits\/key \| k \| blocks \|/);
    assert.match(md, /identical in every row/);
  });

  it('averages the blocked FP rate between the start and end fill, up to the filter\'s capacity', () => {
    const m = meanFpOverFill(100, 7, 3000, 2000);
    assert.ok(m > blockedFpRate(100, 3000, 7) && m < blockedFpRate(100, 5000, 7));
    // Past its capacity the filter takes no key: the rest meet it at that fill.
    const capped = meanFpOverFill(100, 7, 3000, 2000, 4000);
    assert.ok(capped > meanFpOverFill(100, 7, 3000, 1000) && capped < blockedFpRate(100, 4000, 7));
  });
});
