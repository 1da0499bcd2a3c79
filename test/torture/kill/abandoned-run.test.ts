// kill -9 of the real bin/drum, each rerun with ANOTHER --out: every rerun
// abandons the killed run instead of resuming it. After a chain of kills
// (while reading, during a merge, at a commit) and a final complete run, the
// output directories together hold every new URL of an uninterrupted run
// exactly once, each abandoned run's directory holds exactly the count
// `drum runs --json` lists for it, and `drum verify` exits 0.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { RunRecord } from '../../../src/catalog/catalog.js';
import { uniques } from '../../helpers/cli.js';
import { MANY_ROUNDS, drum, haveEngine, rng, writeLinks } from '../harness.js';
import { tempDir } from '../../helpers/tmp.js';
import { runAndKill, type KillAim } from './kill.js';

const SMALL = [...MANY_ROUNDS, '--no-progress', '--quiet', '--no-fsync', '--workers', '1'];

describe('kill -9, then a run with another output directory', { skip: !haveEngine && 'engine not compiled' }, () => {
  it('delivers every new URL exactly once across the abandoned and final outputs and lists each abandoned run with its count', async (t) => {
    const root = tempDir('drum-torture-');
    const input = join(root, 'links.txt');
    writeLinks(input, 100_000, 23);
    const args = (state: string, out: string): string[] => ['ingest', ...SMALL, '--state', state, '--out', out, input];
    const t0 = Date.now();
    const ref = await drum(args('ref-state', 'ref-out'), { cwd: root });
    const refMs = Date.now() - t0; // only spreads the kill moments, never asserted
    assert.equal(ref.status, 0, ref.stderr);
    const expected = uniques(join(root, 'ref-out'));

    const r = rng(77);
    const state = join(root, 'state');
    const aims: KillAim[] = ['time', 'merge', 'commit', 'time'];
    const outs: string[] = [];
    const killedRuns: string[] = [];
    const listRuns = async (): Promise<RunRecord[]> => JSON.parse((await drum(['runs', '--json', '--state', 'state'], { cwd: root })).stdout) as RunRecord[];
    /** The run that stands interrupted, if any: the next attempt that gets going must abandon it, and say so. */
    let pending: string | null = null;
    const settle = async (stderr: string): Promise<void> => {
      const runs = await listRuns();
      if (pending !== null && runs.find((x) => x.runId === pending)?.status === 'abandoned') {
        assert.match(stderr, new RegExp(`abandoned the unfinished run ${pending}`));
        pending = null;
      }
      const top = runs[0];
      if (top?.status === 'interrupted' && top.runId !== pending) {
        killedRuns.push(top.runId);
        pending = top.runId;
      }
    };
    for (const [k, aim] of aims.entries()) {
      const out = `out${k}`;
      outs.push(out);
      const res = await runAndKill(args('state', out), { cwd: root, state, aim, delayMs: Math.floor(refMs * (aim === 'time' ? 0.2 + 0.6 * r() : 1.5)) });
      await settle(res.result.stderr);
      if (!res.killed) {
        assert.equal(res.result.status, 0, res.result.stderr);
        break; // it completed: nothing more to abandon
      }
      t.diagnostic(`kill ${k} landed at ${res.phase}`);
    }
    const final = await drum(args('state', 'final'), { cwd: root });
    assert.equal(final.status, 0, final.stderr);
    await settle(final.stderr);
    assert.equal(pending, null, 'the final run abandoned the last interrupted one');
    outs.push('final');

    const all = outs.filter((o) => fs.existsSync(join(root, o))).flatMap((o) => uniques(join(root, o)));
    assert.equal(all.length, new Set(all).size, 'no URL in two outputs');
    assert.deepEqual(new Set(all), new Set(expected));

    const runs = await listRuns();
    for (const id of killedRuns) {
      const rec = runs.find((x) => x.runId === id);
      assert.equal(rec?.status, 'abandoned', id);
      const dir = rec!.outDir;
      assert.equal(fs.existsSync(dir) ? uniques(dir).length : 0, rec!.counts.uniqueUrls, `${id}: listed count = its output`);
    }
    const v = await drum(['verify', '--state', 'state'], { cwd: root });
    assert.equal(v.status, 0, v.stderr);
    t.diagnostic(`${killedRuns.length} runs abandoned, ${expected.length} new URLs in all`);
  });
});
