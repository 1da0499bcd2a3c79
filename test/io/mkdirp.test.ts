// mkdirpSync (src/io/mkdirp.ts) and DrumFs.mkdirp: mkdir -p that makes every missing directory
// and fails where one cannot be made, where Node's recursive mkdir loops
// for ever (a path under /proc: the parent exists, the child is ENOENT).
// probeMkdirp fails the same way and leaves nothing made. DrumFs.mkdirp
// with `durable` makes every new name durable: it fsyncs the directory
// holding each directory it made, deepest first.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DrumFs } from '../../src/io/fs.js';
import { mkdirpSync, probeMkdirp } from '../../src/io/mkdirp.js';
import { tempDir } from '../helpers/tmp.js';

describe('mkdirpSync', () => {
  it('makes every missing directory of a path, and accepts one that exists', () => {
    const p = join(tempDir(), 'a', 'b', 'c');
    mkdirpSync(p);
    assert.ok(statSync(p).isDirectory());
    mkdirpSync(p);
  });

  it('fails with ENOTDIR where a file is in the way', () => {
    const f = join(tempDir(), 'file');
    writeFileSync(f, '');
    assert.throws(() => mkdirpSync(join(f, 'x')), { code: 'ENOTDIR' });
  });

  it('fails at once with ENOENT under /proc, where Node\'s recursive mkdir never returns', { skip: !existsSync('/proc/self') && 'no /proc here' }, () => {
    assert.throws(() => mkdirpSync('/proc/drum-no-such/x'), { code: 'ENOENT' });
    assert.throws(() => new DrumFs().mkdirp('/proc/drum-no-such/x'), { code: 'DRUM_IO' });
  });
});

describe('probeMkdirp', () => {
  it('leaves nothing made where mkdirpSync would succeed', () => {
    const base = tempDir();
    probeMkdirp(join(base, 'a', 'b', 'c'));
    assert.equal(existsSync(join(base, 'a')), false);
    probeMkdirp(base);
    assert.ok(statSync(base).isDirectory());
  });

  it('throws what mkdirpSync would: ENOTDIR past a file, ENOENT under /proc', { skip: !existsSync('/proc/self') && 'no /proc here' }, () => {
    const f = join(tempDir(), 'file');
    writeFileSync(f, '');
    assert.throws(() => probeMkdirp(join(f, 'x')), { code: 'ENOTDIR' });
    assert.throws(() => probeMkdirp('/proc/drum-no-such/x'), { code: 'ENOENT' });
  });
});

describe('DrumFs.mkdirp', () => {
  it('returns the directories it made, outermost first, and none for one that exists', () => {
    const base = tempDir();
    const p = join(base, 'a', 'b');
    assert.deepEqual(new DrumFs().mkdirp(p), [join(base, 'a'), p]);
    assert.deepEqual(new DrumFs().mkdirp(p), []);
  });

  it('with durable, fsyncs the directory holding each one it made, deepest first, and nothing more', () => {
    const base = tempDir();
    const p = join(base, 'a', 'b', 'c');
    const ops: string[] = [];
    const dfs = new DrumFs(undefined, (op, path) => void ops.push(`${op} ${path}`));
    dfs.mkdirp(p, true);
    assert.deepEqual(ops, [`mkdir ${p}`, `fsync ${dirname(p)}`, `fsync ${join(base, 'a')}`, `fsync ${base}`]);
    ops.length = 0;
    dfs.mkdirp(p, true);
    assert.deepEqual(ops, [`mkdir ${p}`], 'nothing made: nothing fsynced');
    new DrumFs(undefined, (op, path) => void ops.push(`${op} ${path}`)).mkdirp(join(base, 'd'));
    assert.equal(ops.filter((o) => o.startsWith('fsync')).length, 0, 'not durable: no fsync');
  });
});
