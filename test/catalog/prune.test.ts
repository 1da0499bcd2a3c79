// Catalog.pruneRuns against an array model (fast-check): of all but the
// newest `keep` runs, the removable records go and every other stays, in
// order; and through the library, a Drum opened with libraryRunRecords keeps
// its newest library runs (pruning at each open's first run too) while a
// file run's record stays, with host counts whole; and a process that stays
// open folds its host-count deltas.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { Catalog, type RunRecord } from '../../src/catalog/catalog.js';
import { Drum } from '../../src/engine/drum.js';
import { tempDir } from '../helpers/tmp.js';

const tempState = (): string => tempDir('drum-prune-test-');

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
  it('removes the removable records older than the newest keep, and keeps every other record in order (fast-check)', async () => {
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
            // The model: of all but the newest keep, the removable ones go.
            const model = recs.filter((r, i) => i >= recs.length - keep || !removable(r));
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
  const libraryRun = async (d: Drum, i: number): Promise<string> => {
    const run = d.checkUpdate([`http://lib${i % 7}.example/${i}\n`]);
    let n = await run.next();
    while (!n.done) n = await run.next();
    return n.value!.runId;
  };

  it('keeps the newest library runs and the run of a file, and keeps host counts whole', async () => {
    const state = tempState();
    const file = join(tempDir(), 'links.txt');
    writeFileSync(file, 'http://file.example/a\n');
    // Opened by a relative path, as docs/library.md's examples do: the pruned runs' directories must still go.
    const drum = await Drum.open(relative(process.cwd(), state), { libraryRunRecords: 20, workers: 0, fsync: false });
    const libraryRuns: string[] = [];
    try {
      await drum.ingest({ inputs: [file] });
      for (let i = 0; i < 45; i++) libraryRuns.push(await libraryRun(drum, i));
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
      const hosts = await c.topHosts(100);
      assert.equal(hosts.reduce((a, h) => a + h.uniqueUrls, 0), 46, 'every stored URL still counted');
      // A pruned run's directory goes with its record; the kept runs' directories and the file run's stay.
      const dirs = readdirSync(join(state, 'runs')).sort();
      assert.deepEqual(dirs, runs.map((r) => r.runId).sort());
    } finally {
      await c.close();
    }
  });

  it('prunes at the first library run of each open, so many short opens stay bounded too', async () => {
    const state = tempState();
    for (let i = 0; i < 30; i++) {
      const drum = await Drum.open(state, { libraryRunRecords: 20, workers: 0, fsync: false });
      try {
        await libraryRun(drum, i);
      } finally {
        await drum.close();
      }
    }
    const c = await Catalog.open(state, { readOnly: true });
    try {
      assert.equal((await c.listRuns(1000)).length, 20);
    } finally {
      await c.close();
    }
  });

  it('folds the host-count deltas of a process that stays open, in a child process, once enough pile up', async () => {
    const state = tempState();
    const drum = await Drum.open(state, { workers: 0, fsync: false, tuning: { libraryFoldDeltas: 16 } });
    try {
      for (let i = 0; i < 40; i++) await libraryRun(drum, i);
    } finally {
      await drum.close();
    }
    const c = await Catalog.open(state, { readOnly: true });
    try {
      assert.ok((await c.pendingDeltas()) < 16, 'folded while the process ran');
      assert.equal((await c.topHosts(100)).reduce((a, h) => a + h.uniqueUrls, 0), 40);
    } finally {
      await c.close();
    }
  });

  it('goes on with its runs when the fold fails on a damaged host table, and tries again only once twice as many deltas wait', async () => {
    const state = tempState();
    const notices: string[] = [];
    const drum = await Drum.open(state, { workers: 0, fsync: false, tuning: { libraryFoldDeltas: 4 }, onNotice: (m) => notices.push(m) });
    try {
      for (let i = 0; i < 4; i++) await libraryRun(drum, i); // the first fold writes the host table
      const table = readdirSync(join(state, 'hosts')).find((f) => f.endsWith('.tbl'))!;
      const b = readFileSync(join(state, 'hosts', table));
      b[b.length >> 1]! ^= 0xff;
      writeFileSync(join(state, 'hosts', table), b);
      for (let i = 4; i < 16; i++) await libraryRun(drum, i); // every run commits; the fold fails at 4 and 8 pending
    } finally {
      await drum.close().catch(() => undefined);
    }
    assert.deepEqual(notices.filter((m) => /after run/.test(m)).length, 2, notices.join('\n'));
  });
});
