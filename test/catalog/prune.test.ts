// Catalog.pruneRuns against an array model (fast-check): past `keep` runs,
// the oldest removable records go and every other record stays, in order;
// and through the library, a Drum opened with libraryRunRecords keeps its
// newest library runs while a file run's record stays.

import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Catalog, type RunRecord } from '../../src/catalog/catalog.js';
import { Drum } from '../../src/engine/drum.js';

const temps: string[] = [];
function tempState(): string {
  const d = mkdtempSync(join(tmpdir(), 'drum-prune-test-'));
  temps.push(d);
  return d;
}
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

type Kind = 'library' | 'file' | 'forget';

function record(i: number, kind: Kind, complete: boolean): RunRecord {
  return {
    runId: `r${String(i).padStart(4, '0')}`, startedAt: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(), finishedAt: null,
    status: complete ? 'complete' : 'failed',
    inputs: [{ path: kind === 'library' ? '(library)' : `/in/${i}.txt`, bytes: 1, sha256: null }],
    counts: { linksRead: 1, uniqueUrls: 1, duplicateUrls: 0, rejectedLines: 0 },
    outDir: `/out/${i}`, outputFiles: [], options: {}, ...(kind === 'forget' ? { kind: 'forget' as const } : {}),
  };
}

const removable = (r: RunRecord): boolean => r.status === 'complete' && r.kind === undefined && r.inputs[0]!.path === '(library)';

describe('Catalog.pruneRuns', () => {
  it('removes the oldest removable records until keep remain, and keeps every other record in order (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ kind: fc.constantFrom<Kind>('library', 'library', 'file', 'forget'), complete: fc.boolean() }), { maxLength: 40 }),
        fc.integer({ min: 0, max: 45 }),
        async (runs, keep) => {
          const c = await Catalog.open(tempState(), { sync: false });
          try {
            const recs = runs.map((r, i) => record(i, r.kind, r.complete));
            for (const r of recs) await c.putRun(r);
            const gone = await c.pruneRuns(keep, removable);
            // The model: oldest first, drop removable ones while more than keep remain.
            const model = [...recs];
            for (let i = 0; i < model.length && model.length > keep; ) {
              if (removable(model[i]!)) model.splice(i, 1);
              else i++;
            }
            assert.equal(gone, recs.length - model.length);
            const listed = await c.listRuns(100);
            assert.deepEqual(listed.map((r) => r.runId), model.map((r) => r.runId).reverse());
          } finally {
            await c.close();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('Drum with libraryRunRecords', () => {
  it('keeps the newest library runs and the run of a file', async () => {
    const state = tempState();
    const file = join(state, '..', `${state.split('/').pop()}-links.txt`);
    writeFileSync(file, 'http://file.example/a\n');
    temps.push(file);
    const drum = await Drum.open(state, { libraryRunRecords: 20, workers: 0, fsync: false });
    const libraryRuns: string[] = [];
    try {
      await drum.ingest({ inputs: [file] });
      for (let i = 0; i < 45; i++) {
        const run = drum.checkUpdate([`http://lib.example/${i}\n`]);
        let n = await run.next();
        while (!n.done) n = await run.next();
        libraryRuns.push(n.value!.runId);
      }
    } finally {
      await drum.close();
    }
    const c = await Catalog.open(state, { readOnly: true });
    try {
      const runs = await c.listRuns(1000);
      assert.ok(runs.length <= 20 + 2, `${runs.length} records: pruned every 2 library runs down to 20`);
      assert.ok(runs.some((r) => r.inputs[0]!.path === file), 'the file run stays');
      const ids = runs.filter((r) => r.inputs[0]!.path === '(library)').map((r) => r.runId);
      assert.deepEqual(ids, libraryRuns.slice(-ids.length).reverse(), 'the newest library runs, newest first');
    } finally {
      await c.close();
    }
  });
});
