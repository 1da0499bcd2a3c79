// The three caches drum writes without an fsync on purpose (tiers.cache,
// memo.cache, verified.cache: tmp file, rename, no fsync), torn as a power
// loss may leave them (power-loss-torn.ts: a new file's name kept with any
// 4 KiB pages of what was written, its length cut at a page boundary or
// not, the rest zeros or junk): every torn copy that is not the whole file
// is ignored — never loaded, never thrown over — and the whole one loads.
// The power-loss trials cannot show this through a run's outputs: junk in a
// cache names keys no URL has, so a cache loaded in error would change
// nothing they compare.
// REQUIRES: nothing (temporary directories only).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumFs } from '../../../src/io/fs.js';
import { readManifest } from '../../../src/store/manifest.js';
import { fileIdentity, loadVerified, saveVerified, VERIFIED_FILE } from '../../../src/store/verified-cache.js';
import { HotCache } from '../../../src/tiers/hot-cache.js';
import { loadMemos, saveMemos } from '../../../src/tiers/memo-file.js';
import { RecentTable } from '../../../src/tiers/recent-table.js';
import { loadTiers, saveTiers } from '../../../src/tiers/tier-file.js';
import { withDrum } from '../../helpers/drum.js';
import { tempDir } from '../../helpers/tmp.js';
import { Tear } from './power-loss-torn.js';

const AT = { commit: 7, stateId: 0x5eed1234 };
const SEEDS = 300;

/** Writes `SEEDS` torn copies of the cache at `path` over it in turn; `load` says whether each loaded. Returns how many copies were torn. */
function tearEach(path: string, load: () => boolean): number {
  const whole = fs.readFileSync(path);
  let torn = 0;
  for (let seed = 1; seed <= SEEDS; seed++) {
    // The cache was renamed into place unsynced: its new file had no durable bytes.
    const b = new Tear(seed).bytes(Buffer.alloc(0), whole);
    fs.writeFileSync(path, b);
    const isWhole = b.equals(whole);
    if (!isWhole) torn++;
    assert.equal(load(), isWhole, `seed ${seed}: ${b.length} of ${whole.length} bytes`);
  }
  return torn;
}

describe('a cache torn by a power loss', () => {
  it('is ignored when it is tiers.cache, and the tables stay empty', () => {
    const path = join(tempDir(), 'tiers.cache');
    const c = new HotCache(1024);
    const r = new RecentTable(4096);
    for (let i = 1; i <= 3000; i++) {
      r.add(i, i * 7);
      if (i % 3 === 0) c.insert(i, i * 7);
    }
    saveTiers(new DrumFs(), path, AT, [c, r]);
    assert.ok(fs.statSync(path).size > 8 * 4096, 'the file spans many pages');
    const torn = tearEach(path, () => {
      const t: [HotCache, RecentTable] = [new HotCache(1024), new RecentTable(4096)];
      const ok = loadTiers(path, AT, t);
      if (!ok) assert.equal(t[1].size, 0);
      return ok;
    });
    assert.ok(torn > SEEDS / 2, `${torn} torn`);
  });

  it('is ignored when it is memo.cache', () => {
    const path = join(tempDir(), 'memo.cache');
    const table = Uint32Array.from({ length: 4096 * 2 }, (_, i) => (i * 2654435761 + 1) >>> 0);
    saveMemos(new DrumFs(), path, AT, 'default/v3', 4096, [table, table]);
    const torn = tearEach(path, () => loadMemos(path, AT, 'default/v3', 4096).length > 0);
    assert.ok(torn > SEEDS / 2, `${torn} torn`);
  });

  it('is ignored when it is verified.cache, so every bucket file is read again', async () => {
    const state = join(tempDir(), 'state');
    await withDrum(state, { workers: 0, fsync: false, journalKeys: 0 }, (d) => d.add(Array.from({ length: 500 }, (_, i) => `http://h${i % 5}.example/p/${i}`)));
    const body = readManifest(state)!;
    const vouched = new Map<string, Uint32Array>();
    for (const e of body.buckets) {
      if (!e) continue;
      vouched.set(e.file, fileIdentity(join(state, e.file)));
      if (e.values !== undefined) vouched.set(e.values.file, fileIdentity(join(state, e.values.file)));
    }
    saveVerified(new DrumFs(), state, AT, body, vouched);
    assert.equal(loadVerified(state, AT, body).size, vouched.size);
    const torn = tearEach(join(state, VERIFIED_FILE), () => loadVerified(state, AT, body).size > 0);
    assert.ok(torn > SEEDS / 2, `${torn} torn`);
  });
});
