import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Level } from 'level';
import { Catalog, type RunRecord } from '../../src/catalog/catalog.js';
import { Drum } from '../../src/engine/drum.js';
import { rebuiltRecord } from '../../src/engine/jobs/maintain/rebuilt-records.js';
import { readManifest } from '../../src/store/manifest.js';
import { tempDir } from '../helpers/tmp.js';

/** Removes a run's record from the catalog, as a full disk under catalog/ at the run's end leaves it. */
async function dropRunRecord(state: string, runId: string, startedAt: string): Promise<void> {
  const db = new Level<string, unknown>(join(state, 'catalog'), { valueEncoding: 'json', createIfMissing: false });
  await db.open();
  try {
    await db.sublevel('runs', { valueEncoding: 'json' }).del(runId);
    await db.sublevel('runOrder', { valueEncoding: 'utf8' }).del(`${startedAt}|${runId}`);
  } finally {
    await db.close();
  }
}

async function listedRuns(state: string): Promise<string[]> {
  const c = await Catalog.open(state, { readOnly: true });
  try {
    return (await c.listRuns(100)).map((r) => `${r.runId} ${r.status} ${r.counts.uniqueUrls}`);
  } finally {
    await c.close();
  }
}

async function ownRecord(state: string, runId: string): Promise<RunRecord> {
  const c = await Catalog.open(state, { readOnly: true });
  try {
    return (await c.getRun(runId))!;
  } finally {
    await c.close();
  }
}

describe('reconciling the run catalog with the manifest', () => {
  it('records again, when a writer opens the store, a committed run whose catalog record was lost', async () => {
    const dir = tempDir();
    const state = join(dir, 'st');
    const input = join(dir, 'links.txt');
    // 100 URLs five times each: the run's duplicates are not 0.
    fs.writeFileSync(input, Array.from({ length: 500 }, (_, i) => `http://h${i % 5}.example/${i % 100}`).join('\n'));
    const d = await Drum.open(state, { workers: 0, fsync: false });
    await d.ingest({ inputs: [input], outDir: join(dir, 'out') });
    await d.close();
    const before = await listedRuns(state);
    const h = readManifest(state)!.history[0]!;
    const own = await ownRecord(state, h.runId);
    await dropRunRecord(state, h.runId, h.startedAt);
    assert.deepEqual(await listedRuns(state), []);
    await (await Drum.open(state, { workers: 0, fsync: false })).close();
    assert.deepEqual(await listedRuns(state), before);
    const c = await Catalog.open(state, { readOnly: true });
    try {
      const rec = (await c.getRun(h.runId))!;
      // Its counts and options as the run wrote them: the manifest's current run keeps them whole.
      assert.deepEqual([rec.counts, rec.options, rec.rebuilt], [own.counts, own.options, 'reconcile']);
      assert.deepEqual(rec.outputFiles, fs.readdirSync(join(dir, 'out')).filter((f) => f.startsWith('unique-')).sort());
      // The input counts as ingested again: rerunning it skips it.
      assert.equal((await c.findIngestedInput(h.inputs[0]!.sha256!, h.inputs[0]!.bytes))?.runId, h.runId);
    } finally {
      await c.close();
    }
  });

  it('keeps a damaged input damaged in the record it rebuilds, so the damaged file is never skipped as ingested', () => {
    const damaged = { offset: 4096, line: 77, code: 'DRUM_INPUT', message: 'unexpected end of file' };
    const h = {
      runId: 'r1', status: 'complete', startedAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:01.000Z',
      linksRead: 77, uniqueUrls: 10, outDir: '/nonexistent',
      inputs: [
        { path: 'cut.gz', bytes: 9000, sha256: 'ab'.repeat(32), sampled: false, damaged },
        { path: 'big.txt', bytes: 90 << 20, sha256: 'cd'.repeat(32), sampled: true, sample: 'cd'.repeat(32) },
      ],
    };
    const rec = rebuiltRecord(h, { run: null, params: { buckets: 1, hostBits: 0, hash: 'h', policy: 'default/v1' } }, 'repair');
    assert.deepEqual(rec.inputs[0]!.damaged, damaged);
    assert.equal(rec.inputs[1]!.sampled, true);
    assert.equal(rec.inputs[1]!.sample, 'cd'.repeat(32));
  });
});
