// A library run (src/engine/jobs/ingest/library-run.ts) whose last round
// fails to commit: what it routed is forgotten, so no URL of that round is
// later called a duplicate of itself and lost to the caller.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Drum } from '../../../../src/engine/drum.js';
import { tempDir } from '../../../helpers/tmp.js';

describe('a library run whose last round fails', () => {
  it('forgets the URLs of a checkUpdate\'s failed last round, so the next add() returns them as new', async () => {
    const d = await Drum.open(tempDir(), { fsync: false, workers: 0 });
    try {
      await d.add(['http://a.example/']);
      const refuse = async (): Promise<void> => {
        throw new Error('the crawler\'s queue is down');
      };
      await assert.rejects(async () => {
        for await (const u of d.checkUpdate(['http://y.example/\nhttp://z.example/\n'], { beforeCommit: refuse })) void u;
      }, /queue is down/);
      const r = await d.add(['http://y.example/', 'http://a.example/', 'http://z.example/']);
      assert.deepEqual(r.newUrls, ['http://y.example/', 'http://z.example/']);
      assert.equal(r.duplicates, 1);
      assert.equal((await d.stats()).storeUrls, 3);
    } finally {
      await d.close();
    }
  });
});
