// newRunId: ids of runs started in the same second are distinct (a process
// can end several runs a second, and two runs with one id would share a run
// directory, a catalog record and host-count round markers), and keep the
// UTC start in front so they sort by it. planRun: an interrupted run is
// resumed only by a run that reads the same inputs the same way.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { newRunId, planRun, readKeyOf } from '../../../../src/engine/jobs/ingest/run-setup.js';
import type { InputRecord, ManifestBody } from '../../../../src/store/manifest.js';
import { tempDir } from '../../../helpers/tmp.js';

describe('newRunId', () => {
  it('gives 65,536 runs of one process started in the same millisecond distinct ids', () => {
    const now = new Date('2026-11-27T09:34:57.607Z');
    const ids = new Set(Array.from({ length: 65_536 }, () => newRunId(now)));
    assert.equal(ids.size, 65_536);
  });

  it('starts with the UTC start time to the millisecond', () => {
    assert.match(newRunId(new Date('2026-11-27T09:34:57.607Z')), /^20261127-093457-607-[0-9a-f]{8}$/);
  });
});

describe('planRun', () => {
  const policy = { id: 'default/v1', maxLineBytes: 2048 };
  const input = (read: string): InputRecord => ({ path: '/data/links.txt', bytes: 120, sha256: 'ab'.repeat(32), sampled: false, read });
  /** A store whose last run, reading the input with `read`, was interrupted. */
  const interrupted = (state: string, read: string): ManifestBody => ({
    run: {
      runId: '20261127-093457-607-002aa0ec', status: 'running', inputs: [input(read)], skipped: [false],
      options: { format: 'auto', links: 'nav', warcLinks: 'html' }, outDir: join(state, 'runs', 'r1'),
    },
  }) as unknown as ManifestBody;

  it('resumes an interrupted run given the same inputs read the same way', () => {
    const state = tempDir();
    const read = readKeyOf({}, policy);
    assert.equal(planRun(state, interrupted(state, read), { inputs: ['/data/links.txt'] }, [input(read)], () => false).resume, true);
  });

  it('starts a new run, not a resume, when the interrupted run read its inputs under another line limit', () => {
    const state = tempDir();
    const before = readKeyOf({}, policy);
    const now = readKeyOf({}, { ...policy, maxLineBytes: 65_536 });
    const plan = planRun(state, interrupted(state, before), { inputs: ['/data/links.txt'] }, [input(now)], () => false);
    assert.equal(plan.resume, false);
    assert.equal(plan.abandoned?.status, 'abandoned');
  });
});
