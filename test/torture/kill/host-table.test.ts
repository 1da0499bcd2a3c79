// The host table (`drum hosts`) after a crash that falls between a round's
// manifest rename and the catalog batch with that round's host counts: a
// deterministic in-process version of what scripts/torture.ts found with
// kill -9 (the table then undercounts the store). Crashes through the fault
// seam at the state directory's fsync right after a MANIFEST rename.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Catalog } from '../../../src/catalog/catalog.js';
import { Drum } from '../../../src/engine/drum.js';
import type { FsOp } from '../../../src/io/fs.js';
import type { DrumOptions } from '../../../src/options.js';
import { readManifest } from '../../../src/store/manifest.js';
import { tempDir } from '../../helpers/tmp.js';
import { writeLinks } from '../harness.js';
import { isCrash, SimulatedCrash } from '../../helpers/crash.js';


const opts: DrumOptions = { workers: 0, fsync: true, chunkBytes: 4096, cacheEntries: 64, recentEntries: 64, tuning: { maxBucketEntries: 60 } };

async function hostSum(state: string): Promise<number> {
  const c = await Catalog.open(state, { readOnly: true });
  try {
    return (await c.topHosts(1_000_000)).reduce((s, h) => s + h.uniqueUrls, 0);
  } finally {
    await c.close();
  }
}

describe('the host table after a crash between a commit and its host counts', () => {
  it('still counts every stored URL once the run is resumed', async () => {
    const dir = tempDir();
    const input = join(dir, 'links.txt');
    writeLinks(input, 1500, 9, { hosts: 30 });
    const state = join(dir, 'state');
    let renames = 0;
    let armed = false;
    const crash = (op: FsOp, path: string): void => {
      if (op === 'rename' && path.endsWith('MANIFEST') && ++renames === 3) armed = true;
      else if (armed && op === 'fsync' && path === state) throw new SimulatedCrash('after the manifest rename, before the host counts');
    };
    const d = await Drum.open(state, { ...opts, faultHook: crash });
    await assert.rejects(d.ingest({ inputs: [input], outDir: join(dir, 'out') }), isCrash);
    await d.close().catch(() => undefined);
    const d2 = await Drum.open(state, opts);
    await d2.ingest({ inputs: [input], outDir: join(dir, 'out') });
    await d2.close();
    assert.equal(readManifest(state)!.run!.status, 'complete');
    assert.equal(await hostSum(state), readManifest(state)!.storeUrls);
  });
});
