// settleRuns: the catalog's run records settled against the MANIFEST.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { settleRuns } from '../../src/catalog/run-list.js';
import type { RunRecord } from '../../src/catalog/records.js';
import type { ManifestBody, RunState } from '../../src/store/manifest.js';

function rec(runId: string, startedAt: string, status: RunRecord['status'], unique = 0): RunRecord {
  return {
    runId, startedAt, finishedAt: null, status, inputs: [{ path: '-', bytes: 0, sha256: null }],
    counts: { linksRead: unique, uniqueUrls: unique, duplicateUrls: 0, rejectedLines: 0 }, outDir: `/out/${runId}`, outputFiles: [], options: {},
  };
}

function state(runId: string, startedAt: string, status: RunState['status'], unique: number): RunState {
  return {
    runId, status, startedAt, finishedAt: null, inputs: [{ path: '-', bytes: 0, sha256: '', sampled: false }], skipped: [false], options: {},
    outDir: `/out/${runId}`, position: { input: 0, offset: 0, line: 0 }, rounds: 2, unique: { file: 1, bytes: 0, urls: unique, urlsPerFile: 1000 },
    rejectsBytes: 0, counters: { linksRead: unique * 2, uniqueUrls: unique, duplicateUrls: unique, rejectedLines: 0 },
  };
}

function body(run: RunState | null, history: ManifestBody['history'] = []): ManifestBody {
  return { formatVersion: 1, createdAt: 't', commit: 3, params: { buckets: 1, hostBits: 24, hash: 'h', policy: 'p' }, storeUrls: 0, buckets: [null], bloom: null, run, history };
}

describe('settleRuns', () => {
  it("lists the manifest's unfinished run as interrupted with its committed count when no writer holds the store", () => {
    const runs = settleRuns([rec('r1', '2026-01-01T00:00:00Z', 'running')], body(state('r1', '2026-01-01T00:00:00Z', 'running', 42)), false, 10);
    assert.equal(runs[0]!.status, 'interrupted');
    assert.equal(runs[0]!.counts.uniqueUrls, 42);
    assert.equal(runs[0]!.outDir, '/out/r1');
  });

  it('lists it as running while a writer holds the store', () => {
    const runs = settleRuns([], body(state('r1', '2026-01-01T00:00:00Z', 'running', 5)), true, 10);
    assert.deepEqual(runs.map((r) => [r.runId, r.status]), [['r1', 'running']]);
  });

  it('lists a run the manifest history abandoned, and one the catalog still calls running that the manifest replaced', () => {
    const hist = [{ runId: 'r1', status: 'abandoned', startedAt: '2026-01-01T00:00:00Z', finishedAt: null, linksRead: 9, uniqueUrls: 7, outDir: '/out/r1', inputs: [] }];
    const runs = settleRuns(
      [rec('r3', '2026-01-03T00:00:00Z', 'complete', 1), rec('r2', '2026-01-02T00:00:00Z', 'running'), rec('r1', '2026-01-01T00:00:00Z', 'running')],
      body({ ...state('r3', '2026-01-03T00:00:00Z', 'complete', 1) }, hist),
      false,
      10,
    );
    assert.deepEqual(runs.map((r) => [r.runId, r.status, r.counts.uniqueUrls]), [['r3', 'complete', 1], ['r2', 'abandoned', 0], ['r1', 'abandoned', 7]]);
  });

  it('lists runs the manifest knows and the catalog lost, newest first, up to the limit', () => {
    const hist = [{ runId: 'r1', status: 'complete', startedAt: '2026-01-01T00:00:00Z', finishedAt: 'x', linksRead: 3, uniqueUrls: 2, outDir: '/out/r1', inputs: [] }];
    const runs = settleRuns([], body(state('r2', '2026-01-02T00:00:00Z', 'running', 4), hist), false, 10);
    assert.deepEqual(runs.map((r) => [r.runId, r.status]), [['r2', 'interrupted'], ['r1', 'complete']]);
    assert.equal(settleRuns([], body(state('r2', '2026-01-02T00:00:00Z', 'running', 4), hist), false, 1).length, 1);
  });

  it('lists a run the catalog lost with its duplicate and rejected counts unknown (null), not 0: the history keeps only their sum', () => {
    const hist = [{ runId: 'r1', status: 'complete', startedAt: '2026-01-01T00:00:00Z', finishedAt: 'x', linksRead: 10, uniqueUrls: 4, outDir: '/out/r1', inputs: [] }];
    const [r1] = settleRuns([], body(null, hist), false, 10);
    assert.deepEqual(r1!.counts, { linksRead: 10, uniqueUrls: 4, duplicateUrls: null, rejectedLines: null });
  });

  it('keeps a running record\'s duplicates and rejects for a run the history completed only when they add up with its counts', () => {
    const hist = [{ runId: 'r1', status: 'complete', startedAt: '2026-01-01T00:00:00Z', finishedAt: 'x', linksRead: 10, uniqueUrls: 4, outDir: '/out/r1', inputs: [] }];
    // The record as the run started it (all 0), and as its last round left it (adding up with the history's counts).
    const started = rec('r1', '2026-01-01T00:00:00Z', 'running');
    const lastRound = { ...started, counts: { linksRead: 10, uniqueUrls: 4, duplicateUrls: 5, rejectedLines: 1 } };
    assert.deepEqual(settleRuns([started], body(null, hist), false, 10)[0]!.counts, { linksRead: 10, uniqueUrls: 4, duplicateUrls: null, rejectedLines: null });
    assert.deepEqual(settleRuns([lastRound], body(null, hist), false, 10)[0]!.counts, lastRound.counts);
  });

  it('lists a forget the catalog lost as a forget, with the counts the history keeps of it', () => {
    const forget = { asked: 3, forgotten: 2, notStored: 1, repeats: 0, rejectedLines: 1 };
    const hist = [{ runId: 'f1', status: 'complete', startedAt: '2026-01-01T00:00:00Z', finishedAt: 'x', linksRead: 4, uniqueUrls: 0, outDir: '/out/f1', inputs: [], kind: 'forget' as const, forget }];
    const [f1] = settleRuns([], body(null, hist), false, 10);
    assert.deepEqual([f1!.kind, f1!.forget], ['forget', forget]);
  });
});
