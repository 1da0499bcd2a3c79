// End-to-end tests, with the real bin/drum, of a store's Bloom file across
// runs that rewrite its key files without a Bloom mode: a merging ingest,
// the key journal's fold by `drum compact` and by `drum upgrade`, and
// `drum forget`. Each drops the file in its own commit (`drum stats` says
// there is none), so no later run reloads a filter that lacks the keys it
// merged: a `lossy` ingest that follows emits every new URL, where a kept
// filter, sized for the store it was built for, filled up and dropped most
// of them. compact and upgrade with `--bloom gate` rebuild the filter
// instead. Does not measure the cost (docs/engineering-log.md).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { drum, ingestReport as ingest, storeStats as stats, uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const FLAGS = ['--no-fsync', '--workers', '0'];

/** A file of `n` distinct URLs from `from` on, over 97 hosts. */
function urlFile(dir: string, name: string, from: number, n: number): string {
  const path = join(dir, name);
  fs.writeFileSync(path, Array.from({ length: n }, (_, i) => `http://h${(from + i) % 97}.example/p/${from + i}\n`).join(''));
  return path;
}

/** A store with a Bloom file of 2,000 keys (a merging gate run) and 100 more keys in the key journal. */
async function journaledStore(dir: string, state: string, extra: string[] = []): Promise<void> {
  await ingest(state, join(dir, 'a'), ['--bloom', 'gate', '--journal-keys', '0', ...extra, urlFile(dir, 'a.txt', 0, 2000)]);
  const j = await ingest(state, join(dir, 'j'), ['--bloom', 'gate', urlFile(dir, 'j.txt', 2000, 100)]);
  assert.equal(j.tiers.journal.rounds, 1);
  const s = await stats(state);
  assert.deepEqual([s.storeUrls, s.journal?.keys, s.bloom?.keys], [2100, 100, 2000]);
}

describe('a store\'s Bloom file after a run that rewrites its key files', () => {
  it('is dropped by an ingest without --bloom that merges, and a lossy ingest after it drops no new URL', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    await ingest(state, join(dir, 'a'), ['--bloom', 'gate', '--journal-keys', '0', urlFile(dir, 'a.txt', 0, 2000)]);
    assert.equal((await stats(state)).bloom?.keys, 2000);
    const b = await ingest(state, join(dir, 'b'), ['--journal-keys', '0', urlFile(dir, 'b.txt', 2000, 20000)]);
    assert.equal(b.tiers.journal.rounds, 0, 'the run merged');
    const afterB = await stats(state);
    const text = (await drum(['stats', '--state', state])).stdout;
    const c = await ingest(state, join(dir, 'c'), ['--bloom', 'lossy', '--journal-keys', '0', urlFile(dir, 'c.txt', 22000, 20000)]);
    assert.equal(c.uniqueUrls, 20000, 'every new URL is emitted');
    assert.equal(c.tiers.bloom.maybeSeen, 0);
    assert.equal(afterB.bloom, null, 'no filter short of the 20,000 keys merged');
    assert.match(text, /bloom\s+none \(drum repair --bloom builds one/);
    const s = await stats(state);
    assert.deepEqual([s.storeUrls, s.bloom?.keys], [42000, 42000], 'the lossy run\'s merge writes a filter of every stored key');
    assert.equal((await drum(['verify', '--quiet', '--state', state])).status, 0);
  });

  it('is dropped by drum compact\'s fold of the key journal, and rebuilt whole by compact --bloom gate', async () => {
    const dir = tempDir();
    const off = join(dir, 'off');
    await journaledStore(dir, off);
    const r = await drum(['compact', ...FLAGS.slice(0, 1), '--state', off]);
    assert.equal(r.status, 0, r.stderr);
    const s = await stats(off);
    assert.deepEqual([s.storeUrls, s.journal, s.bloom], [2100, null, null]);
    assert.match(r.stdout, /bloom filter dropped with the key journal's fold/);
    const gateDir = join(dir, 'g');
    fs.mkdirSync(gateDir);
    const gate = join(gateDir, 'state');
    await journaledStore(gateDir, gate);
    const g = await drum(['compact', ...FLAGS.slice(0, 1), '--bloom', 'gate', '--state', gate]);
    assert.equal(g.status, 0, g.stderr);
    assert.doesNotMatch(g.stdout, /dropped/);
    const t = await stats(gate);
    assert.deepEqual([t.storeUrls, t.journal, t.bloom?.keys], [2100, null, 2100]);
    assert.equal((await drum(['verify', '--quiet', '--state', gate])).status, 0);
  });

  it('is dropped by drum upgrade when it folds the key journal, and rebuilt whole by upgrade --bloom gate', async () => {
    const dir = tempDir();
    const off = join(dir, 'off');
    await journaledStore(dir, off, ['--no-values']);
    const r = await drum(['upgrade', '--state', off]);
    assert.equal(r.status, 0, r.stderr);
    const s = await stats(off);
    assert.deepEqual([s.storeUrls, s.bloom], [2100, null]);
    assert.match(r.stdout, /bloom filter dropped with the key journal's fold/);
    const gateDir = join(dir, 'g');
    fs.mkdirSync(gateDir);
    const gate = join(gateDir, 'state');
    await journaledStore(gateDir, gate, ['--no-values']);
    const g = await drum(['upgrade', '--bloom', 'gate', '--json', '--state', gate]);
    assert.equal(g.status, 0, g.stderr);
    assert.equal((JSON.parse(g.stdout) as { upgraded: boolean }).upgraded, true);
    assert.equal((await stats(gate)).bloom?.keys, 2100);
    assert.equal((await drum(['verify', '--quiet', '--state', gate])).status, 0);
  });

  it('is dropped by drum forget without --bloom, and a lossy ingest emits the forgotten URLs again', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    await ingest(state, join(dir, 'a'), ['--bloom', 'gate', '--journal-keys', '0', urlFile(dir, 'a.txt', 0, 2000)]);
    const gone = uniques(join(dir, 'a')).slice(0, 100);
    fs.writeFileSync(join(dir, 'gone.txt'), gone.map((u) => `${u}\n`).join(''));
    const f = await drum(['forget', '--quiet', ...FLAGS, '--state', state, '--out', join(dir, 'f'), join(dir, 'gone.txt')]);
    assert.equal(f.status, 0, f.stderr);
    assert.equal((await stats(state)).bloom, null, 'no filter still holding the forgotten keys');
    await ingest(state, join(dir, 'b'), ['--bloom', 'lossy', '--journal-keys', '0', join(dir, 'gone.txt')]);
    assert.deepEqual(uniques(join(dir, 'b')), gone);
  });
});
