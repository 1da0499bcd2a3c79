// The power-loss model itself (power-loss.ts), on files it is told about
// by hand rather than through a run: a file a process outside the fault
// seam wrote on an inode the seam saw freed elsewhere is still that
// process's file, taken as it is (LevelDB and a host-count fold's child
// delete and create files the seam never sees, and the kernel hands their
// inode numbers out again); and a torn rebuild keeps a fsynced file whole
// while it tears one written since.
// REQUIRES: a file system that reuses a freed inode soon and records birth
// times (ext4, xfs, btrfs, tmpfs); the first test skips itself when no
// inode came back in 200 tries.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../helpers/tmp.js';
import { PowerLossModel } from './power-loss.js';
import { Tear } from './power-loss-torn.js';

/** A world with a directory `d` holding file `a`, written, fsynced and named durably through the seam. */
function seamFile(): { world: string; model: PowerLossModel; a: string } {
  const world = join(tempDir(), 'world');
  fs.mkdirSync(join(world, 'd'), { recursive: true });
  const model = new PowerLossModel(world);
  const a = join(world, 'd', 'a');
  model.observe('open-write', a);
  fs.writeFileSync(a, 'through the seam');
  model.observe('fsync', a);
  model.observe('fsync', join(world, 'd'));
  return { world, model, a };
}

describe('the power-loss model', () => {
  it('takes a file written outside the seam as it is, even on an inode a seam file had', (t) => {
    const { world, model, a } = seamFile();
    const ino = fs.statSync(a).ino;
    // A second seam file, deleted outside the seam (as LevelDB deletes its own): its inode is free, unseen.
    const gone = join(world, 'd', 'gone');
    model.observe('open-write', gone);
    fs.writeFileSync(gone, 'x');
    model.observe('fsync', gone);
    const goneIno = fs.statSync(gone).ino;
    fs.unlinkSync(gone);
    let reused: string | null = null;
    for (let i = 0; i < 200 && reused === null; i++) {
      const b = join(world, 'd', `outside-${i}`);
      fs.writeFileSync(b, 'outside the seam');
      if (fs.statSync(b).ino === goneIno) reused = b;
      else fs.unlinkSync(b);
    }
    if (reused === null) return t.skip('the file system gave the freed inode to no new file');
    assert.notEqual(goneIno, ino);
    const lost = `${world}-lost`;
    fs.renameSync(world, lost);
    model.build(world, lost);
    assert.equal(fs.readFileSync(a, 'utf8'), 'through the seam');
    assert.equal(fs.readFileSync(reused, 'utf8'), 'outside the seam');
  });

  it('keeps on a torn disk every byte an fsync made durable, and tears only what came after', () => {
    const { world, model, a } = seamFile();
    const late = join(world, 'd', 'late');
    model.observe('open-write', late);
    fs.writeFileSync(late, Buffer.alloc(5 * 4096, 7));
    model.observe('write', a);
    fs.appendFileSync(a, Buffer.alloc(3 * 4096, 9));
    const lost = `${world}-lost`;
    fs.renameSync(world, lost);
    const seen = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      fs.rmSync(world, { recursive: true, force: true });
      model.build(world, lost, new Tear(seed));
      const b = fs.readFileSync(a);
      assert.equal(b.subarray(0, 16).toString(), 'through the seam', `seed ${seed}`);
      seen.add(`${b.length}:${fs.existsSync(late) ? fs.statSync(late).size : 'none'}`);
    }
    assert.ok(seen.size > 4, `${[...seen].join(' ')}: the seeds tear differently`);
  });
});
