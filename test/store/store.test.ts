// The store's open (src/store/store.ts): a new store makes its state
// directory's own name durable, so a power loss cannot take the whole store
// after a run committed (POSIX makes a new name durable only at its
// directory's fsync): each directory drum makes on the way has its parent
// fsynced before anything is written in it, and an empty directory made
// before drum came has its parent fsynced once the first MANIFEST is
// durable; reopening an existing store does not fsync it again.
// REQUIRES: nothing (temporary directories only).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Drum } from '../../src/engine/drum.js';
import type { FsOp } from '../../src/io/fs.js';
import { tempDir } from '../helpers/tmp.js';

/** The mutating file operations of one open and close of the store at `state`. */
async function opsOfOpen(state: string, fsync = true): Promise<string[]> {
  const ops: string[] = [];
  const d = await Drum.open(state, { workers: 0, fsync, faultHook: (op: FsOp, path: string) => void ops.push(`${op} ${path}`) });
  await d.close();
  return ops;
}

describe('Store.open', () => {
  it('fsyncs the directory holding each directory it makes for a new state, before the first manifest', async () => {
    const base = tempDir();
    const state = join(base, 'crawl', 'shard', 'state');
    const ops = await opsOfOpen(state);
    const manifest = ops.indexOf(`rename ${join(state, 'MANIFEST')}`);
    assert.ok(manifest >= 0, ops.join('\n'));
    for (const d of [dirname(state), join(base, 'crawl'), base]) {
      const at = ops.indexOf(`fsync ${d}`);
      assert.ok(at >= 0 && at < manifest, `${d} fsynced before the manifest's rename:\n${ops.join('\n')}`);
    }
  });

  it('fsyncs the directory that holds an empty state directory made before it, once the first manifest is durable', async () => {
    const state = join(tempDir(), 'made-by-hand');
    mkdirSync(state);
    const ops = await opsOfOpen(state);
    const manifest = ops.indexOf(`rename ${join(state, 'MANIFEST')}`);
    const parent = ops.indexOf(`fsync ${dirname(state)}`);
    assert.ok(manifest >= 0, ops.join('\n'));
    assert.ok(parent > manifest, `the parent's fsync comes after the manifest's rename:\n${ops.join('\n')}`);
  });

  it('does not fsync the parent again when it opens an existing store, nor without fsync', async () => {
    const state = join(tempDir(), 'state');
    await opsOfOpen(state);
    assert.equal((await opsOfOpen(state)).includes(`fsync ${dirname(state)}`), false);
    const quick = join(tempDir(), 'quick');
    assert.equal((await opsOfOpen(quick, false)).includes(`fsync ${dirname(quick)}`), false);
  });
});
