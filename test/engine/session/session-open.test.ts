// Tests of what an open store works with (session-open.ts, storeOptions):
// options not set are left to the store. Here the Bloom filter's bits per
// key: a merge that rebuilds the filter keeps the store's bits unless the
// caller sets others. Buckets, host bits and values are in
// test/engine/policy.test.ts.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Drum } from '../../../src/engine/drum.js';
import type { DrumOptions } from '../../../src/options.js';
import { readManifest } from '../../../src/store/manifest.js';
import { checkUpdateAll } from '../../helpers/drum.js';
import { tempDir } from '../../helpers/tmp.js';

const urls = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `http://h${(from + i) % 7}.example/p/${from + i}`);

/** One batch of new URLs through an open with `o`; every round merges (no key journal), so the Bloom file is rebuilt. */
async function batch(dir: string, o: DrumOptions, from: number): Promise<void> {
  const d = await Drum.open(dir, { workers: 0, fsync: false, bloom: 'gate', journalKeys: 0, ...o });
  try {
    assert.equal((await checkUpdateAll(d, urls(from, 500))).length, 500);
  } finally {
    await d.close();
  }
}

describe('options an open store leaves to the store', () => {
  it("rebuilds the Bloom filter with the store's bits per key when none are given, and with the ones given", async () => {
    const dir = tempDir();
    await batch(dir, { bloomBitsPerKey: 20 }, 0);
    assert.equal(readManifest(dir)!.bloom!.bitsPerKey, 20);
    await batch(dir, {}, 1000);
    assert.equal(readManifest(dir)!.bloom!.bitsPerKey, 20, 'the store keeps its filter size');
    await batch(dir, { bloomBitsPerKey: 12 }, 2000);
    assert.equal(readManifest(dir)!.bloom!.bitsPerKey, 12, 'bits given take effect at the next rebuild');
  });

  it('builds the first Bloom filter of a store with the default 10 bits per key', async () => {
    const dir = tempDir();
    await batch(dir, { bloom: 'off' }, 0);
    assert.equal(readManifest(dir)!.bloom, null);
    await batch(dir, {}, 1000);
    assert.equal(readManifest(dir)!.bloom!.bitsPerKey, 10);
  });
});
