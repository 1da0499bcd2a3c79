import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { PinnedFiles } from '../../src/io/pins.js';
import { isDrumError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';

describe('PinnedFiles', () => {
  it('keeps a pinned file readable after its path is deleted, until closeAll', () => {
    const path = join(tempDir(), 'b.keys');
    fs.writeFileSync(path, 'kept bytes');
    const pins = new PinnedFiles();
    const fd = pins.pin(path)!;
    assert.equal(pins.pin(path), null, 'a second pin of one path opens nothing');
    fs.unlinkSync(path);
    const buf = Buffer.alloc(10);
    assert.equal(fs.readSync(fd, buf, 0, 10, 0), 10);
    assert.equal(buf.toString(), 'kept bytes');
    assert.equal(pins.fdOf(path), fd);
    assert.ok(pins.has(fd));
    assert.deepEqual(pins.closeAll(), [fd]);
    assert.equal(pins.fdOf(path), undefined);
    assert.equal(pins.has(fd), false);
    assert.throws(() => fs.fstatSync(fd), /EBADF/);
  });

  it('closes one pinned file on unpin and keeps the others', () => {
    const dir = tempDir();
    const pins = new PinnedFiles();
    for (const f of ['a', 'b']) fs.writeFileSync(join(dir, f), f);
    const a = pins.pin(join(dir, 'a'))!;
    const b = pins.pin(join(dir, 'b'))!;
    assert.equal(pins.unpin(join(dir, 'a')), a);
    assert.equal(pins.unpin(join(dir, 'a')), undefined, 'a second unpin closes nothing');
    assert.equal(pins.fdOf(join(dir, 'a')), undefined);
    assert.equal(pins.has(a), false);
    assert.equal(pins.fdOf(join(dir, 'b')), b);
    assert.deepEqual(pins.closeAll(), [b]);
  });

  it('fails a pin of a missing file as DRUM_IO', () => {
    assert.throws(() => new PinnedFiles().pin(join(tempDir(), 'none')), (e: unknown) => isDrumError(e, 'DRUM_IO'));
  });
});
