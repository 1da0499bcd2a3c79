// Drum.stats() against the files on disk: the store size counts every file
// the manifest names under store/ (key files, values files, the key journal),
// the values files' share apart; the disk usage puts the URL log and the host
// table in parts of their own, leaving "other" to the manifest and the lock.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { readManifest } from '../../../../src/store/manifest.js';
import { withDrum } from '../../../helpers/drum.js';
import { tempDir } from '../../../helpers/tmp.js';

const OPTS = { workers: 0, fsync: false } as const;

/** Sizes of the files under `<state>/store/` whose names end with `suffix`. */
function sizes(state: string, suffix: string): { bytes: number; files: number } {
  const names = fs.readdirSync(join(state, 'store')).filter((n) => n.endsWith(suffix));
  return { bytes: names.reduce((a, n) => a + fs.statSync(join(state, 'store', n)).size, 0), files: names.length };
}

describe('Drum.stats', () => {
  it('counts the key and values files in the store size, and the journal once small rounds left one', async () => {
    const root = tempDir();
    const state = join(root, 'state');
    const links = join(root, 'links.txt');
    fs.writeFileSync(links, Array.from({ length: 3000 }, (_, i) => `http://h${i % 40}.example/p/${i}\n`).join(''));
    await withDrum(state, { ...OPTS, journalKeys: 0 }, (d) => d.ingest({ inputs: [links], outDir: join(root, 'o1') }));
    await withDrum(state, OPTS, async (d) => {
      const s = await d.stats();
      const keys = sizes(state, '.keys');
      const vals = sizes(state, '.vals');
      assert.ok(keys.files > 0 && vals.files > 0);
      assert.equal(s.storeUrls, 3000);
      assert.equal(s.valuesBytes, vals.bytes);
      assert.equal(s.storeBytes, keys.bytes + vals.bytes);
      assert.equal(s.files, keys.files + vals.files);
      assert.ok(s.disk.urls > 0, 'the URL log has a part of its own');
      assert.ok(s.disk.hosts > 0, 'so has the host table');
      assert.ok(s.disk.other < s.disk.urls, `other ${s.disk.other} holds only the manifest and the lock`);
    });
    fs.writeFileSync(links, 'http://new.example/x\n');
    await withDrum(state, OPTS, (d) => d.ingest({ inputs: [links], outDir: join(root, 'o2') }));
    await withDrum(state, OPTS, async (d) => {
      const s = await d.stats();
      const journal = readManifest(state)!.journal!;
      assert.equal(s.journal?.keys, 1);
      assert.equal(s.storeBytes, sizes(state, '.keys').bytes + sizes(state, '.vals').bytes + journal.bytes);
    });
  });
});
