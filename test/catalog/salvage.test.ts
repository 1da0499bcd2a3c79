// Tests of salvaging run records from a damaged catalog (src/catalog/salvage.ts):
// the shape check a salvaged record must pass (a property test: a record
// with any one field gone or of another type is refused), records read back
// from a catalog whose CURRENT names no descriptor, entries of another shape
// counted and left out, a directory LevelDB cannot use salvaging nothing,
// and a copy the OS refuses thrown as DRUM_IO.
// The damaged catalog itself is never written, and the scratch copy goes.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { Level } from 'level';
import { Catalog, type RunRecord } from '../../src/catalog/catalog.js';
import { isRunRecord, salvageRunRecords } from '../../src/catalog/salvage.js';
import { isDrumError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';

function run(runId: string, startedAt: string): RunRecord {
  return {
    runId, startedAt, finishedAt: '2026-01-01T00:00:01.000Z', status: 'complete',
    inputs: [{ path: `/in/${runId}.txt`, bytes: 100, sha256: 'ab'.repeat(32) }],
    counts: { linksRead: 10, uniqueUrls: 7, duplicateUrls: 2, rejectedLines: 1 },
    outDir: `/out/${runId}`, outputFiles: ['unique-00001.txt'], options: { policy: 'default/v1' },
  };
}

/** A file tree's names and bytes, to show a directory was not written. */
function snapshot(dir: string): Record<string, string> {
  return Object.fromEntries(fs.readdirSync(dir).sort().map((n) => [n, fs.readFileSync(join(dir, n)).toString('base64')]));
}

describe('isRunRecord', () => {
  it('takes a run record and a forget\'s, and refuses one with any one field gone or of another type', () => {
    const good = run('r1', '2026-01-01T00:00:00.000Z');
    assert.equal(isRunRecord(good), true);
    assert.equal(isRunRecord({ ...good, kind: 'forget', counts: { ...good.counts, duplicateUrls: null, rejectedLines: null } }), true);
    const wrong: Record<string, unknown[]> = {
      runId: [7, '', null], startedAt: ['yesterday', 7, null], finishedAt: [7, {}, undefined], status: ['done', 1, null],
      inputs: [{}, 'x', [1], [{ path: '/a' }]], counts: ['x', null, { linksRead: 1 }], outDir: [7, null, []],
      outputFiles: ['x', [1], null], options: ['x', [], null],
    };
    fc.assert(fc.property(fc.constantFrom(...Object.keys(wrong)), fc.boolean(), fc.nat(), (field, drop, k) => {
      const bad: Record<string, unknown> = { ...good };
      if (drop) delete bad[field];
      else bad[field] = wrong[field]![k % wrong[field]!.length];
      assert.equal(isRunRecord(bad), false, `${field} ${drop ? 'gone' : JSON.stringify(bad[field])}`);
    }), { seed: 20261129, numRuns: 200 });
    assert.equal(isRunRecord({ ...good, counts: { ...good.counts, linksRead: 1.5 } }), false);
    assert.equal(isRunRecord({ ...good, inputs: [{ path: 1, bytes: 2, sha256: null }] }), false);
    assert.equal(isRunRecord({ ...good, status: 'done' }), false);
  });
});

describe('salvageRunRecords', () => {
  it('reads back every run record of a catalog whose CURRENT names no descriptor, never writing it, and removes its copy', async () => {
    const state = tempDir();
    const c = await Catalog.open(state);
    const runs = Array.from({ length: 30 }, (_, i) => run(`r${String(i).padStart(2, '0')}`, `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z`));
    for (const r of runs) await c.putRun(r);
    await c.close();
    fs.writeFileSync(join(state, 'catalog', 'CURRENT'), 'MANIFEST-999999\n');
    const before = snapshot(join(state, 'catalog'));
    const s = await salvageRunRecords(join(state, 'catalog'), join(state, 'scratch'));
    assert.equal(s.error, null);
    assert.deepEqual(s.records.sort((a, b) => a.runId.localeCompare(b.runId)), runs);
    assert.deepEqual(snapshot(join(state, 'catalog')), before);
    assert.equal(fs.existsSync(join(state, 'scratch')), false);
  });

  it('counts and leaves out an entry that is not a run record', async () => {
    const state = tempDir();
    const dir = join(state, 'catalog');
    const db = new Level<string, unknown>(dir, { valueEncoding: 'json' });
    const runs = db.sublevel<string, unknown>('runs', { valueEncoding: 'json' });
    await runs.put('r1', run('r1', '2026-01-01T00:00:00.000Z'));
    await runs.put('r2', { runId: 'r2', startedAt: 'yesterday' });
    await runs.put('r3', run('another id', '2026-01-01T00:00:00.000Z'));
    await db.close();
    const s = await salvageRunRecords(dir, join(state, 'scratch'));
    assert.deepEqual([s.records.map((r) => r.runId), s.malformed, s.error], [['r1'], 2, null]);
  });

  it('salvages nothing, with the reason, from a directory LevelDB cannot use, and leaves no copy', async () => {
    const state = tempDir();
    const dir = join(state, 'catalog');
    fs.mkdirSync(dir);
    fs.writeFileSync(join(dir, 'CURRENT'), 'not a manifest name');
    fs.writeFileSync(join(dir, '000005.ldb'), 'garbage');
    const s = await salvageRunRecords(dir, join(state, 'scratch'));
    assert.equal(s.records.length, 0);
    assert.equal(fs.existsSync(join(state, 'scratch')), false);
    const gone = await salvageRunRecords(join(state, 'no-such-catalog'), join(state, 'scratch'));
    assert.equal(gone.records.length, 0);
    assert.match(gone.error ?? '', /no such directory/);
  });

  it('throws DRUM_IO when the OS refuses the copy, so that the records wait for a repair run again', async () => {
    const state = tempDir();
    const c = await Catalog.open(state);
    await c.putRun(run('r1', '2026-01-01T00:00:00.000Z'));
    await c.close();
    const notADir = join(state, 'a-file');
    fs.writeFileSync(notADir, '');
    await assert.rejects(salvageRunRecords(join(state, 'catalog'), join(notADir, 'scratch')), (e: unknown) => isDrumError(e, 'DRUM_IO'));
  });
});
