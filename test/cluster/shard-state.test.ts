// A shard's record beside its store: created for one (shard, shards) and
// refused for another, not written by a load of a fresh store, the confirmed ordinal and the outbox survive reopening,
// a damaged outbox is DRUM_CORRUPT_FILE, and every write goes through the
// file seam (a fault there is DRUM_IO).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ShardState } from '../../src/cluster/shard-state.js';
import { isDrumError } from '../../src/errors.js';
import { DrumFs, type FsOp } from '../../src/io/fs.js';
import { tempDir } from '../helpers/tmp.js';

describe('ShardState', () => {
  it('refuses a state made for another shard or shard count, and a store that was never a shard', () => {
    const dir = tempDir();
    ShardState.open(dir, 1, 4, 0);
    assert.throws(() => ShardState.open(dir, 2, 4, 0), (e) => isDrumError(e, 'DRUM_BAD_OPTION'));
    assert.throws(() => ShardState.open(dir, 1, 8, 0), (e) => isDrumError(e, 'DRUM_BAD_OPTION'));
    assert.throws(() => ShardState.open(tempDir(), 0, 4, 10), (e) => isDrumError(e, 'DRUM_BAD_OPTION'));
  });

  it('loads nothing and writes nothing for a fresh store, so a refused start leaves it unbound', () => {
    const dir = tempDir();
    assert.equal(ShardState.load(dir, 0, 2, 0), null);
    assert.equal(existsSync(join(dir, 'cluster')), false);
    ShardState.create(dir, 0, 2);
    assert.deepEqual(ShardState.load(dir, 0, 2, 0)?.meta, { version: 1, shard: 0, shards: 2, next: 0 });
  });

  it('keeps the confirmed ordinal and the outbox across reopening', () => {
    const dir = tempDir();
    const s = ShardState.open(dir, 0, 2, 0);
    s.writeOutbox({ base: 0, urls: ['http://a.example/', 'http://b.example/x'] });
    s.confirm(2);
    const t = ShardState.open(dir, 0, 2, 5);
    assert.equal(t.meta.next, 2);
    assert.deepEqual(t.readOutbox(), { base: 0, urls: ['http://a.example/', 'http://b.example/x'] });
    t.dropOutbox();
    assert.equal(t.readOutbox(), null);
  });

  it('reads an outbox cut short as DRUM_CORRUPT_FILE', () => {
    const dir = tempDir();
    const s = ShardState.open(dir, 0, 2, 0);
    writeFileSync(join(dir, 'cluster', 'outbox.txt'), '#drum-outbox 0 3\nhttp://a.example/\n');
    assert.throws(() => s.readOutbox(), (e) => isDrumError(e, 'DRUM_CORRUPT_FILE'));
  });

  it('writes shard.json and the outbox through the file seam, so a fault or power-loss test sees each write', () => {
    const dir = tempDir();
    const ops: string[] = [];
    const dfs = new DrumFs(undefined, (op: FsOp, path: string) => void ops.push(`${op} ${path === dir ? '.' : path.slice(dir.length + 1)}`));
    const s = ShardState.open(dir, 0, 1, 0, dfs);
    s.writeOutbox({ base: 0, urls: ['http://a.example/'] });
    s.confirm(1);
    s.dropOutbox();
    const durably = (f: string): string[] => [`open-write cluster/${f}.tmp`, `write cluster/${f}.tmp`, `fsync cluster/${f}.tmp`, `rename cluster/${f}`, 'fsync cluster'];
    assert.deepEqual(ops, ['mkdir cluster', 'fsync .', ...durably('shard.json'), ...durably('outbox.txt'), ...durably('shard.json'), 'unlink cluster/outbox.txt']);
  });

  it('fails a write the disk refuses with DRUM_IO', () => {
    const dir = tempDir();
    ShardState.open(dir, 0, 1, 0);
    const s = ShardState.open(dir, 0, 1, 0, new DrumFs(undefined, (op) => {
      if (op === 'fsync') throw Object.assign(new Error('injected'), { code: 'EIO' });
    }));
    assert.throws(() => s.confirm(3), (e) => isDrumError(e, 'DRUM_IO'));
  });
});
