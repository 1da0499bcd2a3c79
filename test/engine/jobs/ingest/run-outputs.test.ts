// Tests of a run's output files closed on a full disk (src/engine/jobs/ingest/run-outputs.ts):
// the last flush of a unique file fails, and still every file's descriptor is released, the
// first error thrown. A long-running library process would otherwise keep one descriptor per
// failed run. Reads /proc/self/fd (Linux; skipped elsewhere).

import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumFs } from '../../../../src/io/fs.js';
import { isDrumError } from '../../../../src/errors.js';
import { RunOutputs } from '../../../../src/engine/jobs/ingest/run-outputs.js';
import type { RunState } from '../../../../src/store/manifest.js';
import { tempDir } from '../../../helpers/tmp.js';
import { openUnder } from '../../../helpers/fds.js';

function runState(outDir: string): RunState {
  return {
    runId: 'r1', status: 'running', startedAt: new Date().toISOString(), finishedAt: null, inputs: [], skipped: [], options: {}, outDir,
    position: { input: 0, offset: 0, line: 0 }, rounds: 0, unique: { file: 1, bytes: 0, urls: 0, urlsPerFile: 1000 }, rejectsBytes: 0, counters: {},
    graph: { file: 1, bytes: 0, urls: 0, urlsPerFile: 1000 },
  };
}

describe('a run\'s output files on a full disk', () => {
  it('releases every descriptor when the last flush of the unique file fails, and throws that DRUM_IO', async (t: TestContext) => {
    if (!fs.existsSync('/proc/self/fd')) return t.skip('needs /proc/self/fd (Linux)');
    const dir = tempDir();
    const outDir = join(dir, 'out');
    let full = false;
    const dfs = new DrumFs(undefined, (op, path) => {
      if (full && op === 'write' && path.includes('unique-')) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
    });
    const out = new RunOutputs(dfs, runState(outDir), false, dir, false);
    const url = Buffer.from('http://a.example/1');
    out.emit(url, 0, url.length);
    assert.ok(openUnder(outDir).length >= 3, 'unique, graph and rejects files open');
    full = true;
    await assert.rejects(out.close(), (e) => isDrumError(e, 'DRUM_IO'));
    assert.deepEqual(openUnder(outDir), []);
  });

  it('releases the descriptors it opened when opening a later output file fails, and throws that DRUM_IO', async (t: TestContext) => {
    if (!fs.existsSync('/proc/self/fd')) return t.skip('needs /proc/self/fd (Linux)');
    // The graph file's open (rejects.tsv and the unique file are open by then), and the unique file's truncate (its own descriptor open).
    for (const [failOp, failPath] of [['open-write', 'graph-00001.bin'], ['truncate', 'unique-00001.txt']] as const) {
      const dir = tempDir();
      const outDir = join(dir, 'out');
      const dfs = new DrumFs(undefined, (op, path) => {
        if (op === failOp && path.endsWith(failPath)) throw Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });
      });
      assert.throws(() => new RunOutputs(dfs, runState(outDir), false, dir, false), (e) => isDrumError(e, 'DRUM_IO'));
      assert.deepEqual(openUnder(outDir), [], `after a failed ${failOp} of ${failPath}`);
    }
  });
});
