// kill -9 during the host-count fold a writer's open runs (session-open.ts:
// once 64 or more round deltas are pending, in a child process,
// fold-child.ts): a store whose one ingest (in this process, in chunks of
// 16 KiB, a round each) left ~100 pending deltas, then a
// `drum ingest` of the same input (already ingested: it adds nothing, so
// the counts must not move) killed while its open folds: as soon as the new
// table's *.tbl.tmp appears (the fold spilling or merging), at a random
// moment after the fold child starts, and either the drum process alone
// (the child stops when its parent's channel closes) or the child first and
// then drum (the fold cut wherever it was). After each kill the counts read
// from the catalog equal a Map model of every host's count taken before
// the fold, and `drum verify` exits 0; a rerun then folds, and the counts
// are still the model's, their sum the store's URLs. Not a timing test.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../../src/catalog/catalog.js';
import { Drum } from '../../../src/engine/drum.js';
import { drum, haveEngine, manifestOf, startDrum, writeLinks } from '../harness.js';
import { tempDir } from '../../helpers/tmp.js';
import { childOf } from '../../helpers/proc.js';

const FLAGS = ['--no-progress', '--quiet', '--no-fsync', '--workers', '0'];

/** Every host's count and the pending deltas, as a reader sees them. */
async function counts(state: string): Promise<{ hosts: Map<string, number>; pending: number }> {
  const c = await Catalog.open(state, { readOnly: true });
  try {
    return { hosts: new Map((await c.topHosts(10_000_000)).map((h) => [h.host, h.uniqueUrls])), pending: await c.pendingDeltas() };
  } finally {
    await c.close();
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

type Aim = 'table-tmp' | 'random';

/**
 * Runs the writer on `state` and kill -9s it while its open folds: at `aim`,
 * drum alone or (`tree`) the fold child first. Returns where the kill landed:
 * 'writing' (a *.tbl.tmp was left), 'before' (deltas still pending, no tmp),
 * 'committed' (nothing pending), or 'missed' (no fold child was seen).
 */
async function killDuringFold(root: string, state: string, input: string, aim: Aim, delayMs: number, tree: boolean): Promise<string> {
  const { child, done } = startDrum(['ingest', ...FLAGS, '--state', state, '--out', join(root, `out-${Date.now()}`), input], { cwd: root });
  const hosts = join(state, 'hosts');
  let fold: number | null = null;
  let seenAt = 0;
  for (let exited = false; !exited; ) {
    void done.then(() => (exited = true));
    fold ??= childOf(child.pid!);
    if (fold !== null && seenAt === 0) seenAt = Date.now();
    const writing = fs.readdirSync(hosts).some((n) => n.endsWith('.tbl.tmp'));
    if (aim === 'table-tmp' ? writing : fold !== null && Date.now() - seenAt >= delayMs) break;
    await new Promise((r) => setTimeout(r, 1));
  }
  if (tree && fold !== null) {
    try {
      process.kill(fold, 'SIGKILL');
    } catch (e) {
      // The fold ended between being seen and being killed: the writer's kill still lands.
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
    }
  }
  child.kill('SIGKILL');
  await done;
  for (let i = 0; fold !== null && i < 400 && alive(fold); i++) await new Promise((r) => setTimeout(r, 25));
  assert.ok(fold === null || !alive(fold), 'the fold child outlived the killed writer');
  if (fold === null) return 'missed';
  if (fs.readdirSync(hosts).some((n) => n.endsWith('.tbl.tmp'))) return 'writing';
  return (await counts(state)).pending > 0 ? 'before' : 'committed';
}

describe('kill -9 while a writer\'s open folds the host counts', { skip: (!haveEngine || process.platform !== 'linux') && 'engine not compiled, or no /proc' }, () => {
  it('leaves every host count as it was before the fold, killed anywhere in it, and the rerun folds them', async (t) => {
    const root = tempDir('drum-torture-');
    const input = join(root, 'links.txt');
    writeLinks(input, 200_000, 31, { hosts: 50_000 });
    const base = join(root, 'base');
    // A round a chunk of ~250 links (tiers and key journal off): ~100 deltas of ~500 hosts each, ~2.5 MB.
    const d = await Drum.open(base, { workers: 0, fsync: false, chunkBytes: 16384, mergeEvery: 1000, cacheEntries: 0, recentEntries: 0, journalKeys: 0, buckets: 8 });
    try {
      await d.ingest({ inputs: [input], outDir: join(root, 'out-base') });
    } finally {
      await d.close();
    }
    const before = await counts(base);
    assert.ok(before.pending >= 64, `${before.pending} deltas pending: the next open folds`);
    assert.equal([...before.hosts.values()].reduce((a, n) => a + n, 0), manifestOf(base)!.storeUrls);
    const trials: [Aim, number, boolean][] = [['table-tmp', 0, false], ['table-tmp', 0, true], ['random', 40, true], ['random', 120, true], ['random', 250, false], ['random', 500, true]];
    const landed: string[] = [];
    for (const [k, [aim, delay, tree]] of trials.entries()) {
      const state = join(root, `k-${k}`);
      fs.cpSync(base, state, { recursive: true });
      const where = await killDuringFold(root, state, input, aim, delay, tree);
      landed.push(`${aim}/${tree ? 'tree' : 'drum'}: ${where}`);
      const now = await counts(state);
      assert.deepEqual(now.hosts, before.hosts, `counts after a kill (${landed.at(-1)})`);
      assert.ok(now.pending === 0 || now.pending === before.pending, `${now.pending} deltas pending after the kill`);
      const v = await drum(['verify', '--state', state], { cwd: root });
      assert.equal(v.status, 0, `verify after a kill (${landed.at(-1)}): ${v.stdout}${v.stderr}`);
      const again = await drum(['ingest', ...FLAGS, '--state', state, '--out', join(root, `out-again-${k}`), input], { cwd: root });
      assert.equal(again.status, 0, again.stderr);
      const folded = await counts(state);
      assert.equal(folded.pending, 0);
      assert.deepEqual(folded.hosts, before.hosts);
    }
    t.diagnostic(`kills landed: ${landed.join('; ')}`);
    assert.ok(landed.some((l) => l.endsWith('writing')), `no kill landed while the fold wrote: ${landed.join('; ')}`);
  });
});
