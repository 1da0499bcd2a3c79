// kill -9 of the real bin/drum during an ingest, short CI version (the full
// version with >= 20 kills is scripts/torture.ts): one reference run, then the
// same command killed at a seeded random moment, during a merge (a *.tmp key
// file exists) and at a commit (MANIFEST.tmp appears or the commit number
// moves), rerun after each kill until it completes. Checks the outputs are
// byte-identical to the reference run's, `drum verify` exits 0, and the
// report adds up. No timing assertions: where each kill landed only varies.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { MANY_ROUNDS, drum, haveEngine, outputs, rng, writeLinks, manifestOf } from '../harness.js';
import { tempDir } from '../../helpers/tmp.js';
import { runAndKill, type KillAim } from './kill.js';

// A small budget with the tiers off so several merges happen on a ~2 MB input.
const SMALL = [...MANY_ROUNDS, '--no-progress', '--quiet', '--no-fsync', '--workers', '1'];

describe('kill -9 during drum ingest', { skip: !haveEngine && 'engine not compiled' }, () => {
  it('resumes after kills while reading, merging and committing and writes exactly the uninterrupted outputs', async (t) => {
    const root = tempDir('drum-torture-');
    const input = join(root, 'links.txt');
    writeLinks(input, 100_000, 11);
    const args = (state: string, out: string): string[] => ['ingest', ...SMALL, '--state', state, '--out', out, input];

    const t0 = Date.now();
    const ref = await drum(args('ref-state', 'ref-out'), { cwd: root });
    const refMs = Date.now() - t0; // only to spread the kill moments over the run, never asserted
    assert.equal(ref.status, 0, ref.stderr);
    const expected = outputs(join(root, 'ref-out'));
    assert.ok(expected['unique-00001.txt'] && expected['rejects.tsv']);
    const refRounds = manifestOf(join(root, 'ref-state'))!.run!.rounds;
    assert.ok(refRounds >= 3, `several merges: ${refRounds}`);

    const r = rng(4242);
    const state = join(root, 'state');
    const aims: KillAim[] = ['time', 'merge', 'commit', 'time'];
    const landed: string[] = [];
    for (const aim of aims) {
      const k = await runAndKill(args('state', 'out'), { cwd: root, state, aim, delayMs: Math.floor(refMs * (aim === 'time' ? 0.3 + 0.7 * r() : 1.5)) });
      landed.push(k.phase);
      if (!k.killed) assert.equal(k.result.status, 0, k.result.stderr);
    }
    // On a loaded machine the reference run can be slower than the runs aimed
    // from it, so every aim may come after its run finished. Then start over
    // from an empty state and aim earlier each time, until a kill lands.
    for (let again = 1; !landed.some((p) => p !== 'exited') && again <= 5; again++) {
      fs.rmSync(state, { recursive: true, force: true });
      fs.rmSync(join(root, 'out'), { recursive: true, force: true });
      const k = await runAndKill(args('state', 'out'), { cwd: root, state, aim: 'merge', delayMs: Math.floor(refMs * 0.5 ** again) });
      landed.push(k.phase);
      if (!k.killed) assert.equal(k.result.status, 0, k.result.stderr);
    }
    assert.ok(landed.some((p) => p !== 'exited'), `at least one kill landed: ${landed.join(',')}`);
    t.diagnostic(`reference rounds ${refRounds}; kills landed at ${landed.join(', ')}`);
    let final = await drum(args('state', 'out'), { cwd: root });
    assert.equal(final.status, 0, final.stderr);
    assert.deepEqual(outputs(join(root, 'out')), expected, `kills landed at ${landed.join(',')}`);
    assert.equal(manifestOf(state)!.run!.status, 'complete');
    const v = await drum(['verify', '--state', 'state'], { cwd: root });
    assert.equal(v.status, 0, v.stderr);
    const rep = JSON.parse(fs.readFileSync(join(root, 'out', 'report.json'), 'utf8')) as { linksRead: number; uniqueUrls: number; duplicateUrls: number; rejectedLines: number };
    const refRep = JSON.parse(fs.readFileSync(join(root, 'ref-out', 'report.json'), 'utf8')) as typeof rep;
    assert.equal(rep.linksRead, rep.uniqueUrls + rep.duplicateUrls + rep.rejectedLines);
    assert.deepEqual([rep.linksRead, rep.uniqueUrls, rep.rejectedLines], [refRep.linksRead, refRep.uniqueUrls, refRep.rejectedLines]);
    // The same command once more: nothing left to do, the input is reported as already ingested.
    final = await drum(args('state', 'out2'), { cwd: root });
    assert.equal(final.status, 0, final.stderr);
  });
});
