import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../src/engine/drum.js';
import type { DrumOptions } from '../../src/options.js';
import { readManifest } from '../../src/store/manifest.js';
import { MEMO_FILE } from '../../src/tiers/memo-file.js';
import { tempDir } from '../helpers/tmp.js';

const lines = (from: number, n: number): string => Array.from({ length: n }, (_, i) => `http://h${(from + i) % 7}.example/p/${from + i}`).join('\n') + '\n';
const memoCommit = (state: string): number | null => (fs.existsSync(join(state, MEMO_FILE)) ? fs.readFileSync(join(state, MEMO_FILE)).readUInt32LE(8) : null);

async function ingest(state: string, file: string, out: string, o: DrumOptions) {
  const d = await Drum.open(state, o);
  try {
    return await d.ingest({ inputs: [file], outDir: out });
  } finally {
    await d.close();
  }
}

describe('line memos across processes', () => {
  const o: DrumOptions = { workers: 0, fsync: false, chunkBytes: 4096, cacheEntries: 0, recentEntries: 0 };

  it('answers the raw lines of a completed run from the memo in the next process, and still finds the new ones', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    fs.writeFileSync(join(dir, 'a.txt'), lines(0, 2000));
    fs.writeFileSync(join(dir, 'b.txt'), lines(0, 2000) + lines(5000, 300));
    await ingest(state, join(dir, 'a.txt'), join(dir, 'out-a'), o);
    assert.equal(memoCommit(state), readManifest(state)!.commit, 'saved after the final commit, tied to it');
    const r = await ingest(state, join(dir, 'b.txt'), join(dir, 'out-b'), o);
    assert.equal(r.uniqueUrls, 300);
    assert.equal(fs.readFileSync(join(dir, 'out-b', 'unique-00001.txt'), 'utf8'), lines(5000, 300));
    assert.ok(r.tiers.lineMemo.hits >= 2000, `memo hits ${r.tiers.lineMemo.hits}`);
  });

  it('saves and loads the worker\'s memo too, and stays exact whichever thread parses a chunk the next time', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    fs.writeFileSync(join(dir, 'a.txt'), lines(0, 20_000));
    fs.writeFileSync(join(dir, 'b.txt'), lines(0, 20_000) + lines(50_000, 300));
    const w: DrumOptions = { ...o, workers: 1 };
    await ingest(state, join(dir, 'a.txt'), join(dir, 'out-a'), w);
    const r = await ingest(state, join(dir, 'b.txt'), join(dir, 'out-b'), w);
    assert.equal(r.uniqueUrls, 300);
    assert.equal(fs.readFileSync(join(dir, 'out-b', 'unique-00001.txt'), 'utf8'), lines(50_000, 300));
    assert.ok(r.tiers.lineMemo.hits > 0, 'some lines answered by a loaded memo');
  });

  it('ignores the saved memo under another canonicalization policy', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    fs.writeFileSync(join(dir, 'a.txt'), lines(0, 500));
    await ingest(state, join(dir, 'a.txt'), join(dir, 'out-a'), o);
    const r = await ingest(state, join(dir, 'a.txt'), join(dir, 'out-b'), { ...o, canonical: { stripWww: true }, forcePolicy: true });
    assert.equal(r.tiers.lineMemo.hits, 0);
  });

  it('saves no memo that a crashed run could leave matching the committed state', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    fs.writeFileSync(join(dir, 'a.txt'), lines(0, 500));
    fs.writeFileSync(join(dir, 'b.txt'), lines(1000, 3000));
    await ingest(state, join(dir, 'a.txt'), join(dir, 'out-a'), o);
    let writes = 0;
    class Crash extends Error {}
    await assert.rejects(ingest(state, join(dir, 'b.txt'), join(dir, 'out-b'), {
      ...o, tuning: { maxBucketEntries: 60 },
      faultHook: (op, path) => {
        // Renames of MANIFEST: the run's start, then one per merge; crash at the third merge's commit.
        if (op === 'rename' && /MANIFEST/.test(path) && ++writes === 4) throw new Crash('simulated crash after two merge commits');
      },
    }), Crash);
    const commit = readManifest(state)!.commit;
    assert.notEqual(memoCommit(state), commit, 'the memo on disk is from the earlier, completed run');
    // The rerun resumes cold and writes every URL of b.
    const r = await ingest(state, join(dir, 'b.txt'), join(dir, 'out-b'), o);
    assert.equal(r.uniqueUrls, 3000);
    assert.equal(memoCommit(state), readManifest(state)!.commit);
  });
});
