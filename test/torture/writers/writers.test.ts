// The many-writer race through the real bin/drum, quick version (scripts/torture.ts runs more
// trials): a `drum ingest` is kill -9ed at a commit, then several identical ingests and library
// opens start together against what it left. At most one holds the store at a time, the others
// get DRUM_LOCKED, `drum verify` passes after every trial, and no URL is emitted as new twice.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { EXIT_STATUS } from '../../../src/errors.js';
import { MANY_ROUNDS, haveEngine, manifestOf } from '../harness.js';
import { tempDir } from '../../helpers/tmp.js';
import { repeatedUrls, writerRace } from './writers.js';

describe('many writers against a killed writer\'s state', { skip: !haveEngine && 'engine not compiled' }, () => {
  it('lets one writer proceed at a time, refuses the others with DRUM_LOCKED and emits no URL as new twice', async () => {
    const root = tempDir('drum-torture-');
    const state = join(root, 'st');
    for (let t = 0; t < 2; t++) {
      const r = await writerRace(root, state, t, { links: 60_000, seed: 1600, writers: 4, opens: 2, flags: [...MANY_ROUNDS, '--workers', '1'] });
      const what = `trial ${t}: ${JSON.stringify({ ...r, verify: r.verify.status })}`;
      for (const s of r.writers) assert.ok(s === 0 || s === EXIT_STATUS.DRUM_LOCKED, what);
      for (const e of r.stderr) assert.match(e, /DRUM_LOCKED/, what);
      for (const o of r.opens) assert.ok(o.got ? o.overlap === false : o.code === 'DRUM_LOCKED', what);
      assert.ok(r.rerun === null || r.rerun === 0, what);
      assert.equal(r.verify.status, 0, `${what}\n${r.verify.stdout}${r.verify.stderr}`);
      assert.equal(manifestOf(state)?.run?.status, 'complete', what);
    }
    const u = repeatedUrls(root);
    assert.deepEqual(u.repeats.slice(0, 5), []);
    assert.equal(u.urls, manifestOf(state)!.storeUrls);
  });
});
