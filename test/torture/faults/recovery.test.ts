// The recovery path docs/reliability.md gives for a lost MANIFEST or key
// file: ingesting every run's unique-*.txt, in run order, into a fresh state
// directory rebuilds the same store — key files byte-identical bucket by
// bucket, because canonical URLs canonicalize to themselves.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { drum, haveEngine, manifestOf, writeLinks } from '../harness.js';
import { tempDir } from '../../helpers/tmp.js';

const FAST = ['--no-progress', '--quiet', '--no-fsync', '--workers', '0'];

describe('rebuilding a store from its runs\' outputs', { skip: !haveEngine && 'engine not compiled' }, () => {
  it('gives byte-identical key files', async () => {
    const root = tempDir('drum-torture-');
    for (const [f, seed] of [['a.txt', 1], ['b.txt', 2], ['c.txt', 3]] as const) {
      writeLinks(join(root, f), 4000, seed);
      assert.equal((await drum(['ingest', ...FAST, '--state', 'st', f], { cwd: root })).status, 0);
    }
    const runs = JSON.parse((await drum(['runs', '--json', '--state', 'st'], { cwd: root })).stdout) as { outDir: string }[];
    assert.equal(runs.length, 3);
    const all = runs.reverse().flatMap((r) => fs.readdirSync(r.outDir).filter((f) => f.startsWith('unique-')).sort().map((f) => fs.readFileSync(join(r.outDir, f), 'utf8')));
    const r = await drum(['ingest', ...FAST, '--state', 'rebuilt', '-'], { cwd: root, input: all.join('') });
    assert.equal(r.status, 0, r.stderr);
    const a = manifestOf(join(root, 'st'))!;
    const b = manifestOf(join(root, 'rebuilt'))!;
    assert.equal(b.storeUrls, a.storeUrls);
    a.buckets.forEach((e, i) => {
      const f = b.buckets[i];
      assert.equal(e === null, f === null, `bucket ${i}`);
      if (e && f) assert.ok(fs.readFileSync(join(root, 'st', e.file)).equals(fs.readFileSync(join(root, 'rebuilt', f.file))), `bucket ${i} differs`);
    });
  });
});
