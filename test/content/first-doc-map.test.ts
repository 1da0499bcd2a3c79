// The content store's map on the DRUM core (src/content/first-doc-map.ts)
// against a Map model of first docIDs: keys drawn from a small pool (so a
// key repeats within a round and across rounds), rounds committed and the
// map reopened from its committed files, with small pending buffers (keys
// spill) and sort slots (buckets merge in slices). Every key's answer is
// the docID of its first arrival over all rounds, and the files hold
// exactly the model.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { MapFiles } from '../../src/content/content-manifest.js';
import { FirstDocMap, mapFileNames } from '../../src/content/first-doc-map.js';
import { SortArea } from '../../src/engine/core/sort-area.js';
import { DrumFs } from '../../src/io/fs.js';
import { KeyReader } from '../../src/store/keys/key-reader.js';
import { ValueReader } from '../../src/store/values/value-io.js';
import { verifyBucketFiles } from '../../src/store/verify.js';
import { tempDir } from '../helpers/tmp.js';

const POOL = 60;
const keyOf = (k: number): [number, number] => [Math.imul(k + 1, 0x9e3779b1) >>> 0, Math.imul(k + 3, 0x85ebca6b) >>> 0];

/** Every (key, docID) the map's files hold. */
function stored(dfs: DrumFs, dir: string, m: MapFiles): Map<string, number> {
  const out = new Map<string, number>();
  const v = new Uint32Array(1);
  m.files.forEach((e, b) => {
    if (e === null) return;
    const kr = KeyReader.open(dfs, join(dir, e.file), { bucket: b, keys: e.keys }, e.bytes);
    const vr = ValueReader.open(dfs, join(dir, e.values!.file), { bucket: b, count: e.keys, valueBytes: 4 }, e.values!.bytes);
    while (kr.nextBlock()) {
      for (let i = 0; i < kr.n; i++) {
        vr.take(v, 0);
        out.set(`${kr.keys[2 * i]}:${kr.keys[2 * i + 1]}`, v[0]!);
      }
    }
    kr.close();
    vr.close();
  });
  return out;
}

describe('first-docID map on the DRUM core', () => {
  it('answers every key with the docID of its first arrival, across rounds and reopens, as a Map of first docIDs does', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({ keys: fc.array(fc.nat({ max: POOL - 1 }), { maxLength: 80 }), reopen: fc.boolean() }), { minLength: 1, maxLength: 6 }),
      fc.constantFrom(1, 4), fc.constantFrom(3, 1 << 12), fc.constantFrom(12 * 4, 1 << 16),
      async (rounds, buckets, sortEntries, pendingBytes) => {
        const dir = tempDir('drum-first-doc-');
        const dfs = new DrumFs();
        let files: MapFiles = { buckets, files: Array(buckets).fill(null) };
        const open = (): FirstDocMap => new FirstDocMap(dfs, dir, 'exact', files, new SortArea(sortEntries), pendingBytes);
        let map = open();
        const model = new Map<number, number>();
        let doc = 0;
        for (let g = 1; g <= rounds.length; g++) {
          const { keys, reopen } = rounds[g - 1]!;
          const ords = keys.map((k, i) => map.add(...keyOf(k), doc + i));
          files = await map.merge(g, false);
          keys.forEach((k, i) => {
            if (!model.has(k)) model.set(k, doc + i);
            assert.equal(map.docOf(ords[i]!), model.get(k), `round ${g}, key ${k}`);
          });
          map.committed(files);
          doc += keys.length;
          if (reopen) map = open();
        }
        assert.deepEqual(stored(dfs, dir, files), new Map([...model].map(([k, d]) => [keyOf(k).join(':'), d])));
        const check = verifyBucketFiles(dfs, dir, files.files, { buckets, valueBytes: 4 });
        assert.deepEqual(check.problems, []);
        // Only the committed files are left.
        const left = fs.readdirSync(join(dir, 'exact')).map((f) => `exact/${f}`).sort();
        assert.deepEqual(left, mapFileNames(files).sort());
        fs.rmSync(dir, { recursive: true, force: true });
      },
    ), { numRuns: 40 });
  });

  it('refuses to open on a named file that is missing or of another size, with DRUM_CORRUPT_FILE', async () => {
    const dir = tempDir('drum-first-doc-bad-');
    const dfs = new DrumFs();
    const map = new FirstDocMap(dfs, dir, 'bands', { buckets: 2, files: [null, null] }, new SortArea(64));
    map.add(1, 2, 0);
    map.add(0x80000000, 2, 1);
    const files = await map.merge(1, false);
    map.committed(files);
    const e = files.files[1]!;
    fs.appendFileSync(join(dir, e.values!.file), 'x');
    assert.throws(() => new FirstDocMap(dfs, dir, 'bands', files, new SortArea(64)), { code: 'DRUM_CORRUPT_FILE' });
    fs.rmSync(join(dir, e.file));
    assert.throws(() => new FirstDocMap(dfs, dir, 'bands', files, new SortArea(64)), { code: 'DRUM_CORRUPT_FILE' });
  });
});
