// The read-only commands on a read-only copy of a store (a read-only bind mount, as root on
// Linux; skipped elsewhere): `verify` only reads and says sound, `stats`, `runs` and `hosts` work.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { drum } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/** Bind-mounts `dir` read-only on itself; returns the undo, or null when mounts are not allowed. */
function mountReadOnly(dir: string): (() => void) | null {
  if (process.platform !== 'linux' || spawnSync('mount', ['--bind', dir, dir]).status !== 0) return null;
  if (spawnSync('mount', ['-o', 'remount,ro,bind', dir]).status !== 0) {
    spawnSync('umount', [dir]);
    return null;
  }
  return () => void spawnSync('umount', [dir]);
}

describe('a store on read-only media', () => {
  it('verifies as sound and answers stats, runs and hosts without writing', async (t) => {
    const dir = tempDir();
    const input = join(dir, 'links.txt');
    fs.writeFileSync(input, Array.from({ length: 2000 }, (_, i) => `http://h${i % 7}.example/p/${i}`).join('\n'));
    const state = join(dir, 'st');
    const ing = await drum(['ingest', '--quiet', '--no-progress', '--state', state, '--out', join(dir, 'out'), input]);
    assert.equal(ing.status, 0, ing.stderr);
    const undo = mountReadOnly(state);
    if (undo === null) return t.skip('read-only bind mounts need root on Linux');
    try {
      assert.equal(spawnSync('touch', [join(state, 'probe')]).status === 0, false, 'the mount is read-only');
      const v = await drum(['verify', '--json', '--state', state]);
      assert.equal(v.status, 0, v.stdout + v.stderr);
      const res = JSON.parse(v.stdout) as { ok: boolean; problems: unknown[] };
      assert.equal(res.ok, true);
      assert.deepEqual(res.problems, []);
      const s = await drum(['stats', '--json', '--state', state]);
      assert.equal(s.status, 0, s.stderr);
      assert.equal((JSON.parse(s.stdout) as { storeUrls: number }).storeUrls, 2000);
      const r = await drum(['runs', '--json', '--state', state]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal((JSON.parse(r.stdout) as unknown[]).length, 1);
      const h = await drum(['hosts', '--json', '--state', state]);
      assert.equal(h.status, 0, h.stderr);
      assert.equal((JSON.parse(h.stdout) as { uniqueUrls: number }[]).reduce((a, x) => a + x.uniqueUrls, 0), 2000);
    } finally {
      undo();
    }
  });
});
