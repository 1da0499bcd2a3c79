// A fold of many name ranges in a process that may hold few descriptors (a
// low `ulimit -n`, as macOS's 256): the fold runs in a child process started
// under `ulimit -n`, over enough pending deltas, with a name range of a few
// hundred bytes (the foldSliceBytes tuning), that it cuts them into 512
// ranges, as a fold of more than a GiB of deltas does. It must fold, every
// count equal to a Map model of the rounds, and leave no work file behind.
// Linux and macOS only (sh's ulimit).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { encodeHostMap } from '../../../src/catalog/hosts/host-delta.js';
import { withCatalog } from '../../helpers/catalog.js';
import { distRoot } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';
import { type Model, addTo, expectTable, roundParts, tableFiles } from './helpers.js';

/** The fold: opens the catalog with the given range size, folds, prints {folded} or {code}. */
const CHILD = `
const { Catalog } = await import(process.argv[1]);
const say = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
try {
  const c = await Catalog.open(process.argv[2], { sync: false, foldSliceBytes: Number(process.argv[3]) });
  try { say({ folded: await c.compactHosts() }); } finally { await c.close(); }
} catch (e) { say({ code: e.code ?? 'raw', message: String(e.message) }); }
`;

/** Runs the fold of `state` in a child under `ulimit -n limit`; its answer. */
function foldUnder(state: string, limit: number, sliceBytes: number): Record<string, unknown> {
  const catalog = pathToFileURL(join(distRoot, 'src', 'catalog', 'catalog.js')).href;
  const r = spawnSync('sh', ['-c', `ulimit -n ${limit} && exec "$0" --input-type=module -e "$1" "$2" "$3" "$4"`, process.execPath, CHILD, catalog, state, String(sliceBytes)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

describe('a fold under a low limit of open descriptors', { skip: process.platform === 'win32' && 'sh ulimit' }, () => {
  it('folds 512 name ranges with 64 descriptors, every count as the rounds added them', async () => {
    const state = tempDir();
    const model: Model = new Map();
    await withCatalog(state, async (c) => {
      for (let r = 0; r < 70; r++) {
        const parts = roundParts(1000 + r, 500, 2);
        addTo(model, parts);
        await c.applyHostCounts('r', r, parts.map(encodeHostMap));
      }
    });
    assert.deepEqual(foldUnder(state, 64, 256), { folded: 140 });
    await withCatalog(state, async (c) => {
      assert.equal(await c.pendingDeltas(), 0);
      await expectTable(c, model);
    });
    assert.deepEqual(tableFiles(state), ['hosts-000001.tbl']);
  });
});
