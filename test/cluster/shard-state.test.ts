// A shard's record beside its store: created for one (shard, shards) and
// refused for another, the confirmed ordinal and the outbox survive reopening,
// a damaged outbox is DRUM_CORRUPT_FILE.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ShardState } from '../../src/cluster/shard-state.js';
import { isDrumError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';

describe('ShardState', () => {
  it('refuses a state made for another shard or shard count, and a store that was never a shard', () => {
    const dir = tempDir();
    ShardState.open(dir, 1, 4, 0);
    assert.throws(() => ShardState.open(dir, 2, 4, 0), (e) => isDrumError(e, 'DRUM_BAD_OPTION'));
    assert.throws(() => ShardState.open(dir, 1, 8, 0), (e) => isDrumError(e, 'DRUM_BAD_OPTION'));
    assert.throws(() => ShardState.open(tempDir(), 0, 4, 10), (e) => isDrumError(e, 'DRUM_BAD_OPTION'));
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
});
