import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumFs } from '../../src/io/fs.js';
import { loadMemos, MEMO_HEADER_BYTES, saveMemos } from '../../src/tiers/memo-file.js';
import { TIER_HEADER_BYTES } from '../../src/tiers/tier-file.js';
import { cacheHeaderBytes } from '../../src/tiers/cache-file.js';
import { tempDir } from '../helpers/tmp.js';

/** A committed state: commit 7 of some manifest. */
const AT = { commit: 7, stateId: 0x5eed1234 };
const table = (entries: number, seed: number): Uint32Array => Uint32Array.from({ length: entries * 2 }, (_, i) => (i * 2654435761 + seed) >>> 0);

describe('memo.cache', () => {
  it('gives back the saved tables for the same commit, policy and size', () => {
    const p = join(tempDir(), 'memo.cache');
    saveMemos(new DrumFs(), p, AT, 'default/v3', 64, [table(64, 1), table(64, 2)]);
    const got = loadMemos(p, AT, 'default/v3', 64);
    assert.deepEqual(got, [table(64, 1), table(64, 2)]);
    assert.notEqual(got[0]!.buffer, got[1]!.buffer, 'each table has memory of its own (it goes to another thread)');
  });

  for (const [what, load] of [
    ['another commit', (p: string) => loadMemos(p, { ...AT, commit: 8 }, 'default/v3', 64)],
    ['another history at the same commit number (a restored backup)', (p: string) => loadMemos(p, { ...AT, stateId: AT.stateId ^ 1 }, 'default/v3', 64)],
    ['another policy', (p: string) => loadMemos(p, AT, 'none/v3', 64)],
    ['another memo size', (p: string) => loadMemos(p, AT, 'default/v3', 128)],
    ['memo off', (p: string) => loadMemos(p, AT, 'default/v3', 0)],
  ] as const) {
    it(`is ignored under ${what}`, () => {
      const p = join(tempDir(), 'memo.cache');
      saveMemos(new DrumFs(), p, AT, 'default/v3', 64, [table(64, 1)]);
      assert.deepEqual(load(p), []);
    });
  }

  it('is ignored when a byte of a table or the header is damaged, or the file is cut short or missing', () => {
    const dir = tempDir();
    const p = join(dir, 'memo.cache');
    saveMemos(new DrumFs(), p, AT, 'default/v3', 64, [table(64, 1)]);
    const good = fs.readFileSync(p);
    for (const at of [0, 8, 12, 24, MEMO_HEADER_BYTES, good.length - 1]) {
      const b = Buffer.from(good);
      b[at] = b[at]! ^ 0x01;
      fs.writeFileSync(p, b);
      assert.deepEqual(loadMemos(p, AT, 'default/v3', 64), [], `flipped byte ${at}`);
    }
    fs.writeFileSync(p, good.subarray(0, good.length - 8));
    assert.deepEqual(loadMemos(p, AT, 'default/v3', 64), []);
    assert.deepEqual(loadMemos(join(dir, 'absent'), AT, 'default/v3', 64), []);
  });

  it('is ignored when its header was rewritten to another commit or its flags changed: the CRC covers the header', () => {
    const p = join(tempDir(), 'memo.cache');
    saveMemos(new DrumFs(), p, AT, 'default/v3', 64, [table(64, 1)]);
    const good = fs.readFileSync(p);
    const moved = Buffer.from(good);
    moved.writeUInt32LE(AT.commit + 1, 8);
    fs.writeFileSync(p, moved);
    assert.deepEqual(loadMemos(p, { ...AT, commit: AT.commit + 1 }, 'default/v3', 64), []);
    const flags = Buffer.from(good);
    flags[6] = 1;
    fs.writeFileSync(p, flags);
    assert.deepEqual(loadMemos(p, AT, 'default/v3', 64), []);
  });

  it('spells out the same header sizes as the shared envelope computes (docs/file-format.md)', () => {
    assert.equal(MEMO_HEADER_BYTES, cacheHeaderBytes(3));
    assert.equal(TIER_HEADER_BYTES, cacheHeaderBytes(0));
  });
});
