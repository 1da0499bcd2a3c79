// A round's values pass runs while its key files' fsyncs are still under way
// and fsyncs its own files on the thread pool (src/engine/core/values-pass.ts,
// drum-core.ts): whichever file's fsync fails, the round fails with
// DRUM_IO, leaves no file of its own behind, and the committed files answer
// the next round as before.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { AuxLog } from '../../../src/bucket/aux-log.js';
import { PendingBuckets } from '../../../src/bucket/pending.js';
import { DrumCore, type CoreValues } from '../../../src/engine/core/drum-core.js';
import { SortArea } from '../../../src/engine/core/sort-area.js';
import { DrumFs } from '../../../src/io/fs.js';
import { newRunCounters } from '../../../src/stats/counters.js';
import { tempDir } from '../../helpers/tmp.js';
import { dirStore } from './dir-store.js';

const WORDS = 2;
const fingerprint = (i: number): [number, number] => [Math.imul(i + 1, 0x9e3779b1) >>> 0, Math.imul(i + 7, 0x85ebca6b) >>> 0];

/** A core over four buckets whose committed files live in a directory store (dir-store.ts). */
function coreWithFiles(dir: string, dfs: DrumFs) {
  const store = dirStore(dfs, dir, 4 * WORDS);
  const core = new DrumCore(dfs, new PendingBuckets(dfs, dir, 2, 16, true), new AuxLog(dfs, join(dir, 'aux.dat'), 1 << 16), new SortArea(1 << 10, true), WORDS, join(dir, 'events.dat'));
  /** One check+update round of docs: new docs get ids from `base` on; returns every doc's value [id, hits] by doc. */
  const round = async (docs: number[], base: number): Promise<Map<number, number[]>> => {
    const text = Buffer.from(docs.map((d) => `doc-${d}`).join('\n'));
    let at = 0;
    for (const d of docs) {
      const [hi, lo] = fingerprint(d);
      core.add(hi, lo, text, at, at + `doc-${d}`.length, -1, -1, 0);
      at += `doc-${d}`.length + 1;
    }
    const seen = new Map<number, number[]>();
    const values: CoreValues = {
      files: store.valueFiles,
      fill: (_o, rank, v, a) => {
        v[a] = base + rank;
        v[a + 1] = 0;
      },
      update: (_o, v, a) => {
        v[a + 1]!++;
        return true;
      },
      out: (o, v, a) => void seen.set(docs[o]!, [v[a]!, v[a + 1]!]),
    };
    try {
      const v = await core.merge('check+update', { files: store.files, fsync: true, counters: newRunCounters(), onHit: null, keySink: null, values });
      store.commit(v.written);
    } finally {
      core.reset();
    }
    return seen;
  };
  return { round, files: store.entries };
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

describe('the values pass of a round', () => {
  for (const [what, suffix, nth] of [['the second values file', '.vals.tmp', 2], ['the last key file', '.keys.tmp', 4]] as const) {
    it(`fails the round, removes every file of it and leaves the committed files whole when ${what}'s fsync fails`, async () => {
      const dir = tempDir();
      const dfs = new DrumFs();
      const { round, files } = coreWithFiles(dir, dfs);
      await round(range(0, 100), 0);
      const committed = fs.readdirSync(dir).filter((f) => /\.(keys|vals)$/.test(f)).sort();
      assert.equal(committed.length, 8);
      let fsyncs = 0;
      dfs.faultHook = (op, path) => {
        if (op === 'fsync' && path.endsWith(suffix) && ++fsyncs === nth) throw Object.assign(new Error('injected'), { code: 'EIO' });
      };
      await assert.rejects(round(range(50, 200), 100), { code: 'DRUM_IO' });
      assert.ok(fsyncs >= nth);
      dfs.faultHook = null;
      assert.deepEqual(fs.readdirSync(dir).filter((f) => /\.(keys|vals)/.test(f)).sort(), committed);
      // The committed files answer as before: every doc found with its first id, bumped once by this round.
      const again = await round(range(0, 100), 1000);
      assert.deepEqual([...again].sort((a, b) => a[0] - b[0]), range(0, 100).map((d) => [d, [d, 1]]));
      assert.equal([...files.values()].reduce((n, f) => n + f.keys, 0), 100);
    });
  }
});
