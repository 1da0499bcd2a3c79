// The run report's figures of the store after the run (report-build.ts):
// the report is built before the final round commits, so what it says of
// the store — URLs stored, keys in the key journal — must be what that
// commit leaves, for an ingest, a library run of add() calls, a run that
// fills the journal, one that folds it and one that merges; and what a
// library run (add(), a stream) read, wrote and answered in the hot cache and
// recent table, as an ingest of the same links reports it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../../../src/engine/drum.js';
import type { DrumOptions } from '../../../../src/options.js';
import { readManifest } from '../../../../src/store/manifest.js';
import { tempDir } from '../../../helpers/tmp.js';

const O: DrumOptions = { workers: 0, fsync: false };
const urls = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `http://h${(from + i) % 11}.example/p/${from + i}`);

function file(dir: string, name: string, list: string[]): string {
  const p = join(dir, name);
  fs.writeFileSync(p, list.map((u) => `${u}\n`).join(''));
  return p;
}

describe('the run report', () => {
  it('counts the keys the journal holds after the run, the run that fills it first included', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    const d = await Drum.open(state, { ...O, journalKeys: 100 });
    try {
      const a = await d.ingest({ inputs: [file(dir, 'a.txt', urls(0, 60))], outDir: join(dir, 'out-a') });
      assert.equal(a.tiers.journal.rounds, 1);
      assert.equal(a.tiers.journal.keys, 60, 'the first run\'s keys are in the journal');
      assert.equal(a.storeUrls, 60);
      const b = await d.ingest({ inputs: [file(dir, 'b.txt', urls(50, 30))], outDir: join(dir, 'out-b') });
      assert.equal(b.tiers.journal.keys, 80);
      // 60 more would overflow it: the fold empties it, and the round's keys start it again.
      const c = await d.ingest({ inputs: [file(dir, 'c.txt', urls(80, 60))], outDir: join(dir, 'out-c') });
      assert.equal(c.tiers.journal.folds, 1);
      assert.equal(c.tiers.journal.keys, 60);
      assert.equal(c.tiers.journal.keys, readManifest(state)!.journal!.keys);
      // Too many for a journal round: the merge folds the journal and leaves it empty.
      const e = await d.ingest({ inputs: [file(dir, 'e.txt', urls(140, 200))], outDir: join(dir, 'out-e') });
      assert.equal(e.tiers.journal.rounds, 0);
      assert.equal(e.tiers.journal.keys, 0);
      assert.equal(readManifest(state)!.journal, undefined);
      assert.equal(e.storeUrls, 340);
    } finally {
      await d.close();
    }
  });

  it('counts the journal\'s keys after a library run of add() calls', async () => {
    const dir = tempDir();
    const d = await Drum.open(join(dir, 'state'), O);
    try {
      await d.add(urls(0, 25));
      await d.add(urls(20, 10));
      const r = await d.endRun();
      assert.equal(r!.tiers.journal.keys, 30);
      assert.equal(r!.storeUrls, 30);
    } finally {
      await d.close();
    }
  });

  it('counts what a library run wrote and what its hot cache and recent table answered, as an ingest of the same links does', async () => {
    const dir = tempDir();
    // No line memo: the repeats reach the hot cache and the recent table, as different spellings of one URL would.
    const o: DrumOptions = { ...O, lineMemoEntries: 0 };
    const links = [...urls(0, 40), ...urls(0, 40)];
    const ing = await Drum.open(join(dir, 'ingest'), o);
    let ingest;
    try {
      ingest = await ing.ingest({ inputs: [file(dir, 'a.txt', links)] });
    } finally {
      await ing.close();
    }
    const d = await Drum.open(join(dir, 'library'), o);
    try {
      await d.add(links.slice(0, 40));
      await d.add(links.slice(40));
      const r = (await d.endRun())!;
      const s = d.stream();
      s.resume();
      s.end(links.join('\n') + '\n');
      await new Promise((done) => s.on('close', done));
      for (const rep of [ingest, r, s.report!]) {
        assert.ok(rep.io.bytesWritten > 0 && rep.io.fileOpens > 0, 'its unique file and its key journal were written');
        assert.equal(rep.tiers.hotCache.lookups, rep.tiers.chunkDedup.lookups - rep.tiers.chunkDedup.hits);
        assert.equal(rep.tiers.recentTable.lookups, rep.tiers.hotCache.lookups - rep.tiers.hotCache.hits);
      }
      // The second call's 40 links were added by the first: answered in RAM, as the ingest's repeats are.
      assert.equal(r.tiers.hotCache.hits + r.tiers.recentTable.hits, 40);
      assert.equal(r.answeredInRam, ingest.answeredInRam);
      assert.equal(s.report!.answeredInRam, 1);
    } finally {
      await d.close();
    }
  });
});
