// A store with values whose rounds only insert writes each bucket's new
// values as a delta after its values file (src/engine/core/values-pass.ts,
// src/engine/url-seen/commit.ts), folds the deltas into a new values file
// once they would outgrow it, and before any round that drops values: the
// values read back are those of a store written whole, docIDs in first-arrival
// order, and verify finds it sound.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Drum } from '../../../src/engine/drum.js';
import { keyOfString } from '../../../src/fingerprint/key.js';
import { readManifest } from '../../../src/store/manifest.js';
import type { DrumOptions } from '../../../src/options.js';
import { deltaFits, MAX_DELTAS } from '../../../src/engine/core/values-pass.js';
import { tempDir } from '../../helpers/tmp.js';
import { readUrlValues } from '../../helpers/values.js';
import { checkUpdateAll } from '../../helpers/drum.js';

const OPTS: DrumOptions = { buckets: 4, hostBits: 0, journalKeys: 0, fsync: false, cacheEntries: 0, recentEntries: 0, workers: 0 };
const urls = (from: number, to: number): string[] => Array.from({ length: to - from }, (_, i) => `http://h${(from + i) % 13}.example/p/${from + i}`);

/** Deltas named by each bucket of the committed store. */
function deltasPerBucket(dir: string): number[] {
  return readManifest(dir)!.buckets.map((e) => e?.values?.deltas?.length ?? 0);
}

/** Each stored URL's docID, checked against the order the URLs first arrived in. */
function assertDocIDs(dir: string, arrived: string[]): void {
  const values = readUrlValues(dir);
  assert.equal(values.size, arrived.length);
  arrived.forEach((u, docID) => {
    const [hi, lo] = keyOfString(u, 0);
    assert.equal(values.get(`${hi}:${lo}`)?.docID, docID, u);
  });
}

describe('values deltas', () => {
  it('appends a delta to each bucket for a round of new URLs, and folds them once they would outgrow the values file', async () => {
    const dir = tempDir();
    const d = await Drum.open(dir, OPTS);
    const arrived: string[] = [];
    try {
      arrived.push(...(await checkUpdateAll(d, urls(0, 2000))));
      assert.deepEqual(deltasPerBucket(dir), [0, 0, 0, 0], 'the first round writes values files');
      // Half new, half seen: each bucket's new values (~250) fit beside its ~500.
      arrived.push(...(await checkUpdateAll(d, [...urls(1000, 2000), ...urls(2000, 3000)])));
      assert.deepEqual(deltasPerBucket(dir), [1, 1, 1, 1]);
      assert.equal(readManifest(dir)!.formatVersion, 2);
      assertDocIDs(dir, arrived);
      assert.equal((await d.verify()).ok, true);
      // 2,000 more: the deltas would hold more values than the values files, so each bucket folds.
      arrived.push(...(await checkUpdateAll(d, urls(3000, 5000))));
      assert.deepEqual(deltasPerBucket(dir), [0, 0, 0, 0]);
      assert.equal(readManifest(dir)!.formatVersion, 1);
      assertDocIDs(dir, arrived);
    } finally {
      await d.close();
    }
    assert.equal(arrived.length, 5000);
  });

  it('reads the chain after a reopen, and writes a bucket whole when a forget drops one of its values', async () => {
    const dir = tempDir();
    const arrived: string[] = [];
    let d = await Drum.open(dir, OPTS);
    try {
      arrived.push(...(await checkUpdateAll(d, urls(0, 4000))));
      arrived.push(...(await checkUpdateAll(d, urls(4000, 5000))));
      arrived.push(...(await checkUpdateAll(d, urls(5000, 6000))));
    } finally {
      await d.close();
    }
    assert.deepEqual(deltasPerBucket(dir), [2, 2, 2, 2]);
    d = await Drum.open(dir, OPTS);
    try {
      assert.equal((await d.verify()).ok, true);
      arrived.push(...(await checkUpdateAll(d, urls(6000, 6500))));
      assert.deepEqual(deltasPerBucket(dir), [3, 3, 3, 3]);
      assertDocIDs(dir, arrived);
      const r = await d.forget([arrived[4500]!]);
      assert.equal(r.forgotten, 1);
    } finally {
      await d.close();
    }
    // The forgotten URL's bucket (its top two key bits of four buckets) is written whole; the others keep their chains.
    const gone = keyOfString(arrived[4500]!, 0)[0] >>> 30;
    assert.deepEqual(deltasPerBucket(dir), [3, 3, 3, 3].map((n, b) => (b === gone ? 0 : n)));
    const values = readUrlValues(dir);
    assert.equal(values.size, arrived.length - 1);
    arrived.forEach((u, docID) => {
      if (docID === 4500) return;
      const [hi, lo] = keyOfString(u, 0);
      assert.equal(values.get(`${hi}:${lo}`)?.docID, docID, u);
    });
  });

  it('lets a bucket take a delta only while its chain is short and no bigger than its values file', () => {
    assert.equal(deltaFits(null, 1), false, 'a bucket without values writes its first values file');
    assert.equal(deltaFits({ baseValues: 100, deltas: 0, deltaValues: 0 }, 100), true);
    assert.equal(deltaFits({ baseValues: 100, deltas: 1, deltaValues: 60 }, 41), false);
    assert.equal(deltaFits({ baseValues: 0, deltas: 0, deltaValues: 0 }, 1), false);
    assert.equal(deltaFits({ baseValues: 1e6, deltas: MAX_DELTAS - 1, deltaValues: 10 }, 10), true);
    assert.equal(deltaFits({ baseValues: 1e6, deltas: MAX_DELTAS, deltaValues: 10 }, 10), false);
  });
});
