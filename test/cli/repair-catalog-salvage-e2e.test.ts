// End-to-end tests of what `drum repair --catalog` salvages from a damaged
// catalog, with the real bin/drum: a store of more runs than the manifest's
// history keeps (HISTORY_KEEP), whose catalog then loses its CURRENT, a
// table file or a host-table file. The runs' own records come back as the
// runs wrote them (options and all), the runs older than the history too,
// with their host counts and their inputs still known as ingested; what
// LevelDB cannot read back is rebuilt from the manifest as before.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { RunRecord } from '../../src/catalog/catalog.js';
import { Catalog } from '../../src/catalog/catalog.js';
import { REBUILD_MARKER } from '../../src/catalog/rebuild-marker.js';
import { HISTORY_KEEP } from '../../src/engine/jobs/ingest/run-history.js';
import { drum } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/** Runs drum and asserts it exited 0. */
async function ok(args: string[]): Promise<string> {
  const r = await drum(args);
  assert.equal(r.status, 0, `drum ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const runsOf = async (state: string): Promise<RunRecord[]> => JSON.parse(await ok(['runs', '--json', '--limit', '1000', '--state', state])) as RunRecord[];

interface RepairJson {
  catalog: { rebuilt: boolean; runs: number; salvaged: number; salvageError: string | null; hostRuns: number };
}

/** HISTORY_KEEP + 3 ingests of two URLs each, one on a host of its own and one on a host they share. */
async function manyRuns(): Promise<{ state: string; inputs: string[]; runs: RunRecord[] }> {
  const dir = tempDir();
  const state = join(dir, 'state');
  const inputs: string[] = [];
  for (let i = 0; i < HISTORY_KEEP + 3; i++) {
    const f = join(dir, `in${i}.txt`);
    fs.writeFileSync(f, `http://h${i}.example/a\nhttp://shared.example/p${i}\n`);
    await ok(['ingest', '--no-progress', '--quiet', '--state', state, f]);
    inputs.push(f);
  }
  const runs = await runsOf(state);
  assert.equal(runs.length, HISTORY_KEEP + 3);
  return { state, inputs, runs };
}

const sharedCount = async (state: string): Promise<string> => (await ok(['hosts', '--state', state])).split('\n').find((l) => l.includes('shared.example'))!.trim();

describe('drum repair --catalog salvaging the old catalog', () => {
  it('brings back every run\'s own record from a catalog whose CURRENT is damaged, runs older than the manifest remembers too', async () => {
    const { state, inputs, runs } = await manyRuns();
    fs.writeFileSync(join(state, 'catalog', 'CURRENT'), 'MANIFEST-999999\n');
    const out = JSON.parse(await ok(['repair', '--catalog', '--json', '--state', state])) as RepairJson;
    assert.deepEqual([out.catalog.rebuilt, out.catalog.runs, out.catalog.salvaged, out.catalog.salvageError], [true, runs.length, runs.length, null]);
    // As the runs wrote them: finish times, options, no `rebuilt` mark.
    assert.deepEqual(await runsOf(state), runs);
    // Every run's URLs count for their hosts again, the oldest runs' included.
    assert.match(await sharedCount(state), new RegExp(`^1\\s+${runs.length}\\s+shared\\.example$`));
    // The oldest input is still known as ingested: the next run skips it.
    const again = await drum(['ingest', '--no-progress', '--state', state, inputs[0]!]);
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr + again.stdout, /already ingested/);
    await ok(['verify', '--state', state]);
  });

  it('keeps every run\'s own record when only a host-table file is damaged', async () => {
    const { state, runs } = await manyRuns();
    const delta = fs.readdirSync(join(state, 'hosts')).find((n) => n.endsWith('.hd'))!;
    fs.writeFileSync(join(state, 'hosts', delta), 'garbage');
    assert.equal((await drum(['verify', '--state', state])).status, 11);
    const out = JSON.parse(await ok(['repair', '--catalog', '--json', '--state', state])) as RepairJson;
    assert.equal(out.catalog.salvaged, runs.length);
    assert.deepEqual(await runsOf(state), runs);
    assert.match(await sharedCount(state), new RegExp(`^1\\s+${runs.length}\\s+shared\\.example$`));
    await ok(['verify', '--state', state]);
  });

  it('rebuilds from the manifest the records LevelDB cannot read back from a damaged table file, and salvages the rest', async () => {
    const { state, runs } = await manyRuns();
    const tables = fs.readdirSync(join(state, 'catalog')).filter((n) => n.endsWith('.ldb') || n.endsWith('.log'));
    assert.ok(tables.length > 0);
    const biggest = tables.map((n) => join(state, 'catalog', n)).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!;
    fs.truncateSync(biggest, 100);
    const out = JSON.parse(await ok(['repair', '--catalog', '--json', '--state', state])) as RepairJson;
    const after = await runsOf(state);
    // Every run the manifest remembers is there, salvaged or rebuilt; a salvaged one is the run's own record.
    const byId = new Map(runs.map((r) => [r.runId, r]));
    const ids = new Set(after.map((r) => r.runId));
    for (const r of runs.slice(0, HISTORY_KEEP)) assert.ok(ids.has(r.runId), r.runId);
    for (const r of after) if (r.rebuilt === undefined) assert.deepEqual(r, byId.get(r.runId));
    assert.equal(after.filter((r) => r.rebuilt === undefined).length, out.catalog.salvaged);
    assert.equal(after.length, out.catalog.runs);
    await ok(['verify', '--state', state]);
  });

  it('salvages, when run again after a rebuild cut short, from the catalog that rebuild replaced, not from its partial work', async () => {
    const { state, runs } = await manyRuns();
    // What a repair killed after its first record leaves: the old catalog aside, named by the marker, and a new one holding one run.
    const aside = join(state, 'catalog.damaged-20261129T000000000Z');
    fs.renameSync(join(state, 'catalog'), aside);
    fs.writeFileSync(join(state, REBUILD_MARKER), `${aside}\n`);
    const partial = await Catalog.open(state);
    await partial.putRun({ ...runs.at(-1)!, rebuilt: 'repair' });
    await partial.close();
    assert.equal((await drum(['verify', '--state', state])).status, 11);
    const out = JSON.parse(await ok(['repair', '--catalog', '--json', '--state', state])) as RepairJson;
    assert.equal(out.catalog.salvaged, runs.length);
    assert.deepEqual(await runsOf(state), runs);
    assert.equal(fs.existsSync(join(state, REBUILD_MARKER)), false);
    await ok(['verify', '--state', state]);
  });
});
