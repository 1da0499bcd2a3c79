// A library run (src/engine/jobs/ingest/library-run.ts) whose last round
// fails to commit: what it routed is forgotten, so no URL of that round is
// later called a duplicate of itself and lost to the caller, and the run is
// recorded failed with its outputs closed; one killed -9 at a commit is cut
// back to that commit by the next run.

import { describe, it } from 'node:test';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
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

  it('is cut back to its last commit by the next run when a kill -9 stopped its round after the unique file was written', async () => {
    const state = join(tempDir(), 'state');
    const drumJs = new URL('../../../../src/engine/drum.js', import.meta.url).href;
    // A crawler process killed -9 as its second round renames the MANIFEST: the round's new URLs are in the unique file, not stored.
    const crawler = `
      import { Drum } from ${JSON.stringify(drumJs)};
      let armed = false;
      const d = await Drum.open(${JSON.stringify(state)}, { fsync: false, workers: 0, faultHook: (op, path) => {
        if (armed && op === 'rename' && path.endsWith('MANIFEST')) process.kill(process.pid, 'SIGKILL');
      } });
      await d.add(['http://a.example/1', 'http://a.example/2']);
      armed = true;
      await d.add(['http://b.example/1', 'http://b.example/2']);`;
    const k = spawnSync(process.execPath, ['--input-type=module', '-e', crawler], { encoding: 'utf8' });
    assert.equal(k.signal, 'SIGKILL', k.stderr);
    const [killed] = readdirSync(join(state, 'runs'));
    const d = await Drum.open(state, { fsync: false, workers: 0 });
    try {
      const r = await d.add(['http://b.example/1', 'http://b.example/2']);
      assert.deepEqual(r.newUrls, ['http://b.example/1', 'http://b.example/2']);
    } finally {
      await d.close();
    }
    // The killed run's directory holds the URLs it stored, and not those the next run found new: none is listed twice.
    assert.equal(readFileSync(join(state, 'runs', killed!, 'unique-00001.txt'), 'utf8'), 'http://a.example/1\nhttp://a.example/2\n');
  });
});
