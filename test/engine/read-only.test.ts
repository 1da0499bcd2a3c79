// A read-only Drum (what `drum stats`, `verify` and `check` open while a
// writer may be committing) keeps reading the files of the manifest it
// opened on, even after a writer's commit deletes them.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../src/engine/drum.js';
import { readManifest } from '../../src/store/manifest.js';
import { tempDir } from '../helpers/tmp.js';

/** A store of 500 URLs written with the Bloom gate (so it has a Bloom file). */
async function storeWithBloom(): Promise<string> {
  const dir = tempDir();
  const input = join(dir, 'a.txt');
  fs.writeFileSync(input, Array.from({ length: 500 }, (_, i) => `http://h${i % 7}.example/${i}\n`).join(''));
  // Journal off: the round merges and writes the key files and the Bloom file.
  const w = await Drum.open(join(dir, 'state'), { fsync: false, bloom: 'gate', workers: 0, journalKeys: 0 });
  await w.ingest({ inputs: [input], outDir: join(dir, 'out') });
  await w.close();
  return join(dir, 'state');
}

describe('a read-only Drum', () => {
  it('reads the Bloom file it opened with after a writer has deleted it', async () => {
    const state = await storeWithBloom();
    const bloom = readManifest(state)!.bloom!.file;
    const r = await Drum.open(state, { readOnly: true, workers: 0 });
    try {
      // What a writer's next commit does once its new manifest is in place: delete the file it replaced.
      fs.unlinkSync(join(state, bloom));
      const v = await r.verify();
      assert.equal(v.ok, true, JSON.stringify(v.problems));
      const st = await r.stats();
      assert.equal(st.bloom?.keys, 500);
    } finally {
      await r.close();
    }
  });

  it('keeps its key files pinned when the Bloom file is already missing at open', async () => {
    const state = await storeWithBloom();
    const m = readManifest(state)!;
    fs.unlinkSync(join(state, m.bloom!.file));
    const r = await Drum.open(state, { readOnly: true, workers: 0 });
    try {
      const key = m.buckets.find((e) => e !== null)!.file;
      fs.unlinkSync(join(state, key));
      const v = await r.verify();
      assert.deepEqual(v.problems.map((p) => p.file.endsWith('.bloom')), v.problems.map(() => true), JSON.stringify(v.problems));
      assert.ok(v.problems.length > 0, 'the missing Bloom file is reported');
    } finally {
      await r.close();
    }
  });
});
