// Tests of the unique files' durability (src/output/unique-writer.ts): a
// full file's fsync runs on the thread pool when the writer moves on, and
// sync() throws when that fsync or a write-behind fsync of the current file
// failed, even though its own last fsync succeeds (the commit must not name
// bytes the disk may have dropped).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumFs } from '../../src/io/fs.js';
import { UniqueWriter } from '../../src/output/unique-writer.js';
import { WRITE_BEHIND_BYTES } from '../../src/io/write-behind.js';
import { ioError, isDrumError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';
import { openUnder } from '../helpers/fds.js';

const URL_BYTES = Buffer.from('http://example.com/a/path/of/some/length');

/** Fails the first fsync of a file whose name ends with `suffix`, then lets every other through. */
function failFirstFsyncOf(suffix: string): (op: string, path: string) => void {
  let failed = false;
  return (op, path) => {
    if (op !== 'fsync' || failed || !path.endsWith(suffix)) return;
    failed = true;
    throw Object.assign(new Error('injected'), { code: 'EIO' });
  };
}

/** A DrumFs whose close() of a file named `suffix` releases it and then reports EIO, as close(2) may (NFS). */
class CloseFails extends DrumFs {
  private readonly names = new Map<number, string>();

  constructor(private readonly suffix: string) {
    super();
  }

  override open(path: string, flags: string): number {
    const fd = super.open(path, flags);
    this.names.set(fd, path);
    return fd;
  }

  override close(fd: number): void {
    const path = this.names.get(fd);
    this.names.delete(fd);
    super.close(fd);
    if (path?.endsWith(this.suffix)) throw ioError('cannot close', Object.assign(new Error('EIO: i/o error, close'), { code: 'EIO' }), path);
  }
}

describe('UniqueWriter', () => {
  it('writes each full file and the current one, all durable at sync', async () => {
    const dir = tempDir();
    const dfs = new DrumFs();
    const w = new UniqueWriter(dfs, dir, { file: 1, bytes: 0, urls: 0, urlsPerFile: 3 }, true);
    for (let i = 0; i < 8; i++) w.write(URL_BYTES, 0, URL_BYTES.length);
    const p = await w.sync();
    assert.deepEqual(p, { file: 3, bytes: 2 * (URL_BYTES.length + 1), urls: 2, urlsPerFile: 3 });
    assert.equal(dfs.counters.fsyncs, 3 + 1); // the three files and their directory
    w.close();
    assert.deepEqual(w.fileNames().map((f) => fs.statSync(join(dir, f)).size), [3, 3, 2].map((n) => n * (URL_BYTES.length + 1)));
  });

  it('fails its sync when a full file\'s fsync failed', async () => {
    const dfs = new DrumFs(undefined, failFirstFsyncOf('unique-00001.txt'));
    const w = new UniqueWriter(dfs, tempDir(), { file: 1, bytes: 0, urls: 0, urlsPerFile: 2 }, true);
    for (let i = 0; i < 5; i++) w.write(URL_BYTES, 0, URL_BYTES.length);
    await assert.rejects(w.sync(), (e) => isDrumError(e, 'DRUM_IO'));
    w.close();
  });

  it('fails its sync when a write-behind fsync failed, though its last fsync succeeds', async () => {
    const dfs = new DrumFs(undefined, failFirstFsyncOf('unique-00001.txt'));
    const w = new UniqueWriter(dfs, tempDir(), { file: 1, bytes: 0, urls: 0, urlsPerFile: 1_000_000 }, true);
    const n = Math.ceil((2 * WRITE_BEHIND_BYTES) / (URL_BYTES.length + 1));
    for (let i = 0; i < n; i++) w.write(URL_BYTES, 0, URL_BYTES.length);
    await assert.rejects(w.sync(), (e) => isDrumError(e, 'DRUM_IO'));
    w.close();
  });

  it('keeps failing its sync once one failed, though the files fsync again without error', async () => {
    const dfs = new DrumFs(undefined, failFirstFsyncOf('unique-00001.txt'));
    const w = new UniqueWriter(dfs, tempDir(), { file: 1, bytes: 0, urls: 0, urlsPerFile: 2 }, true);
    for (let i = 0; i < 5; i++) w.write(URL_BYTES, 0, URL_BYTES.length);
    await assert.rejects(w.sync(), (e) => isDrumError(e, 'DRUM_IO'));
    await assert.rejects(w.sync(), (e) => isDrumError(e, 'DRUM_IO'));
    w.close();
  });

  it('leaves no rejected promise behind when a full file will not close after its fsync (Node would end the process)', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown): void => void unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const w = new UniqueWriter(new CloseFails('unique-00001.txt'), tempDir(), { file: 1, bytes: 0, urls: 0, urlsPerFile: 1 }, true);
      for (let i = 0; i < 3; i++) w.write(URL_BYTES, 0, URL_BYTES.length);
      await w.sync(); // the file is durable: its fsync succeeded
      w.close();
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    assert.deepEqual(unhandled, []);
  });

  it('keeps a few descriptors open, not one a full file, while writes fill many files before the event loop turns', async (t) => {
    if (!fs.existsSync('/proc/self/fd')) return t.skip('needs /proc/self/fd (Linux)');
    for (const doFsync of [false, true]) {
      const dir = tempDir();
      const w = new UniqueWriter(new DrumFs(), dir, { file: 1, bytes: 0, urls: 0, urlsPerFile: 1 }, doFsync);
      // As a round dispatched on this thread (AuxLog.forEachWanted) writes its new URLs: in one synchronous loop.
      for (let i = 0; i < 300; i++) w.write(URL_BYTES, 0, URL_BYTES.length);
      const open = openUnder(dir).length;
      const p = await w.sync();
      w.close();
      assert.ok(open <= 8, `${open} descriptors open after 300 files filled (fsync ${doFsync})`);
      assert.deepEqual(p, { file: 300, bytes: URL_BYTES.length + 1, urls: 1, urlsPerFile: 1 });
      assert.equal(w.fileNames().filter((f) => fs.statSync(join(dir, f)).size === URL_BYTES.length + 1).length, 300);
      for (let i = 0; i < 10 && openUnder(dir).length > 0; i++) await new Promise((r) => setImmediate(r));
      assert.deepEqual(openUnder(dir), []);
    }
  });

  it('fails the commit on a full file\'s failed fsync also when enough are under way that it runs on this thread', async () => {
    const dfs = new DrumFs(undefined, failFirstFsyncOf('unique-00007.txt'));
    const w = new UniqueWriter(dfs, tempDir(), { file: 1, bytes: 0, urls: 0, urlsPerFile: 1 }, true);
    let failed: unknown = null;
    try {
      for (let i = 0; i < 10; i++) w.write(URL_BYTES, 0, URL_BYTES.length);
      await w.sync();
    } catch (e) {
      failed = e;
    }
    assert.ok(isDrumError(failed, 'DRUM_IO'), `no DRUM_IO before the commit: ${String(failed)}`);
    w.close();
  });

  it('fsyncs its directory after creating files, and not again until it creates another; the one above is its maker\'s', async () => {
    const parent = tempDir();
    const dir = join(parent, 'run');
    fs.mkdirSync(dir);
    const dirs: string[] = [];
    const dfs = new DrumFs(undefined, (op, path) => {
      if (op === 'fsync' && (path === dir || path === parent)) dirs.push(path === dir ? 'run' : 'parent');
    });
    const w = new UniqueWriter(dfs, dir, { file: 1, bytes: 0, urls: 0, urlsPerFile: 2 }, true);
    w.write(URL_BYTES, 0, URL_BYTES.length);
    await w.sync();
    assert.deepEqual(dirs, ['run']);
    w.write(URL_BYTES, 0, URL_BYTES.length);
    await w.sync();
    assert.deepEqual(dirs, ['run'], 'no new file: no directory fsync');
    w.write(URL_BYTES, 0, URL_BYTES.length); // the third URL opens unique-00002.txt
    await w.sync();
    assert.deepEqual(dirs, ['run', 'run']);
    w.close();
  });
});
