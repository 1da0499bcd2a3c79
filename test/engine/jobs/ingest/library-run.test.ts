// A library run (src/engine/jobs/ingest/library-run.ts) whose last round
// fails to commit: what it routed is forgotten, so no URL of that round is
// later called a duplicate of itself and lost to the caller, and the run is
// recorded failed with its outputs closed.

import { describe, it } from 'node:test';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
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

  it('closes the outputs of a run of add() calls whose endRun() fails to commit, and the next add() starts a run of its own', { skip: !existsSync('/proc/self/fd') && 'no /proc here' }, async () => {
    let failRename = false;
    const d = await Drum.open(tempDir(), {
      fsync: false, workers: 0,
      faultHook: (op, path) => {
        if (failRename && op === 'rename' && path.endsWith('MANIFEST')) throw Object.assign(new Error('injected'), { code: 'EIO' });
      },
    });
    try {
      await d.add(['http://a.example/']);
      const first = d.runStats()!.runId;
      failRename = true;
      await assert.rejects(d.endRun(), { code: 'DRUM_IO' });
      failRename = false;
      const r = await d.add(['http://a.example/', 'http://b.example/']);
      assert.deepEqual(r.newUrls, ['http://b.example/']);
      assert.notEqual(d.runStats()!.runId, first);
      // Its outputs are closed: no descriptor of this process still names a file of its run directory.
      const open = readdirSync('/proc/self/fd').flatMap((fd) => {
        try {
          return [readlinkSync(`/proc/self/fd/${fd}`)];
        } catch {
          return [];
        }
      });
      assert.deepEqual(open.filter((p) => p.includes(first)), []);
      const runs = (await d.stats()).recentRuns;
      assert.notEqual(runs.find((x) => x.runId === first)?.status, 'running');
    } finally {
      await d.close();
    }
  });
});
