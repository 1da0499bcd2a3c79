// End-to-end tests of the Bloom filter of a store whose keys are in the key
// journal, with the real bin/drum and the bundled Heritrix outlinks sample
// (3,623 distinct URLs, fewer than the journal's 262,144): `ingest --bloom
// gate` into a new store answers from a filter of the journal's keys (no
// Bloom file yet: `drum stats` says when it comes), the report counts the
// journal's keys after the run, the next ingest is gated by the filter, and
// `drum repair --bloom` writes the filter of a store whose URLs are all in
// the journal.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { drum, ingestReport as ingest, repoRoot, storeStats as stats, uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const SAMPLE = join(repoRoot, 'data', 'archive-org-2008-outlinks.tsv.gz');
const SAMPLE_URLS = 3623;

describe('the Bloom filter of a store whose URLs are in the key journal', () => {
  it('is built by `ingest --bloom gate` into a new store and gates the next ingest', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    const a = await ingest(state, join(dir, 'a'), ['--bloom', 'gate', SAMPLE]);
    assert.equal(a.uniqueUrls, SAMPLE_URLS);
    assert.equal(a.tiers.journal.rounds, 1);
    assert.equal(a.tiers.journal.keys, SAMPLE_URLS, 'the report counts the keys the run left in the journal');
    assert.ok(a.tiers.bloom.sizeBytes > 0, 'a filter answered the first run');
    assert.equal(a.tiers.bloom.definitelyNew + a.tiers.bloom.falsePositives, SAMPLE_URLS);
    const s = await stats(state);
    assert.equal(s.journal!.keys, SAMPLE_URLS);
    assert.equal(s.bloom, null, 'no Bloom file until the journal is folded');
    const text = await drum(['stats', '--state', state]);
    assert.match(text.stdout, /bloom\s+none on disk: every URL is in the key journal/);
    // Half stored URLs, half new: the journal answers the stored ones, the filter the new ones.
    const stored = uniques(join(dir, 'a')).slice(0, 500);
    const fresh = Array.from({ length: 500 }, (_, i) => `http://fresh${i % 19}.example/page/${i}`);
    const input = join(dir, 'b.txt');
    fs.writeFileSync(input, [...stored, ...fresh].map((u) => `${u}\n`).join(''));
    const b = await ingest(state, join(dir, 'b'), ['--bloom', 'gate', input]);
    assert.deepEqual(uniques(join(dir, 'b')), fresh);
    assert.ok(b.tiers.bloom.sizeBytes > 0, 'a filter answered the run');
    assert.equal(b.tiers.bloom.definitelyNew + b.tiers.bloom.falsePositives, 500);
    assert.equal(b.tiers.journal.keys, SAMPLE_URLS + 500);
    // A merging round folds the journal and writes the Bloom file of every stored URL.
    const one = join(dir, 'c.txt');
    fs.writeFileSync(one, 'http://fresh.example/one\n');
    const c = await ingest(state, join(dir, 'c'), ['--bloom', 'gate', '--journal-keys', '0', one]);
    assert.equal(c.uniqueUrls, 1);
    assert.equal((await stats(state)).bloom!.keys, SAMPLE_URLS + 501);
    assert.equal((await drum(['verify', '--quiet', '--state', state])).status, 0);
  });

  it('is rebuilt by `drum repair --bloom` from the journal of a store ingested without one', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    await ingest(state, join(dir, 'a'), [SAMPLE]);
    assert.equal((await stats(state)).bloom, null);
    const r = await drum(['repair', '--bloom', '--json', '--state', state]);
    assert.equal(r.status, 0, r.stderr);
    assert.equal((JSON.parse(r.stdout) as { bloom: { keys: number } }).bloom.keys, SAMPLE_URLS);
    assert.equal((await stats(state)).bloom!.keys, SAMPLE_URLS);
    assert.equal((await drum(['verify', '--quiet', '--state', state])).status, 0);
  });
});
