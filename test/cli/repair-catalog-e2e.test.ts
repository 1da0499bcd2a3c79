// End-to-end tests of `drum repair --catalog` with the real bin/drum, as an
// operator meets it: two ingests (with duplicates and rejected lines) and a
// forget, then the repair on a sound catalog (nothing changes), on a deleted
// one and on a damaged one (each run's record comes back with the counts
// its report.json or the manifest keeps, adding up as a run report does),
// and on a store whose runs' report.json files are gone (those counts are
// unknown, null, never 0).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { RunRecord } from '../../src/catalog/catalog.js';
import { readManifest } from '../../src/store/manifest.js';
import { drum } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

interface Store {
  state: string;
  /** The runs' own records, as `drum runs --json` lists them before any repair (newest first). */
  runs: RunRecord[];
}

/** Runs drum and asserts it exited 0. */
async function ok(args: string[]): Promise<string> {
  const r = await drum(args);
  assert.equal(r.status, 0, `drum ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

async function runsOf(state: string): Promise<RunRecord[]> {
  return JSON.parse(await ok(['runs', '--json', '--state', state])) as RunRecord[];
}

/** Two ingests, each with repeats, already-stored URLs and rejected lines, then a forget. */
async function threeRuns(): Promise<Store> {
  const dir = tempDir();
  const state = join(dir, 'state');
  const a = join(dir, 'a.txt');
  const b = join(dir, 'b.txt');
  const f = join(dir, 'forget.txt');
  fs.writeFileSync(a, [...Array.from({ length: 300 }, (_, i) => `http://h${i % 5}.example/p${i % 60}`), 'not a url', 'ftp://x.example/a', ''].join('\n'));
  fs.writeFileSync(b, [...Array.from({ length: 200 }, (_, i) => `http://h${i % 5}.example/p${(i % 80) + 30}`), 'mailto:a@b.example'].join('\n'));
  fs.writeFileSync(f, 'http://h1.example/p1\nbogus line\n');
  await ok(['ingest', '--no-progress', '--state', state, a]);
  await ok(['ingest', '--no-progress', '--state', state, b]);
  await ok(['forget', '--state', state, f]);
  const runs = await runsOf(state);
  assert.equal(runs.length, 3);
  for (const r of runs.filter((x) => x.kind !== 'forget')) {
    // The store's own records: duplicates and rejects both present, so a 0 would be wrong.
    assert.ok(r.counts.duplicateUrls! > 0 && r.counts.rejectedLines! > 0, JSON.stringify(r.counts));
  }
  return { state, runs };
}

/** A record less what only the run's own write knew: its write time, its options, a forget's first rejects (and the mark of a rebuilt one). */
const comparable = (r: RunRecord): unknown => ({
  ...r, finishedAt: null, options: null, rebuilt: null, ...(r.forget ? { forget: { ...r.forget, rejects: null } } : {}),
});

function assertAddsUp(r: RunRecord): void {
  if (r.kind === 'forget') return;
  const c = r.counts;
  assert.equal(c.linksRead, c.uniqueUrls + c.duplicateUrls! + c.rejectedLines!, `${r.runId}: ${JSON.stringify(c)}`);
}

describe('drum repair --catalog', () => {
  it('changes nothing on a sound catalog: it says so, exits 0, and every run record stays as the run wrote it', async () => {
    const { state, runs } = await threeRuns();
    const catalogFiles = (): string[] => fs.readdirSync(join(state, 'catalog')).sort();
    const files = catalogFiles();
    const out = JSON.parse(await ok(['repair', '--catalog', '--json', '--state', state])) as { catalog: { rebuilt: boolean; movedTo: string | null } };
    assert.deepEqual(await runsOf(state), runs);
    assert.deepEqual(catalogFiles(), files);
    assert.deepEqual(fs.readdirSync(state).filter((n) => n.startsWith('catalog.')), []);
    assert.equal(out.catalog.rebuilt, false);
    assert.equal(out.catalog.movedTo, null);
    assert.match(await ok(['repair', '--catalog', '--state', state]), /sound.*nothing changed/);
  });

  it('rebuilds a deleted catalog with each run\'s counts from its report.json and the manifest, adding up as every run report does', async () => {
    const { state, runs } = await threeRuns();
    fs.rmSync(join(state, 'catalog'), { recursive: true });
    const out = JSON.parse(await ok(['repair', '--catalog', '--json', '--state', state])) as { catalog: { rebuilt: boolean; runs: number; countsUnknown: number } };
    const rebuilt = await runsOf(state);
    rebuilt.forEach(assertAddsUp);
    assert.deepEqual(rebuilt.map((r) => r.counts), runs.map((r) => r.counts));
    assert.deepEqual(rebuilt.map((r) => r.rebuilt), ['repair', 'repair', 'repair']);
    assert.deepEqual([out.catalog.rebuilt, out.catalog.runs, out.catalog.countsUnknown], [true, 3, 0]);
    // The manifest keeps the last run's options (the forget's are the store's policy); the earlier ingest's are not kept.
    assert.deepEqual(rebuilt.map((r) => r.options), [runs[0]!.options, runs[1]!.options, {}]);
    assert.deepEqual(rebuilt.map(comparable), runs.map(comparable));
    await ok(['verify', '--state', state]);
  });

  it('rebuilds a catalog whose CURRENT is damaged, keeping the old one aside, and the next ingest runs on it', async () => {
    const { state, runs } = await threeRuns();
    fs.writeFileSync(join(state, 'catalog', 'CURRENT'), 'MANIFEST-999999\n');
    assert.equal((await drum(['verify', '--state', state])).status, 11);
    const out = JSON.parse(await ok(['repair', '--catalog', '--json', '--state', state])) as { catalog: { rebuilt: boolean; movedTo: string } };
    const rebuilt = await runsOf(state);
    rebuilt.forEach(assertAddsUp);
    assert.deepEqual(rebuilt.map((r) => r.counts), runs.map((r) => r.counts));
    assert.equal(out.catalog.rebuilt, true);
    assert.equal(fs.readFileSync(join(out.catalog.movedTo, 'CURRENT'), 'utf8'), 'MANIFEST-999999\n');
    await ok(['verify', '--state', state]);
    const more = join(state, '..', 'c.txt');
    fs.writeFileSync(more, 'http://new.example/1\nhttp://h2.example/p2\n');
    await ok(['ingest', '--no-progress', '--state', state, more]);
    assert.equal((await runsOf(state)).length, 4);
  });

  it('records unknown duplicate and rejected counts as null, not 0, when the run\'s report.json is gone, and the manifest\'s last run exactly', async () => {
    const { state, runs } = await threeRuns();
    for (const r of runs) fs.rmSync(join(r.outDir, 'report.json'), { force: true });
    fs.rmSync(join(state, 'catalog'), { recursive: true });
    const out = JSON.parse(await ok(['repair', '--catalog', '--json', '--state', state])) as { catalog: { countsUnknown: number } };
    const [forget, second, first] = await runsOf(state);
    // The first ingest: only linksRead and uniqueUrls are in the manifest history.
    assert.deepEqual(first!.counts, { linksRead: runs[2]!.counts.linksRead, uniqueUrls: runs[2]!.counts.uniqueUrls, duplicateUrls: null, rejectedLines: null });
    // The second is the manifest's current run: its committed counters and options are whole there.
    assert.equal(readManifest(state)!.run!.runId, second!.runId);
    assert.deepEqual([second!.counts, second!.options], [runs[1]!.counts, runs[1]!.options]);
    assert.deepEqual(forget!.counts, runs[0]!.counts);
    const table = await ok(['runs', '--state', state]);
    assert.match(table.split('\n').find((l) => l.startsWith(first!.runId))!, /\s\?\s+\?\s/);
    assert.equal(out.catalog.countsUnknown, 1);
  });
});
