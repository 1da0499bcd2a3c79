// Tests of what a long-running process pays per batch: the warm-start caches
// are written when the store closes (not after every commit), the store is
// verified once per open (a key file damaged later is still caught, by the
// merge's block CRCs), workers start only for an input of more than one
// chunk, and a writer that opens a catalog with piled-up host deltas folds
// them in a child process, counts unchanged, once their bytes reach the
// host table's.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DELTAS_BEFORE_FOLD } from '../../../src/catalog/catalog.js';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import { isDrumError } from '../../../src/errors.js';
import type { DrumOptions } from '../../../src/options.js';
import { readManifest } from '../../../src/store/manifest.js';
import { TIER_FILE } from '../../../src/tiers/tier-file.js';
import { MEMO_FILE } from '../../../src/tiers/memo-file.js';
import { withCatalog } from '../../helpers/catalog.js';
import { withDrum } from '../../helpers/drum.js';
import { tempDir } from '../../helpers/tmp.js';

const lines = (from: number, n: number): string => Array.from({ length: n }, (_, i) => `http://h${(from + i) % 11}.example/p/${from + i}`).join('\n') + '\n';
/** The commit number a cache file's header names, or null without the file. */
const cacheCommit = (state: string, file: string): number | null =>
  fs.existsSync(join(state, file)) ? fs.readFileSync(join(state, file)).readUInt32LE(8) : null;

describe('a long-running process', () => {
  const o: DrumOptions = { workers: 0, fsync: false };

  it('writes tiers.cache and memo.cache when it closes, not after each batch, tied to the last commit', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    for (const k of [0, 1, 2]) fs.writeFileSync(join(dir, `b${k}.txt`), lines(k * 500, 800));
    await withDrum(state, o, async (d) => {
      for (const k of [0, 1, 2]) await d.ingest({ inputs: [join(dir, `b${k}.txt`)], outDir: join(dir, `out-${k}`) });
      assert.equal(cacheCommit(state, TIER_FILE), null, 'no tiers.cache while the store is open');
      assert.equal(cacheCommit(state, MEMO_FILE), null, 'no memo.cache while the store is open');
    });
    const commit = readManifest(state)!.commit;
    assert.equal(cacheCommit(state, TIER_FILE), commit);
    assert.equal(cacheCommit(state, MEMO_FILE), commit);
    // The next process starts warm from them and stays exact.
    fs.writeFileSync(join(dir, 'b3.txt'), lines(0, 1800) + lines(9000, 50));
    await withDrum(state, o, async (e) => {
      const r = await e.ingest({ inputs: [join(dir, 'b3.txt')], outDir: join(dir, 'out-3') });
      assert.equal(r.uniqueUrls, 50);
      assert.ok(r.tiers.lineMemo.hits > 0, 'the memo loaded from memo.cache answered');
    });
  });

  it('tells when a full disk keeps a warm-start cache from being saved, names it and the error, and the runs complete', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    for (const k of [0, 1]) fs.writeFileSync(join(dir, `b${k}.txt`), lines(k * 500, 800));
    const notices: string[] = [];
    const full = (op: string, path: string): void => {
      if (op === 'open-write' && path.includes(TIER_FILE)) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    };
    await withDrum(state, { ...o, faultHook: full, onNotice: (m) => notices.push(m) }, async (d) => {
      for (const k of [0, 1]) {
        const r = await d.ingest({ inputs: [join(dir, `b${k}.txt`)], outDir: join(dir, `out-${k}`) });
        assert.equal(r.status, 'complete');
      }
    });
    const told = notices.filter((m) => m.includes(TIER_FILE));
    assert.equal(told.length, 1, notices.join('\n'));
    assert.match(told[0]!, /ENOSPC/);
    assert.equal(fs.existsSync(join(state, TIER_FILE)), false);
    assert.equal(cacheCommit(state, MEMO_FILE), readManifest(state)!.commit, 'the other cache is saved');
  });

  it('refuses a key file damaged after its first batch: the next merge finds it by CRC and the store keeps its URLs', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    fs.writeFileSync(join(dir, 'a.txt'), lines(0, 3000));
    fs.writeFileSync(join(dir, 'b.txt'), lines(3000, 3000));
    // Journal off: each batch merges (a journal round writes no key file to damage).
    await withDrum(state, { ...o, journalKeys: 0 }, async (d) => {
      await d.ingest({ inputs: [join(dir, 'a.txt')], outDir: join(dir, 'out-a') });
      const body = readManifest(state)!;
      const e = body.buckets.find((x) => x !== null && x.keys > 10)!;
      const path = join(state, e.file);
      const bytes = fs.readFileSync(path);
      bytes[bytes.length - 8]! ^= 0xff; // a key in the last block
      fs.writeFileSync(path, bytes);
      await assert.rejects(d.ingest({ inputs: [join(dir, 'b.txt')], outDir: join(dir, 'out-b') }), (err) => isDrumError(err, 'DRUM_CORRUPT_FILE'));
      const after = readManifest(state)!;
      assert.deepEqual(after.buckets, body.buckets, 'no bucket file replaced');
      assert.equal(after.storeUrls, body.storeUrls);
    });
  });

  it('parses an input of one chunk on the main thread without starting a worker, and starts it for a bigger one', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    fs.writeFileSync(join(dir, 'small.txt'), lines(0, 20));
    fs.writeFileSync(join(dir, 'big.txt'), lines(100, 4000));
    await withDrum(state, { ...o, workers: 1, chunkBytes: 16 << 10 }, async (d) => {
      const small = await d.ingest({ inputs: [join(dir, 'small.txt')], outDir: join(dir, 'out-s') });
      assert.equal(small.uniqueUrls, 20);
      assert.equal(small.parseSplit.chunksOnWorkers, 0, 'one chunk: no worker');
      const big = await d.ingest({ inputs: [join(dir, 'big.txt')], outDir: join(dir, 'out-b') });
      assert.equal(big.uniqueUrls, 4000);
      assert.ok(big.parseSplit.chunksOnWorkers > 0, 'a worker parsed chunks of the bigger input');
    });
  });

  it('folds piled-up host deltas at open in a child process, and every host count stays what the rounds added', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    fs.writeFileSync(join(dir, 'a.txt'), lines(0, 200));
    await withDrum(state, o, (d) => d.ingest({ inputs: [join(dir, 'a.txt')], outDir: join(dir, 'out-a') }));
    // Rounds recorded by earlier runs, more than a writer leaves pending.
    const model = new Map<string, number>();
    await withCatalog(state, async (c) => {
      for (const h of await c.topHosts(100)) model.set(h.host, h.uniqueUrls);
      for (let r = 0; r < DELTAS_BEFORE_FOLD + 2; r++) {
        const m = new Map([[`h${r % 7}.example`, 1 + r], [`other${r}.example`, 2]]);
        for (const [h, n] of m) model.set(h, (model.get(h) ?? 0) + n);
        await c.applyHostCounts('earlier', r, [encodeHostMap(m)]);
      }
      assert.ok((await c.pendingDeltas()) >= DELTAS_BEFORE_FOLD);
    });
    fs.writeFileSync(join(dir, 'b.txt'), lines(5000, 30));
    await withDrum(state, o, (e) => e.ingest({ inputs: [join(dir, 'b.txt')], outDir: join(dir, 'out-b') }));
    for (let i = 5000; i < 5030; i++) model.set(`h${i % 11}.example`, (model.get(`h${i % 11}.example`) ?? 0) + 1);
    await withCatalog(state, async (after) => {
      assert.ok((await after.pendingDeltas()) < DELTAS_BEFORE_FOLD, 'the deltas were folded');
      assert.ok(fs.readdirSync(join(state, 'hosts')).some((f) => /^hosts-\d{6}\.tbl$/.test(f)), 'into a host table file');
      assert.deepEqual(new Map((await after.topHosts(1000)).map((h) => [h.host, h.uniqueUrls])), model);
    }, { readOnly: true });
  });

  it('leaves host deltas pending at open while they hold fewer bytes than the host table, and folds them once they hold as many', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    fs.writeFileSync(join(dir, 'a.txt'), lines(0, 50));
    await withDrum(state, o, (d) => d.ingest({ inputs: [join(dir, 'a.txt')], outDir: join(dir, 'out-a') }));
    const model = new Map<string, number>();
    const apply = async (run: string, rounds: number, hostsPerRound: number): Promise<void> => withCatalog(state, async (c) => {
      for (let r = 0; r < rounds; r++) {
        const m = new Map(Array.from({ length: hostsPerRound }, (_, i) => [`${run}-${r}-${i}.example`, 1 + i] as const));
        for (const [h, n] of m) model.set(h, (model.get(h) ?? 0) + n);
        await c.applyHostCounts(run, r, [encodeHostMap(m)]);
      }
    });
    const counts = async (): Promise<{ pending: number; bytes: number; table: number; hosts: Map<string, number> }> => withCatalog(state, async (c) => {
      const p = await c.pendingShape();
      return { pending: p.parts, bytes: p.bytes, table: p.tableBytes, hosts: new Map((await c.topHosts(10_000)).map((h) => [h.host, h.uniqueUrls])) };
    }, { readOnly: true });
    for (const [h, n] of (await counts()).hosts) model.set(h, n);
    // A table of 4,000 hosts more, folded.
    await apply('big', 4, 1000);
    await withCatalog(state, async (c) => void (await c.compactHosts()));
    const ingestSmall = async (from: number): Promise<void> => {
      fs.writeFileSync(join(dir, 'b.txt'), lines(from, 5));
      await withDrum(state, o, (e) => e.ingest({ inputs: [join(dir, 'b.txt')], outDir: join(dir, `out-${from}`) }));
      for (let i = from; i < from + 5; i++) model.set(`h${i % 11}.example`, (model.get(`h${i % 11}.example`) ?? 0) + 1);
    };
    // More deltas than a writer's open folds at, a host each: far fewer bytes than the table.
    await apply('small', DELTAS_BEFORE_FOLD + 2, 1);
    await ingestSmall(7000);
    const kept = await counts();
    assert.ok(kept.pending >= DELTAS_BEFORE_FOLD + 2, `the open left them pending (${kept.pending})`);
    assert.ok(kept.bytes < kept.table);
    assert.deepEqual(kept.hosts, model, 'reads add the pending deltas to the table');
    // Deltas as big as the table: the next open folds them all.
    await apply('more', 8, 600);
    await ingestSmall(8000);
    const folded = await counts();
    assert.ok(folded.pending < DELTAS_BEFORE_FOLD, `the open folded them (${folded.pending} left)`);
    assert.deepEqual(folded.hosts, model);
  });
});
