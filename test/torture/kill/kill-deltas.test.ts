// kill -9 of the real bin/drum while its rounds write values deltas
// (docs/file-format.md, "Store values delta file"): a store with values
// files, then an ingest whose every round only adds URLs and so appends a
// delta to each bucket, killed during a merge (a *.tmp file exists) and at a
// commit (MANIFEST.tmp appears or the commit number moves), rerun until it
// completes. Its outputs are byte-identical to an uninterrupted run's from
// the same store, every URL has the docID it has there, the store names
// deltas, and `drum verify` exits 0. No timing assertions.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { drum, haveEngine, manifestOf, outputs, writeLinks } from '../harness.js';
import { tempDir } from '../../helpers/tmp.js';
import { runAndKill, type KillAim } from './kill.js';
import { readUrlValues } from '../../helpers/values.js';

// Every round a merge (no key journal, tiers off), a round every 1,000 keys, over 8 buckets.
const FLAGS = ['--no-progress', '--quiet', '--no-fsync', '--workers', '0', '--buckets', '8', '--journal-keys', '0', '--cache-entries', '0', '--recent-entries', '0', '--line-memo-entries', '0', '--merge-every', '1000'];

describe('kill -9 while rounds write values deltas', { skip: !haveEngine && 'engine not compiled' }, () => {
  it('resumes after kills in a delta round\'s merge and commit with the uninterrupted run\'s outputs and docIDs', async (t) => {
    const root = tempDir('drum-torture-');
    writeLinks(join(root, 'a.txt'), 200_000, 21);
    writeLinks(join(root, 'b.txt'), 60_000, 22);
    const base = join(root, 'base');
    const first = await drum(['ingest', ...FLAGS, '--merge-every', '1000000', '--state', base, '--out', join(root, 'a-out'), join(root, 'a.txt')], { cwd: root });
    assert.equal(first.status, 0, first.stderr);
    const args = (state: string, out: string): string[] => ['ingest', ...FLAGS, '--state', state, '--out', out, join(root, 'b.txt')];

    fs.cpSync(base, join(root, 'ref-state'), { recursive: true });
    const t0 = Date.now();
    const ref = await drum(args('ref-state', 'ref-out'), { cwd: root });
    const refMs = Date.now() - t0; // only to spread the kill moments over the run, never asserted
    assert.equal(ref.status, 0, ref.stderr);
    const refManifest = manifestOf(join(root, 'ref-state'))!;
    assert.ok(refManifest.run!.rounds >= 3, `several rounds: ${refManifest.run!.rounds}`);
    assert.ok(refManifest.buckets.every((e) => (e?.values?.deltas?.length ?? 0) > 0), 'every bucket took deltas');

    const state = join(root, 'state');
    fs.cpSync(base, state, { recursive: true });
    const aims: KillAim[] = ['merge', 'commit', 'merge', 'commit'];
    const landed: string[] = [];
    for (const aim of aims) {
      const k = await runAndKill(args('state', 'out'), { cwd: root, state, aim, delayMs: Math.floor(refMs * 1.5) });
      landed.push(k.phase);
      if (!k.killed) assert.equal(k.result.status, 0, k.result.stderr);
    }
    t.diagnostic(`kills landed at ${landed.join(', ')}`);
    const final = await drum(args('state', 'out'), { cwd: root });
    assert.equal(final.status, 0, final.stderr);
    assert.deepEqual(outputs(join(root, 'out')), outputs(join(root, 'ref-out')), `kills landed at ${landed.join(',')}`);
    // docID, first run and host check as the uninterrupted run gave them (lastEmitted is each round's clock).
    const kept = (dir: string): Map<string, number[]> => new Map([...readUrlValues(dir)].map(([k, v]) => [k, [v.docID, v.firstRun, v.hostCheck, v.flags]]));
    assert.deepEqual(kept(state), kept(join(root, 'ref-state')));
    assert.ok(manifestOf(state)!.buckets.some((e) => (e?.values?.deltas?.length ?? 0) > 0), 'the store names deltas');
    const v = await drum(['verify', '--state', 'state'], { cwd: root });
    assert.equal(v.status, 0, v.stderr);
  });
});
