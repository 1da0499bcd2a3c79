import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { newRunCounters } from '../../../../src/stats/counters.js';
import type { RunState } from '../../../../src/store/manifest.js';
import { HISTORY_KEEP, pushHistory } from '../../../../src/engine/jobs/ingest/run-history.js';

function runState(runId: string): RunState {
  return {
    runId, status: 'complete', startedAt: 't0', finishedAt: 't1', inputs: [], skipped: [], options: {}, outDir: `/out/${runId}`,
    position: { input: 0, offset: 0, line: 0 }, rounds: 1, unique: { file: 1, bytes: 0, urls: 0, urlsPerFile: 10 }, rejectsBytes: 0, counters: {},
  };
}

describe('pushHistory', () => {
  it('replaces an earlier entry of the same run instead of adding a second', () => {
    const c = newRunCounters();
    c.linksRead = 5;
    const h1 = pushHistory([], { ...runState('a'), status: 'abandoned' }, c);
    const h2 = pushHistory(h1, runState('a'), c);
    assert.equal(h2.length, 1);
    assert.equal(h2[0]!.status, 'complete');
    assert.equal(h2[0]!.linksRead, 5);
  });

  it('keeps only the last HISTORY_KEEP runs, oldest dropped first', () => {
    let h = pushHistory([], runState('r0'), newRunCounters());
    for (let i = 1; i < HISTORY_KEEP + 5; i++) h = pushHistory(h, runState(`r${i}`), newRunCounters());
    assert.equal(h.length, HISTORY_KEEP);
    assert.equal(h[0]!.runId, 'r5');
    assert.equal(h.at(-1)!.runId, `r${HISTORY_KEEP + 4}`);
  });
});
