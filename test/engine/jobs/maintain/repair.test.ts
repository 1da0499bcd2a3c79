import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../../../src/catalog/catalog.js';
import { Drum, repair, verifyStateDir } from '../../../../src/engine/drum.js';
import { isDrumError, osCode } from '../../../../src/errors.js';
import { readManifest } from '../../../../src/store/manifest.js';
import { keyOfString } from '../../../../src/fingerprint/key.js';
import { DrumFs } from '../../../../src/io/fs.js';
import { readBloom } from '../../../../src/tiers/bloom-file.js';
import { spawnSync } from 'node:child_process';
import { EXIT_STATUS } from '../../../../src/errors.js';
import { drum } from '../../../helpers/cli.js';
import { tempDir } from '../../../helpers/tmp.js';

/** Bind-mounts `dir` on itself (root only): renaming a mount point then fails with EBUSY. Null when not allowed. */
function pinAsMountPoint(dir: string): (() => void) | null {
  if (process.platform !== 'linux' || spawnSync('mount', ['--bind', dir, dir]).status !== 0) return null;
  return () => void spawnSync('umount', [dir]);
}

async function build(): Promise<{ state: string; input: string }> {
  const dir = tempDir();
  const input = join(dir, 'links.txt');
  fs.writeFileSync(input, Array.from({ length: 3000 }, (_, i) => `http://h${(i % 1000) % 17}.example/${i % 1000}`).join('\n'));
  const state = join(dir, 'state');
  // Journal off: the round merges and writes the Bloom file.
  const d = await Drum.open(state, { bloom: 'gate', workers: 0, fsync: false, journalKeys: 0 });
  await d.ingest({ inputs: [input], outDir: join(dir, 'out') });
  await d.close();
  return { state, input };
}

/** Removes the catalog's CURRENT: a vanished catalog, which writers and verify refuse and `repair --catalog` rebuilds. */
function loseCatalog(state: string): void {
  fs.rmSync(join(state, 'catalog', 'CURRENT'));
}

/** Folds the host counts into a table file and flips a byte of it: the catalog's records stay readable, writers still open it. */
async function damageHostTable(state: string): Promise<string> {
  const c = await Catalog.open(state, { sync: false });
  await c.compactHosts();
  await c.close();
  const name = fs.readdirSync(join(state, 'hosts')).find((n) => n.endsWith('.tbl'))!;
  const file = join(state, 'hosts', name);
  const b = fs.readFileSync(file);
  b[20]! ^= 0xff;
  fs.writeFileSync(file, b);
  return file;
}

/** A writer adds a URL after the repair; the host table then counts exactly the store's URLs (nothing counted twice or lost). */
async function expectHostsWholeAfterAWrite(state: string): Promise<void> {
  const w = await Drum.open(state, { workers: 0, fsync: false });
  await w.add(['http://after-repair.example/x']);
  await w.close();
  const c = await Catalog.open(state, { readOnly: true });
  try {
    assert.equal((await c.topHosts(100)).reduce((a, h) => a + h.uniqueUrls, 0), readManifest(state)!.storeUrls);
  } finally {
    await c.close();
  }
}

describe('drum repair', () => {
  it('rebuilds a damaged Bloom file from the key files, after which the store verifies and answers as before', async () => {
    const { state, input } = await build();
    const bloomFile = join(state, readManifest(state)!.bloom!.file);
    const b = fs.readFileSync(bloomFile);
    b[b.length - 3]! ^= 0xff;
    fs.writeFileSync(bloomFile, b);
    assert.equal((await verifyStateDir(state)).ok, false);
    const r = await repair(state, { bloom: true });
    assert.equal(r.bloom!.keys, 1000);
    assert.equal((await verifyStateDir(state)).ok, true);
    assert.equal(fs.existsSync(bloomFile), false);
    const d = await Drum.open(state, { bloom: 'gate', workers: 0, fsync: false });
    try {
      const fresh: string[] = [];
      await d.check({ inputs: [input], onNew: (u) => fresh.push(u) });
      assert.deepEqual(fresh, []);
    } finally {
      await d.close();
    }
  });

  it('rebuilds the Bloom filter from the key journal too, whose keys are every stored key before the first fold', async () => {
    const dir = tempDir();
    const input = join(dir, 'links.txt');
    const list = Array.from({ length: 500 }, (_, i) => `http://h${i % 17}.example/${i}`);
    fs.writeFileSync(input, list.join('\n'));
    const state = join(dir, 'state');
    // No Bloom mode: the journal round writes no Bloom file.
    const w = await Drum.open(state, { workers: 0, fsync: false });
    await w.ingest({ inputs: [input], outDir: join(dir, 'out') });
    await w.close();
    assert.equal(readManifest(state)!.journal!.keys, 500);
    const r = await repair(state, { bloom: true });
    assert.equal(r.bloom!.keys, 500);
    const bloom = await readBloom(new DrumFs(), join(state, readManifest(state)!.bloom!.file));
    const hostBits = readManifest(state)!.params.hostBits;
    assert.deepEqual(list.filter((u) => !bloom.mayContain(...keyOfString(u, hostBits))), []);
    assert.equal((await verifyStateDir(state)).ok, true);
  });

  it('rebuilds the URL log\'s index from its segments (drum repair --url-index), after which docIDs are answered again', async () => {
    const { state } = await build();
    const before = readManifest(state)!;
    const d0 = await Drum.open(state, { workers: 0, fsync: false });
    const urls = await d0.urls([0, 500, 999]);
    await d0.close();
    // An index whose first entry names another block, and whose committed length the manifest cut short.
    const idx = join(state, 'urls', 'blocks.idx');
    const b = fs.readFileSync(idx);
    b.writeUInt32LE(999, 16);
    fs.writeFileSync(idx, b);
    assert.equal((await verifyStateDir(state)).ok, false);
    const r = await drum(['repair', '--url-index', '--json', '--state', state]);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout) as { urlIndex: { blocks: number; docs: number } };
    assert.equal(out.urlIndex.docs, 1000);
    assert.equal((await verifyStateDir(state)).ok, true);
    assert.equal(readManifest(state)!.urlLog!.indexBytes, before.urlLog!.indexBytes);
    const d = await Drum.open(state, { workers: 0, fsync: false });
    try {
      assert.deepEqual(await d.urls([0, 500, 999]), urls);
    } finally {
      await d.close();
    }
  });

  it('resets a vanished catalog from the manifest history and recounts hosts from the unique files', async () => {
    const { state } = await build();
    loseCatalog(state);
    await assert.rejects(Drum.open(state, { workers: 0 }), (e) => isDrumError(e, 'DRUM_CORRUPT_FILE'));
    const r = await repair(state, { catalog: true });
    assert.equal(r.catalog!.runs, 1);
    assert.ok(fs.existsSync(r.catalog!.movedTo!));
    const c = await Catalog.open(state, { readOnly: true });
    try {
      const hosts = await c.topHosts(100);
      assert.equal(hosts.length, 17);
      assert.equal(hosts.reduce((a, h) => a + h.uniqueUrls, 0), readManifest(state)!.storeUrls);
      assert.equal((await c.listRuns(5)).length, 1);
    } finally {
      await c.close();
    }
    await (await Drum.open(state, { workers: 0, fsync: false })).close();
  });

  it('rebuilds the host table when its file is damaged: verify names the file, repair --catalog recounts, the next fold replaces it', async () => {
    const { state } = await build();
    const tables = (): string[] => fs.readdirSync(join(state, 'hosts')).filter((n) => n.endsWith('.tbl'));
    const file = await damageHostTable(state);
    const b = fs.readFileSync(file);
    const v = await verifyStateDir(state);
    assert.equal(v.ok, false);
    assert.deepEqual(v.problems.map((p) => [p.code, p.file]), [['DRUM_CORRUPT_FILE', file]]);
    await repair(state, { catalog: true });
    assert.equal((await verifyStateDir(state)).ok, true);
    const c = await Catalog.open(state, { sync: false });
    try {
      await c.compactHosts();
      const hosts = await c.topHosts(100);
      assert.equal(hosts.reduce((a, h) => a + h.uniqueUrls, 0), readManifest(state)!.storeUrls);
    } finally {
      await c.close();
    }
    assert.deepEqual(tables(), ['hosts-000001.tbl']);
    assert.notDeepEqual(fs.readFileSync(join(state, 'hosts', 'hosts-000001.tbl')), b);
  });

  it('keeps host counts equal to the store through the next writer after repair --catalog (the last round is not counted twice)', async () => {
    const { state } = await build();
    loseCatalog(state);
    await repair(state, { catalog: true });
    const d = await Drum.open(state, { workers: 0, fsync: false });
    await d.add(['http://after-repair.example/x']); // a writer: it recovers the last run's host counts if they lack their marker
    await d.close();
    const c = await Catalog.open(state, { readOnly: true });
    try {
      const hosts = await c.topHosts(100);
      assert.equal(hosts.reduce((a, h) => a + h.uniqueUrls, 0), readManifest(state)!.storeUrls);
    } finally {
      await c.close();
    }
  });

  it('counts the committed rounds of an unfinished run when it rebuilds the catalog, once', async () => {
    const state = join(tempDir(), 'state');
    const d = await Drum.open(state, { workers: 0, fsync: false, mergeEvery: 3 }); // a round of every 3 URLs
    async function* feed(): AsyncGenerator<string[]> {
      for (let r = 0; r < 5; r++) yield [0, 1, 2].map((i) => `http://u${i}.example/${r}`);
      throw new Error('the crawler stopped');
    }
    await assert.rejects(async () => {
      for await (const _ of d.checkUpdate(feed()));
    }, /the crawler stopped/);
    await d.close();
    assert.equal(readManifest(state)!.run!.status, 'running');
    assert.ok(readManifest(state)!.run!.rounds >= 4, `${readManifest(state)!.run!.rounds} rounds committed`);
    loseCatalog(state);
    // The history is empty, but the run's committed rounds had host counts in the lost catalog.
    assert.equal((await repair(state, { catalog: true })).catalog!.rebuilt, true);
    await expectHostsWholeAfterAWrite(state);
  });

  it('refuses writers and fails verify after a catalog rebuild that stopped part-way, until repair --catalog runs again', async () => {
    const { state } = await build();
    // A second run, on other hosts, whose unique file the rebuild reads after it has counted the first run's.
    const second = join(state, '..', 'second.txt');
    fs.writeFileSync(second, Array.from({ length: 500 }, (_, i) => `http://second${i % 5}.example/${i}`).join('\n'));
    const d0 = await Drum.open(state, { workers: 0, fsync: false, journalKeys: 0 });
    await d0.ingest({ inputs: [second], outDir: join(state, '..', 'out2') });
    await d0.close();
    // The rebuild stops at the second run (as a kill -9 there would): its unique file cannot be read.
    const unique = join(state, '..', 'out2', 'unique-00001.txt');
    fs.renameSync(unique, `${unique}.aside`);
    fs.mkdirSync(unique);
    loseCatalog(state);
    // DRUM_IO naming the file it cannot read (not an unexpected error).
    await assert.rejects(repair(state, { catalog: true }), (e) => isDrumError(e, 'DRUM_IO') && e.file === unique);
    // The new catalog has the first run's host counts and not the second's: nothing may write on top of it.
    await assert.rejects(Drum.open(state, { workers: 0, fsync: false }), (e) => isDrumError(e, 'DRUM_CORRUPT_FILE') && e.file === join(state, 'catalog'));
    const v = await verifyStateDir(state);
    assert.deepEqual(v.problems.map((p) => [p.code, p.file]), [['DRUM_CORRUPT_FILE', join(state, 'catalog')]]);
    fs.rmdirSync(unique);
    fs.renameSync(`${unique}.aside`, unique);
    await repair(state, { catalog: true });
    assert.equal((await verifyStateDir(state)).ok, true);
    await expectHostsWholeAfterAWrite(state);
  });

  it('fails with DRUM_IO when the damaged catalog cannot be moved aside, leaving it in place and the store unlocked', async () => {
    const { state } = await build();
    await damageHostTable(state);
    const eacces = (op: string): void => {
      if (op === 'rename') throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    };
    await assert.rejects(repair(state, { catalog: true }, { faultHook: eacces }), (e) => isDrumError(e, 'DRUM_IO') && osCode(e) === 'EACCES');
    assert.ok(fs.existsSync(join(state, 'catalog', 'CURRENT')));
    assert.deepEqual(fs.readdirSync(state).filter((f) => f.startsWith('catalog.damaged')), []);
    await (await Drum.open(state, { workers: 0, fsync: false })).close();
  });

  it('leaves writers and verify the catalog it could not move aside (no rebuild began)', async () => {
    const { state } = await build();
    const table = await damageHostTable(state);
    // Only the catalog's own move fails (a mount point's EBUSY); the rebuild marker is written as usual.
    const ebusy = (op: string, path: string): void => {
      if (op === 'rename' && path.includes('catalog.damaged-')) throw Object.assign(new Error('EBUSY: resource busy'), { code: 'EBUSY' });
    };
    await assert.rejects(repair(state, { catalog: true }, { faultHook: ebusy }), (e) => isDrumError(e, 'DRUM_IO'));
    assert.ok(fs.existsSync(join(state, 'catalog', 'CURRENT')));
    // Verify finds the damage it found before, and no unfinished rebuild.
    assert.deepEqual((await verifyStateDir(state)).problems.map((p) => [p.code, p.file]), [['DRUM_CORRUPT_FILE', table]]);
    await (await Drum.open(state, { workers: 0, fsync: false })).close();
  });

  it('exits with the DRUM_IO status, not a stack trace, when `drum repair --catalog` cannot move the catalog', async (t) => {
    const { state } = await build();
    await damageHostTable(state);
    const undo = pinAsMountPoint(join(state, 'catalog'));
    if (undo === null) return t.skip('bind mounts need root on Linux');
    try {
      const r = await drum(['repair', '--catalog', '--state', state]);
      assert.equal(r.status, EXIT_STATUS.DRUM_IO, r.stderr);
      assert.match(r.stderr, /^drum: DRUM_IO: .*EBUSY/m);
    } finally {
      undo();
    }
  });

  it('passes the rebuilt catalog\'s host-table files through the fault seam, where a fault or a power loss can reach them', async () => {
    const { state } = await build();
    loseCatalog(state);
    const seen: string[] = [];
    await repair(state, { catalog: true }, { faultHook: (op, path) => void seen.push(`${op} ${path}`) });
    assert.ok(seen.some((s) => s.startsWith(`rename ${join(state, 'hosts')}/`)), seen.join('\n'));
  });
});
