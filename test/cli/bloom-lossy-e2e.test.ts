// End-to-end tests, with the real bin/drum, of how many new URLs a `--bloom
// lossy` run drops when it brings far more new keys than its Bloom filter
// was sized for: one round into a young store (the filter read from its
// Bloom file), a run after small rounds that went to the key journal, a
// new store's first run (the filter the session builds in RAM), and rounds
// of one process after the merge that rebuilt the filter. Each must drop
// about what the report's expectedWronglyDropped says, and no more than the
// filter's design rate allows; a filter that filled up says so. Does not
// measure time (docs/engineering-log.md) or test gate mode's exact answer
// (bloom-rewrite-e2e.test.ts and the property tests do).
// REQUIRES: a built bin/drum (npm run build).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { RunReport } from '../../src/stats/report.js';
import { drum } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const FLAGS = ['--no-fsync', '--workers', '0'];

/** A file of `n` distinct URLs from `from` on, over 97 hosts. */
function urlFile(dir: string, name: string, from: number, n: number): string {
  const path = join(dir, name);
  fs.writeFileSync(path, Array.from({ length: n }, (_, i) => `http://h${(from + i) % 97}.example/p/${from + i}\n`).join(''));
  return path;
}

async function ingest(state: string, out: string, args: string[], verbose = false): Promise<{ report: RunReport; stdout: string }> {
  const r = await drum(['ingest', verbose ? '--verbose' : '--quiet', ...FLAGS, '--state', state, '--out', out, ...args]);
  assert.equal(r.status, 0, r.stderr);
  return { report: JSON.parse(fs.readFileSync(join(out, 'report.json'), 'utf8')) as RunReport, stdout: r.stdout };
}

/**
 * A lossy run of `fresh` URLs new to the store dropped no more than the
 * design rate of 10 bits a key allows (0.96 %, here at most 2 %), and
 * about what its report expected (within a factor of two, give or take 50).
 */
function assertDropsAsPromised(r: RunReport, fresh: number): number {
  const dropped = fresh - r.uniqueUrls;
  const expected = r.tiers.bloom.expectedWronglyDropped;
  const what = `${dropped} of ${fresh} new URLs dropped, ${expected.toFixed(0)} expected`;
  assert.ok(dropped <= 2 * expected + 50, what);
  assert.ok(dropped <= 0.02 * fresh, what);
  assert.ok(dropped >= expected / 2 - 50, what);
  return dropped;
}

describe('a lossy run bringing far more new keys than its Bloom filter was sized for', () => {
  it('drops about what its report expects from a round of 200,000 new URLs into a store of 2,000, and says the filter filled up', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    await ingest(state, join(dir, 'a'), ['--bloom', 'gate', '--journal-keys', '0', urlFile(dir, 'a.txt', 0, 2000)]);
    const c = await ingest(state, join(dir, 'c'), ['--bloom', 'lossy', '--journal-keys', '0', urlFile(dir, 'c.txt', 2000, 200_000)], true);
    assert.equal(c.report.io.merges, 1);
    assertDropsAsPromised(c.report, 200_000);
    assert.ok(c.report.tiers.bloom.notAdded > 190_000, 'the 3,000-key filter took only its own size');
    assert.match(c.stdout, /bloom full\s+held the keys it was sized for: [\d,]+ new keys not added/);
    assert.match(c.stdout, /wrongly dropped\s+~[\d,]+ new URLs expected/);
  });

  it('drops no more after small rounds went to the key journal: the next process does not fill its filter with them', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    await ingest(state, join(dir, 'a'), ['--bloom', 'gate', '--journal-keys', '0', urlFile(dir, 'a.txt', 0, 2000)]);
    for (const [i, from] of [[1, 10_000], [2, 40_000]] as const) {
      const r = await ingest(state, join(dir, `j${i}`), ['--bloom', 'lossy', urlFile(dir, `j${i}.txt`, from, 20_000)]);
      assert.equal(r.report.tiers.journal.rounds, 1, 'a journal round');
      assertDropsAsPromised(r.report, 20_000);
    }
  });

  it('drops no more in a new store\'s first run than its key journal holds', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    const r = await ingest(state, join(dir, 'a'), ['--bloom', 'lossy', '--journal-keys', '1000', urlFile(dir, 'a.txt', 0, 200_000)]);
    assertDropsAsPromised(r.report, 200_000);
    assert.ok(r.report.tiers.bloom.definitelyNew > 0, 'a filter answered');
  });

  it('drops no more in rounds of one process after each merge rebuilt the filter for the store it then held', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    await ingest(state, join(dir, 'a'), ['--bloom', 'gate', '--journal-keys', '0', urlFile(dir, 'a.txt', 0, 2000)]);
    const r = await ingest(state, join(dir, 'c'), ['--bloom', 'lossy', '--journal-keys', '0', '--merge-every', '20000', urlFile(dir, 'c.txt', 2000, 200_000)]);
    assertDropsAsPromised(r.report, 200_000);
    assert.ok(r.report.io.merges >= 5, `${r.report.io.merges} merges`);
  });
});
