import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { HotCache } from '../../src/tiers/hot-cache.js';
import { RecentTable } from '../../src/tiers/recent-table.js';
import { DrumFs } from '../../src/io/fs.js';
import { loadTiers, saveTiers } from '../../src/tiers/tier-file.js';
import { saveCache } from '../../src/tiers/cache-file.js';
import { tempDir } from '../helpers/tmp.js';

function filled(): [HotCache, RecentTable] {
  const c = new HotCache(1024);
  const r = new RecentTable(4096);
  for (let i = 0; i < 3000; i++) {
    r.add(i, i * 7);
    if (i % 3 === 0) c.insert(i, i * 7);
  }
  return [c, r];
}

/** A committed state: commit 7 of some manifest. */
const AT = { commit: 7, stateId: 0x5eed1234 };

describe('tier file', () => {
  it('restores both tables exactly for the same commit', () => {
    const path = join(tempDir(), 'tiers.cache');
    const [c, r] = filled();
    saveTiers(new DrumFs(), path, AT, [c, r]);
    const c2 = new HotCache(1024);
    const r2 = new RecentTable(4096);
    assert.equal(loadTiers(path, AT, [c2, r2]), true);
    for (let i = 0; i < 3000; i++) {
      assert.equal(r2.has(i, i * 7), r.has(i, i * 7));
      assert.equal(c2.has(i, i * 7), c.has(i, i * 7));
    }
    assert.equal(r2.size, r.size);
  });

  it('ignores a file whose header was rewritten to another commit or whose flags changed: the CRC covers the header', () => {
    const path = join(tempDir(), 'tiers.cache');
    const [c, r] = filled();
    saveTiers(new DrumFs(), path, AT, [c, r]);
    const good = fs.readFileSync(path);
    const moved = Buffer.from(good);
    moved.writeUInt32LE(AT.commit + 1, 8);
    fs.writeFileSync(path, moved);
    assert.equal(loadTiers(path, { ...AT, commit: AT.commit + 1 }, [new HotCache(1024), new RecentTable(4096)]), false);
    const flags = Buffer.from(good);
    flags[6] = 1;
    fs.writeFileSync(path, flags);
    assert.equal(loadTiers(path, AT, [new HotCache(1024), new RecentTable(4096)]), false);
  });

  it('ignores a file of another committed state, of other sizes, or with a flipped byte, leaving the tables empty', () => {
    const path = join(tempDir(), 'tiers.cache');
    saveTiers(new DrumFs(), path, AT, filled());
    const fresh = (): [HotCache, RecentTable] => [new HotCache(1024), new RecentTable(4096)];
    assert.equal(loadTiers(path, { ...AT, commit: 8 }, fresh()), false);
    assert.equal(loadTiers(path, { ...AT, stateId: AT.stateId + 1 }, fresh()), false, 'another history at the same commit number');
    assert.equal(loadTiers(path, AT, [new HotCache(2048), new RecentTable(4096)]), false);
    const b = fs.readFileSync(path);
    b[b.length - 5]! ^= 1;
    fs.writeFileSync(path, b);
    const t = fresh();
    assert.equal(loadTiers(path, AT, t), false);
    assert.equal(t[1].size, 0);
    assert.equal(loadTiers(join(tempDir(), 'absent'), AT, fresh()), false);
  });

  it('keeps the previous file and leaves no tmp file when a write fails, and saveCache lets only IO errors pass', () => {
    const dir = tempDir();
    const path = join(dir, 'tiers.cache');
    saveTiers(new DrumFs(), path, AT, filled());
    const before = fs.readFileSync(path);
    let writes = 0;
    const eio = new DrumFs(undefined, (op) => {
      if (op === 'write' && ++writes === 2) throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
    });
    assert.throws(() => saveTiers(eio, path, { ...AT, commit: 8 }, filled()), { code: 'DRUM_IO' });
    assert.ok(fs.readFileSync(path).equals(before));
    assert.deepEqual(fs.readdirSync(dir), ['tiers.cache']);
    writes = 0;
    saveCache(() => saveTiers(eio, path, { ...AT, commit: 8 }, filled()));
    class Crash extends Error {}
    const crashAt = (at: string): DrumFs => new DrumFs(undefined, (op) => {
      if (op === at) throw new Crash('simulated crash');
    });
    assert.throws(() => saveCache(() => saveTiers(crashAt('unlink'), path, AT, filled())), Crash);
    assert.equal(loadTiers(path, AT, [new HotCache(1024), new RecentTable(4096)]), true, 'a crash before the delete keeps the old file');
    assert.throws(() => saveCache(() => saveTiers(crashAt('rename'), path, AT, filled())), Crash);
    assert.equal(fs.existsSync(path), false, 'a crash between the delete and the rename leaves no cache, only its tmp file');
    saveTiers(new DrumFs(), path, AT, filled());
    assert.deepEqual(fs.readdirSync(dir), ['tiers.cache']);
    assert.equal(loadTiers(path, AT, [new HotCache(1024), new RecentTable(4096)]), true);
  });

  it('deletes the old file only after the new one is written, just before the rename (no rename over it)', () => {
    const dir = tempDir();
    const path = join(dir, 'tiers.cache');
    saveTiers(new DrumFs(), path, AT, filled());
    const ops: string[] = [];
    saveTiers(new DrumFs(undefined, (op, p) => void ops.push(`${op} ${p.slice(dir.length + 1)}`)), path, { ...AT, commit: 8 }, filled());
    assert.deepEqual(ops.filter((o) => o.startsWith('unlink') || o.startsWith('rename')), ['unlink tiers.cache', 'rename tiers.cache']);
    const lastWrite = ops.map((o) => o.startsWith('write ')).lastIndexOf(true);
    assert.ok(lastWrite >= 0 && ops.indexOf('unlink tiers.cache') > lastWrite, 'deleted after the last write');
  });
});
