// UnpinnedBuckets: a reader without pins takes the newest manifest's entry
// of a bucket only when a commit took its files away, never for damage or
// another error, and never from a store whose parameters changed.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../src/engine/drum.js';
import { DrumError, isDrumError } from '../../src/errors.js';
import { readManifest, type ManifestBody } from '../../src/store/manifest.js';
import { UnpinnedBuckets } from '../../src/store/unpinned-buckets.js';
import { tempDir } from '../helpers/tmp.js';

const enoent = (): DrumError => new DrumError('DRUM_IO', 'cannot open: ENOENT', { cause: Object.assign(new Error('ENOENT'), { code: 'ENOENT' }) });

/** A store with `rounds` merged ingests of 300 URLs over 50 hosts (journal off: each rewrites the touched buckets). */
async function store(dir: string, rounds: number, from = 0): Promise<string> {
  const state = join(dir, 'state');
  const w = await Drum.open(state, { fsync: false, workers: 0, journalKeys: 0 });
  try {
    for (let k = from; k < from + rounds; k++) {
      const input = join(dir, `in${k}.txt`);
      fs.writeFileSync(input, Array.from({ length: 300 }, (_, i) => `http://h${i % 50}.example/${k}/${i}\n`).join(''));
      await w.ingest({ inputs: [input], outDir: join(dir, `out${k}`) });
    }
  } finally {
    await w.close();
  }
  return state;
}

function firstBucket(body: ManifestBody): number {
  return body.buckets.findIndex((e) => e !== null);
}

describe('UnpinnedBuckets', () => {
  it('follows a bucket to the newest entry when a commit replaced its files, and reports the values of a read bucket replaced', async () => {
    const dir = tempDir();
    const state = await store(dir, 1);
    const body = readManifest(state)!;
    const u = new UnpinnedBuckets(state, body);
    const b = firstBucket(body);
    const old = body.buckets[b]!.file;
    await store(dir, 1, 1);
    const newest = readManifest(state)!;
    assert.notEqual(newest.buckets[b]!.file, old);
    assert.equal(u.follow(b, enoent(), 0), true);
    assert.deepEqual(body.buckets[b], newest.buckets[b]);
    assert.equal(u.follow(b, enoent(), 0), false, 'the newest files missing is damage: nothing to follow');
    const err = u.valuesReplaced(b, enoent());
    assert.ok(isDrumError(err, 'DRUM_IO'));
    assert.equal(u.valuesReplacedCount, 1);
    // valuesReplaced followed every other bucket the commit replaced.
    assert.deepEqual(body.buckets, newest.buckets);
  });

  it('follows nothing for an error other than a missing file, or after 20 tries', async () => {
    const dir = tempDir();
    const state = await store(dir, 1);
    const body = readManifest(state)!;
    const u = new UnpinnedBuckets(state, body);
    const b = firstBucket(body);
    const before = body.buckets[b];
    await store(dir, 1, 1);
    const emfile = new DrumError('DRUM_IO', 'cannot open: EMFILE', { cause: Object.assign(new Error('EMFILE'), { code: 'EMFILE' }) });
    assert.equal(u.follow(b, emfile, 0), false);
    assert.equal(u.follow(b, new DrumError('DRUM_CORRUPT_FILE', 'bad block'), 0), false);
    assert.equal(u.follow(b, enoent(), 20), false);
    assert.equal(body.buckets[b], before);
  });

  it('follows nothing when the newest manifest has other parameters', async () => {
    const dir = tempDir();
    const state = await store(dir, 1);
    const body = readManifest(state)!;
    const b = firstBucket(body);
    const u = new UnpinnedBuckets(state, { ...body, params: { ...body.params, valueBytes: 0 }, buckets: body.buckets });
    await store(dir, 1, 1);
    assert.equal(u.follow(b, enoent(), 0), false);
    assert.equal(u.followAll(), false);
  });

  it('takes, in followAll, the newest entry of each bucket whose files a commit took away, and nothing before one', async () => {
    const dir = tempDir();
    const state = await store(dir, 1);
    const body = readManifest(state)!;
    const u = new UnpinnedBuckets(state, body);
    assert.equal(u.followAll(), false, 'nothing replaced yet');
    await store(dir, 1, 1);
    const newest = readManifest(state)!;
    assert.equal(u.followAll(), true);
    assert.deepEqual(body.buckets, newest.buckets);
    assert.equal(u.followAll(), false);
  });
});
