// The writer's garbage collection at open (store-files.ts collectGarbage):
// files of an interrupted commit and everything in work/ go, while a
// directory someone made in work/ or store/ is left as it is and the store
// still opens.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../src/engine/drum.js';
import { tempDir } from '../helpers/tmp.js';

const OPTS = { workers: 0, fsync: false } as const;

async function addOne(state: string, url: string): Promise<string[]> {
  const d = await Drum.open(state, OPTS);
  try {
    return (await d.add([url])).newUrls;
  } finally {
    await d.close();
  }
}

describe('collectGarbage at a writer\'s open', () => {
  it('empties work/ of files but leaves a directory made there or in store/, and the store opens', async () => {
    const state = tempDir();
    assert.deepEqual(await addOne(state, 'http://a.example/1'), ['http://a.example/1']);
    for (const d of ['work/mine', 'store/mine']) {
      mkdirSync(join(state, d), { recursive: true });
      writeFileSync(join(state, d, 'keep.txt'), 'x');
    }
    writeFileSync(join(state, 'work', 'stray.dat'), 'x');
    assert.deepEqual(await addOne(state, 'http://a.example/2'), ['http://a.example/2']);
    assert.equal(existsSync(join(state, 'work', 'stray.dat')), false);
    assert.deepEqual(readdirSync(join(state, 'work', 'mine')), ['keep.txt']);
    assert.deepEqual(readdirSync(join(state, 'store', 'mine')), ['keep.txt']);
  });
});
