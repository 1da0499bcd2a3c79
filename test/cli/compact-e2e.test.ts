// End-to-end tests of `drum compact` with the real bin/drum: after small
// ingests it merges the key journal and folds the host counts, the store
// verifies and answers as before (the same URLs new to a check, the same
// host counts); a second compact says there is nothing to do; a missing
// store is DRUM_NOT_FOUND's status, and none is created.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { EXIT_STATUS } from '../../src/errors.js';
import { readManifest } from '../../src/store/manifest.js';
import { drum } from '../torture/harness.js';
import { tempDir } from '../helpers/tmp.js';

const urls = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `http://h${(from + i) % 5}.example/p/${from + i}`);
const lines = (us: string[]): string => us.map((u) => `${u}\n`).join('');
const FLAGS = ['--no-fsync', '--workers', '0'];

describe('drum compact', () => {
  it('merges the journal and folds the host counts after small ingests; the store answers as before', async () => {
    const cwd = tempDir();
    for (let b = 0; b < 3; b++) {
      fs.writeFileSync(join(cwd, `b${b}.txt`), lines(urls(b * 30, 30)));
      assert.equal((await drum(['ingest', '--quiet', ...FLAGS, '--out', `o${b}`, `b${b}.txt`], { cwd })).status, 0);
    }
    fs.writeFileSync(join(cwd, 'probe.txt'), lines(urls(60, 60)));
    const checkBefore = await drum(['check', 'probe.txt'], { cwd });
    const hostsBefore = await drum(['hosts', '--json'], { cwd });
    assert.equal(readManifest(join(cwd, 'drum-state'))!.journal?.keys, 90);
    const r = await drum(['compact', '--json', ...FLAGS.slice(0, 1)], { cwd });
    assert.equal(r.status, 0, r.stderr);
    const j = JSON.parse(r.stdout) as { journalKeys: number; hostDeltas: number; storeUrls: number };
    assert.deepEqual([j.journalKeys, j.hostDeltas, j.storeUrls], [90, 3, 90]);
    assert.equal(readManifest(join(cwd, 'drum-state'))!.journal, undefined);
    assert.equal((await drum(['verify'], { cwd })).status, 0);
    const checkAfter = await drum(['check', 'probe.txt'], { cwd });
    assert.equal(checkAfter.stdout, checkBefore.stdout);
    assert.equal(checkAfter.stdout.split('\n').filter((l) => l !== '').length, 30);
    assert.equal((await drum(['hosts', '--json'], { cwd })).stdout, hostsBefore.stdout);
    const again = await drum(['compact'], { cwd });
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stdout, /^already compact/);
  });

  it('exits with DRUM_NOT_FOUND\'s status on a directory without a store, creating none', async () => {
    const cwd = tempDir();
    const r = await drum(['compact', '--state', 'nothing-here'], { cwd });
    assert.equal(r.status, EXIT_STATUS.DRUM_NOT_FOUND);
    assert.match(r.stderr, /DRUM_NOT_FOUND/);
    assert.equal(fs.existsSync(join(cwd, 'nothing-here')), false);
  });
});
