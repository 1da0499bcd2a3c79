// A keys-only store given values (src/store/upgrade.ts, through `drum
// upgrade`): once the upgrade returned, a power loss keeps its values files
// with the manifest that names them (power-loss.ts's kindest rebuild: only
// what an fsync made durable), so the store verifies and holds its URLs.
// REQUIRES: nothing (temporary directories only).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum, upgradeStore, verifyStateDir } from '../../src/engine/drum.js';
import { readManifest } from '../../src/store/manifest.js';
import { tempDir } from '../helpers/tmp.js';
import { PowerLossModel } from '../torture/power-loss/power-loss.js';

describe('upgrade of a keys-only store', () => {
  it('keeps every values file the manifest names when power is lost just after the upgrade returned', async () => {
    const world = tempDir('drum-upgrade-power-');
    const state = join(world, 'state');
    const input = join(world, 'links.txt');
    fs.writeFileSync(input, Array.from({ length: 400 }, (_, i) => `http://h${i % 13}.example/${i}`).join('\n'));
    const d = await Drum.open(state, { workers: 0, values: false, journalKeys: 0 });
    await d.ingest({ inputs: [input], outDir: join(world, 'out') });
    await d.close();
    const model = new PowerLossModel(world);
    assert.equal((await upgradeStore(state, { workers: 0, faultHook: (op, path) => model.observe(op, path) })).upgraded, true);
    const image = `${world}-image`;
    model.build(image, world);
    try {
      const v = await verifyStateDir(join(image, 'state'));
      assert.deepEqual(v.problems.map((p) => p.code), []);
      const m = readManifest(join(image, 'state'))!;
      assert.equal(m.storeUrls, 400);
      assert.ok(m.params.valueBytes! > 0);
    } finally {
      fs.rmSync(image, { recursive: true, force: true });
    }
  });
});
