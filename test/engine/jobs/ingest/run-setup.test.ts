// newRunId: ids of runs started in the same second are distinct (a process
// can end several runs a second, and two runs with one id would share a run
// directory, a catalog record and host-count round markers), and keep the
// UTC start in front so they sort by it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { newRunId } from '../../../../src/engine/jobs/ingest/run-setup.js';

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
