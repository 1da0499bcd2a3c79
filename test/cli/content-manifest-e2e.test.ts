// drum content with the real binary when the content store's manifest is
// gone but its files are there: the run and --verify refuse with
// DRUM_CORRUPT_FILE and leave the files alone, where treating the directory
// as a new store would cut the document log and delete every map file; a
// run stopped before its first round leaves a store that verifies.

import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { drum } from '../helpers/cli.js';
import { EXIT_STATUS } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';
import { generateWarc } from '../../scripts/gen-warc.js';

describe('drum content without its CONTENT-MANIFEST', () => {
  let dir = '';
  let warc = '';
  before(() => {
    dir = tempDir('drum-content-manifest-');
    warc = join(dir, 'g.warc.gz');
    generateWarc({ docs: 60, seed: 9, out: warc });
  });

  it('refuses a store whose manifest is missing beside its files with DRUM_CORRUPT_FILE and keeps the files', async () => {
    const state = join(dir, 'st');
    assert.equal((await drum(['content', '--quiet', '--no-fsync', '--state', state, warc])).status, 0);
    const content = join(state, 'content');
    fs.rmSync(join(content, 'CONTENT-MANIFEST'));
    const urls = fs.statSync(join(content, 'docs.urls')).size;
    const exact = fs.readdirSync(join(content, 'exact')).sort();
    const r = await drum(['content', '--quiet', '--no-fsync', '--state', state, '--out', join(dir, 'o2'), warc]);
    assert.equal(r.status, EXIT_STATUS.DRUM_CORRUPT_FILE, r.stderr);
    assert.equal((await drum(['content', '--verify', '--quiet', '--state', state])).status, EXIT_STATUS.DRUM_CORRUPT_FILE);
    assert.equal(fs.statSync(join(content, 'docs.urls')).size, urls);
    assert.deepEqual(fs.readdirSync(join(content, 'exact')).sort(), exact);
  });

  it('leaves a new store that verifies and runs again when stopped before its first round', async () => {
    const state = join(dir, 'st-empty');
    const empty = join(dir, 'empty.warc');
    fs.writeFileSync(empty, '');
    assert.equal((await drum(['content', '--quiet', '--no-fsync', '--state', state, empty])).status, 0);
    assert.equal((await drum(['content', '--verify', '--quiet', '--state', state])).status, 0);
    assert.equal((await drum(['content', '--quiet', '--no-fsync', '--state', state, '--out', join(dir, 'o3'), warc])).status, 0);
  });
});
