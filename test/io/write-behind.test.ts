// Tests of the write-behind fsyncs (src/io/write-behind.ts): one starts every
// `every` bytes on the thread pool and none while one runs; a failed one is
// kept and thrown by every later settle() (a later fsync of the same
// descriptor may not report it again); close() waits for the fsync under
// way; disabled, nothing is fsynced.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumFs } from '../../src/io/fs.js';
import { WriteBehind } from '../../src/io/write-behind.js';
import { isDrumError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';

function openFile(dfs: DrumFs): number {
  return dfs.open(join(tempDir(), 'f.txt'), 'w');
}

const eio = (op: string): void => {
  if (op === 'fsync') throw Object.assign(new Error('injected'), { code: 'EIO' });
};

describe('WriteBehind', () => {
  it('starts an fsync once `every` bytes are written, and no second one while it runs', async () => {
    const dfs = new DrumFs();
    const fd = openFile(dfs);
    const wb = new WriteBehind(dfs, fd, true, 10);
    wb.wrote(9);
    await wb.settle();
    assert.equal(dfs.counters.fsyncs, 0);
    wb.wrote(1);
    wb.wrote(10); // the first is still running: no second one
    await wb.settle();
    assert.equal(dfs.counters.fsyncs, 1);
    wb.wrote(10);
    await wb.settle();
    assert.equal(dfs.counters.fsyncs, 2);
    wb.close();
  });

  it('keeps a failed fsync and throws it from every later settle', async () => {
    const dfs = new DrumFs(undefined, eio);
    const fd = openFile(dfs);
    const wb = new WriteBehind(dfs, fd, true, 4);
    wb.wrote(4);
    await assert.rejects(wb.settle(), (e) => isDrumError(e, 'DRUM_IO'));
    dfs.faultHook = null;
    wb.wrote(4); // this one succeeds; the failure before it is not forgotten
    await assert.rejects(wb.settle(), (e) => isDrumError(e, 'DRUM_IO'));
    wb.close();
  });

  it('closes the descriptor only once the fsync under way is over', async () => {
    const dfs = new DrumFs();
    const fd = openFile(dfs);
    const wb = new WriteBehind(dfs, fd, true, 1);
    wb.wrote(1);
    wb.close();
    assert.doesNotThrow(() => fs.fstatSync(fd), 'still open while its fsync runs');
    // An fsync on a busy disk can take a second or more: wait for the close by time, not by event-loop turns.
    for (const until = Date.now() + 20_000; Date.now() < until; ) {
      await new Promise((r) => setTimeout(r, 5));
      try {
        fs.fstatSync(fd);
      } catch (e) {
        assert.equal((e as NodeJS.ErrnoException).code, 'EBADF');
        return;
      }
    }
    assert.fail('the descriptor was never closed');
  });

  it('fsyncs nothing when disabled', async () => {
    const dfs = new DrumFs(undefined, eio);
    const fd = openFile(dfs);
    const wb = new WriteBehind(dfs, fd, false, 1);
    wb.wrote(100);
    await wb.settle();
    assert.equal(dfs.counters.fsyncs, 0);
    wb.close();
    assert.throws(() => fs.fstatSync(fd), { code: 'EBADF' });
  });
});
