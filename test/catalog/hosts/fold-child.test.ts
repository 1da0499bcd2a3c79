// Tests of the host-table fold in a child process: it folds what an
// in-process fold would, a failure in the child comes back as the
// DrumError code it had there, and the child does not outlive its parent.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { foldInChild } from '../../../src/catalog/hosts/fold-child.js';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import { isDrumError } from '../../../src/errors.js';
import { withCatalog } from '../../helpers/catalog.js';
import { tempDir } from '../../helpers/tmp.js';
import { childOf } from '../../helpers/proc.js';

describe('foldInChild', () => {
  it('folds every pending delta into the host table, counts as the rounds added them', async () => {
    const state = tempDir();
    const model = new Map<string, number>();
    await withCatalog(state, async (c) => {
      for (let r = 0; r < 5; r++) {
        const m = new Map([[`a${r % 2}.example`, r + 1], [`b${r}.example`, 3]]);
        for (const [h, n] of m) model.set(h, (model.get(h) ?? 0) + n);
        await c.applyHostCounts('run', r, [encodeHostMap(m)]);
      }
    });
    assert.equal(await foldInChild(state, false, []), 5);
    await withCatalog(state, async (after) => {
      assert.equal(await after.pendingDeltas(), 0);
      assert.deepEqual(new Map((await after.topHosts(100)).map((h) => [h.host, h.uniqueUrls])), model);
    });
  });

  it('answers DRUM_LOCKED when the catalog is open elsewhere, as an in-process open would', async () => {
    const state = tempDir();
    await withCatalog(state, async () => {
      await assert.rejects(foldInChild(state, false, []), (e) => isDrumError(e, 'DRUM_LOCKED'));
    });
  });

  it('stops when the process that started it is killed, leaving the deltas for the next fold and the catalog free', async () => {
    const state = tempDir();
    await withCatalog(state, async (c) => {
      for (let r = 0; r < 5; r++) await c.applyHostCounts('run', r, [encodeHostMap(new Map([[`h${r}.example`, r + 1]]))]);
    });
    // A writer that starts a fold and is then killed -9 (as `drum ingest` at its open).
    const module = pathToFileURL(new URL('../../../src/catalog/hosts/fold-child.js', import.meta.url).pathname).href;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', `import { foldInChild } from ${JSON.stringify(module)}; void foldInChild(${JSON.stringify(state)}, false, []); setInterval(() => {}, 1000);`], { stdio: 'ignore' });
    let child: number | null = null;
    for (let i = 0; i < 5000 && child === null; i++) {
      child = childOf(parent.pid!);
      if (child === null) await new Promise((r) => setTimeout(r, 1));
    }
    assert.notEqual(child, null, 'the fold child started');
    const exited = new Promise((r) => parent.on('exit', r));
    parent.kill('SIGKILL');
    await exited;
    const alive = (): boolean => {
      try {
        process.kill(child!, 0);
        return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${child}/stat`, 'utf8'));
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 200 && alive(); i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(alive(), false, 'the fold child outlived its parent');
    await withCatalog(state, async (after) => assert.equal(await after.pendingDeltas(), 5));
    assert.equal(await foldInChild(state, false, []), 5);
  });
});
