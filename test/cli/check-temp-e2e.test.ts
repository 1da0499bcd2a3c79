// End-to-end: where `drum check` spills and that it cleans up. A check's
// private directory ($TMPDIR/drum-check-<pid>-*) goes when the check ends,
// when it is stopped by SIGINT (exit 130), and, when its process was killed
// outright, at the next check; a live check's directory is never touched.
// Also: --out inside another drum state's work/ is refused (DRUM_CLOBBER).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { EXIT_STATUS } from '../../src/errors.js';
import { drum, haveEngine, startDrum } from '../torture/harness.js';
import { tempDir } from '../helpers/tmp.js';

function deadPid(): number {
  return Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
}

const checkDirs = (tmp: string): string[] => fs.readdirSync(tmp).filter((n) => n.startsWith('drum-check-'));

async function newStore(root: string): Promise<void> {
  const r = await drum(['ingest', '--quiet', '--no-fsync', '-'], { cwd: root, input: 'http://a.example/1\nhttp://a.example/2\n' });
  assert.equal(r.status, 0, r.stderr);
}

describe('drum check temporary directories', { skip: !haveEngine && 'engine not compiled' }, () => {
  it('removes a dead check\'s directory at the next check, its own at the end, and leaves a live one', async () => {
    const root = tempDir();
    const tmp = join(root, 'tmp');
    fs.mkdirSync(tmp);
    await newStore(root);
    const stale = join(tmp, `drum-check-${deadPid()}-k1l2m3`);
    const live = join(tmp, `drum-check-${process.pid}-n4o5p6`);
    fs.mkdirSync(stale);
    fs.mkdirSync(live);
    fs.writeFileSync(join(stale, 'b0001.spill'), Buffer.alloc(4096));
    const r = await drum(['check', '--quiet', '-'], { cwd: root, input: 'http://a.example/3\n', env: { TMPDIR: tmp } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'http://a.example/3\n');
    assert.deepEqual(checkDirs(tmp), [`drum-check-${process.pid}-n4o5p6`]);
  });

  it('removes its directory and exits 130 when stopped by SIGINT', async () => {
    const root = tempDir();
    const tmp = join(root, 'tmp');
    fs.mkdirSync(tmp);
    await newStore(root);
    const { child, done } = startDrum(['check', '--quiet', '-'], { cwd: root, input: 'http://a.example/4\n', stdinOpen: true, env: { TMPDIR: tmp } });
    child.stdin!.on('error', () => {});
    for (let i = 0; i < 400 && checkDirs(tmp).length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(checkDirs(tmp).length, 1, 'the check made its directory');
    child.kill('SIGINT');
    const r = await done;
    assert.equal(r.status, 130, r.stderr);
    assert.deepEqual(checkDirs(tmp), []);
  });
});

describe('--out inside a drum state directory', { skip: !haveEngine && 'engine not compiled' }, () => {
  it("refuses an output directory inside another state's work/ with DRUM_CLOBBER", async () => {
    const root = tempDir();
    await newStore(root); // ./drum-state
    const r = await drum(['ingest', '--quiet', '--state', 'other', '--out', join(root, 'drum-state', 'work', 'new-urls'), '-'], { cwd: root, input: 'http://b.example/\n' });
    assert.equal(r.status, EXIT_STATUS.DRUM_CLOBBER, r.stderr);
    assert.match(r.stderr, /DRUM_CLOBBER/);
    assert.ok(!fs.existsSync(join(root, 'drum-state', 'work', 'new-urls')));
  });

  it("accepts an output directory under another state's runs/", async () => {
    const root = tempDir();
    await newStore(root);
    const r = await drum(['ingest', '--quiet', '--state', 'other', '--out', join(root, 'drum-state', 'runs', 'mine'), '-'], { cwd: root, input: 'http://b.example/\n' });
    assert.equal(r.status, 0, r.stderr);
  });
});
