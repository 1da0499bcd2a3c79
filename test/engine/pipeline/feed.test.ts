// Feeder through Drum.checkUpdate: each merge hands its new URLs, in
// arrival order, to the beforeCommit hook before the store commits them;
// a source that is not iterable is refused with a stable code; runOptions
// are recorded with the run's options.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Drum } from '../../../src/engine/drum.js';
import { readManifest } from '../../../src/store/manifest.js';
import { tempDir } from '../../helpers/tmp.js';

describe('checkUpdate beforeCommit', () => {
  it('hands each merge its new URLs before the store commits them', async () => {
    const state = join(tempDir(), 's');
    const d = await Drum.open(state, { workers: 0, fsync: false });
    try {
      const seen: string[][] = [];
      const storedAtHook: number[] = [];
      const lines = ['http://a.example/1', 'http://b.example/2', 'http://a.example/1', 'http://c.example/3'];
      const got: string[] = [];
      const hook = async (urls: readonly string[]): Promise<void> => {
        seen.push([...urls]);
        const r = await Drum.open(state, { readOnly: true, workers: 0 });
        try {
          storedAtHook.push((await r.stats()).storeUrls);
        } finally {
          await r.close();
        }
      };
      for await (const u of d.checkUpdate([lines], { beforeCommit: hook })) got.push(u);
      assert.deepEqual(got, ['http://a.example/1', 'http://b.example/2', 'http://c.example/3']);
      assert.deepEqual(seen.flat(), got);
      assert.deepEqual(storedAtHook, [0], 'not committed yet when the hook runs');
      const again: string[] = [];
      for await (const u of d.checkUpdate([lines], { beforeCommit: hook })) again.push(u);
      assert.deepEqual(again, []);
    } finally {
      await d.close();
    }
  });
});

describe('checkUpdate sources', () => {
  it('refuses a source that is neither iterable nor async iterable with DRUM_BAD_OPTION, and goes on after it', async () => {
    const d = await Drum.open(join(tempDir(), 's'), { workers: 0, fsync: false });
    try {
      for (const bad of [42, null, { url: 'http://a.example/' }]) {
        await assert.rejects(async () => {
          for await (const u of d.checkUpdate(bad as unknown as string[])) void u;
        }, { code: 'DRUM_BAD_OPTION' });
      }
      const got: string[] = [];
      for await (const u of d.checkUpdate(['http://ok.example/\n'])) got.push(u);
      assert.deepEqual(got, ['http://ok.example/']);
    } finally {
      await d.close();
    }
  });
});

describe('checkUpdate runOptions', () => {
  it('records them with the run\'s options in its manifest state, beside a format they cannot replace', async () => {
    const state = join(tempDir(), 's');
    const d = await Drum.open(state, { workers: 0, fsync: false });
    try {
      for await (const u of d.checkUpdate(['http://a.example/\n'], { runOptions: { shard: '3/8', format: 'lines' } })) void u;
      assert.deepEqual(readManifest(state)?.run?.options, { shard: '3/8', format: 'library' });
      await assert.rejects(async () => {
        for await (const u of d.checkUpdate(['http://b.example/\n'], { runOptions: { shard: 3 } as unknown as Record<string, string> })) void u;
      }, { code: 'DRUM_BAD_OPTION' });
    } finally {
      await d.close();
    }
  });
});
