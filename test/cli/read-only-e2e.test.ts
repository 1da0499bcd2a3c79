// The read-only commands on a read-only copy of a store (a read-only bind mount, as root on
// Linux; skipped elsewhere): `verify` only reads and says sound, `stats`, `runs` and `hosts` work;
// when the catalog can be neither opened nor copied (the temp directory is read-only too),
// verify reports it as not checked, not as damage.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { EXIT_STATUS } from '../../src/errors.js';
import { bin, distRoot, drum } from '../helpers/cli.js';
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

describe('verify when the run catalog cannot be read', () => {
  it('says sound, reports the catalog as not checked (DRUM_IO) and exits 0 when it can neither open nor copy it', async (t) => {
    const dir = tempDir();
    const input = join(dir, 'links.txt');
    fs.writeFileSync(input, Array.from({ length: 500 }, (_, i) => `http://h${i % 5}.example/p/${i}`).join('\n'));
    const state = join(dir, 'st');
    const tmp = join(dir, 'tmp');
    fs.mkdirSync(tmp);
    const ing = await drum(['ingest', '--quiet', '--no-progress', '--no-fsync', '--workers', '0', '--state', state, '--out', join(dir, 'out'), input]);
    assert.equal(ing.status, 0, ing.stderr);
    const undoState = mountReadOnly(state);
    if (undoState === null) return t.skip('read-only bind mounts need root on Linux');
    const undoTmp = mountReadOnly(tmp);
    try {
      if (undoTmp === null) return t.skip('read-only bind mounts need root on Linux');
      // LevelDB cannot open the catalog on the read-only mount, and the copy it falls back to cannot be made in TMPDIR.
      const env = { ...process.env, DRUM_DIST_DIR: distRoot, DRUM_STATE: '', TMPDIR: tmp };
      const run = (args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: dir, env, encoding: 'utf8' });
      const v = run(['verify', '--json', '--state', state]);
      assert.equal(v.status, 0, v.stdout + v.stderr);
      const res = JSON.parse(v.stdout) as { ok: boolean; problems: unknown[]; filesChecked: number; notChecked: { file: string; code: string }[] };
      assert.equal(res.ok, true);
      assert.deepEqual(res.problems, []);
      assert.deepEqual(res.notChecked.map((p) => [p.file, p.code]), [[join(state, 'catalog'), 'DRUM_IO']]);
      const text = run(['verify', '--state', state]);
      assert.equal(text.status, 0, text.stderr);
      assert.match(text.stdout, /^sound: /);
      assert.match(text.stdout, new RegExp(`^not checked: ${join(state, 'catalog').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(.*(EROFS|read-only)`, 'im'));
      // A check, which needs a private spill directory, fails with DRUM_IO.
      const c = run(['check', '--state', state, input]);
      assert.equal(c.status, EXIT_STATUS.DRUM_IO, c.stderr);
      assert.match(c.stderr, /DRUM_IO: cannot make a private work directory/);
      // The same store with a writable temp directory checks the catalog (one file more) and has nothing unchecked.
      const full = spawnSync(process.execPath, [bin, 'verify', '--json', '--state', state], { cwd: dir, env: { ...env, TMPDIR: dir }, encoding: 'utf8' });
      const all = JSON.parse(full.stdout) as { ok: boolean; filesChecked: number; notChecked: unknown[] };
      assert.equal(all.ok, true);
      assert.deepEqual(all.notChecked, []);
      assert.equal(all.filesChecked, res.filesChecked + 1);
    } finally {
      undoTmp?.();
      undoState();
    }
  });
});
