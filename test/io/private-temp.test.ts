// Private temporary directories of checks: named by their owner's pid,
// swept only when that owner is gone, removed by the owner on a stop.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { basename, join } from 'node:path';
import { makePrivateTemp, ownerOf, readOnlyWorkDir, removeOwnTemps, sweepStaleTemps } from '../../src/io/private-temp.js';
import { tempDir } from '../helpers/tmp.js';

/** The pid of a process that has exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(r.stdout);
}

describe('private temporary directories', () => {
  it('names a new directory after the process that owns it', () => {
    const root = tempDir();
    const d = makePrivateTemp('drum-check-', root);
    assert.equal(ownerOf(basename(d)), process.pid);
    assert.equal(ownerOf('drum-check-Ab12Cd'), null, 'a name without an owner pid is not ours to judge');
  });

  it('sweeps the directories of owners that are gone and keeps those of live ones and foreign names', () => {
    const root = tempDir();
    const dead = join(root, `drum-check-${deadPid()}-x1y2z3`);
    const live = join(root, `drum-check-${process.ppid}-a1b2c3`);
    const foreign = join(root, 'drum-check-Q9w8e7');
    for (const d of [dead, live, foreign]) fs.mkdirSync(join(d, 'sub'), { recursive: true });
    const mine = makePrivateTemp('drum-check-', root);
    assert.deepEqual(sweepStaleTemps('drum-check-', root), [basename(dead)]);
    for (const d of [live, foreign, mine]) assert.ok(fs.existsSync(d), d);
    assert.ok(!fs.existsSync(dead));
  });

  it("removes only this process's own directories on a stop", () => {
    const root = tempDir();
    const other = join(root, `drum-check-${process.ppid}-a1b2c3`);
    fs.mkdirSync(other);
    const mine = makePrivateTemp('drum-check-', root);
    fs.writeFileSync(join(mine, 'spill'), 'x');
    removeOwnTemps('drum-check-', root);
    assert.ok(!fs.existsSync(mine));
    assert.ok(fs.existsSync(other));
  });

  it('gives a read-only open its own directory, or no directory and a DRUM_IO saying why when the temp directory refuses one', () => {
    const root = tempDir();
    const ok = readOnlyWorkDir(root);
    assert.equal(ok.fault, null);
    assert.equal(ownerOf(basename(ok.dir!)), process.pid);
    assert.ok(fs.statSync(ok.dir!).isDirectory());
    const notADir = join(root, 'file');
    fs.writeFileSync(notADir, '');
    const refused = readOnlyWorkDir(notADir);
    assert.equal(refused.dir, null);
    assert.equal(refused.fault?.code, 'DRUM_IO');
  });
});
