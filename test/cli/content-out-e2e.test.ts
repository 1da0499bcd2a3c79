// drum content's --out with the real binary: an output directory holding
// other files, the state directory itself and a folder of the content store
// are refused with DRUM_CLOBBER before the store changes, naming drum
// content's default output place <state>/content-runs/; a directory with
// only an earlier content run's outputs (the same command run again) is
// replaced. An input kept inside the content store is refused with
// DRUM_BAD_OPTION and not deleted.

import { describe, it, before } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { drum } from '../helpers/cli.js';
import { EXIT_STATUS } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';
import { generateWarc } from '../../scripts/gen-warc.js';

describe('drum content --out', () => {
  let dir = '';
  let warc = '';
  let state = '';
  const docsOf = (): number => Number(JSON.parse(fs.readFileSync(join(state, 'content-runs', 'run-1', 'content-report.json'), 'utf8')).storeDocuments);
  before(async () => {
    dir = tempDir('drum-content-out-');
    warc = join(dir, 'g.warc.gz');
    generateWarc({ docs: 60, seed: 7, out: warc });
    state = join(dir, 'st');
    assert.equal((await drum(['content', '--quiet', '--no-fsync', '--state', state, warc])).status, 0);
  });

  it('refuses a non-empty directory holding files it did not write, and leaves them and the store alone', async () => {
    const out = join(dir, 'mine');
    fs.mkdirSync(out);
    fs.writeFileSync(join(out, 'notes.txt'), 'keep\n');
    const r = await drum(['content', '--quiet', '--no-fsync', '--state', state, '--out', out, warc]);
    assert.equal(r.status, EXIT_STATUS.DRUM_CLOBBER, r.stderr);
    assert.deepEqual(fs.readdirSync(out), ['notes.txt']);
    assert.equal(JSON.parse(fs.readFileSync(join(state, 'content', 'CONTENT-MANIFEST')).subarray(16).toString()).docs, docsOf());
  });

  it('refuses the state directory and every folder of the content store', async () => {
    for (const out of [state, join(state, 'content'), join(state, 'content', 'work'), join(state, 'content', 'exact')]) {
      const r = await drum(['content', '--quiet', '--no-fsync', '--state', state, '--out', out, warc]);
      assert.equal(r.status, EXIT_STATUS.DRUM_CLOBBER, `${out}: ${r.stderr}`);
    }
    assert.equal((await drum(['content', '--verify', '--quiet', '--state', state])).status, 0);
  });

  it('names <state>/content-runs/, where its runs go by default, as the place to use instead', async () => {
    const r = await drum(['content', '--quiet', '--no-fsync', '--state', state, '--out', join(state, 'content'), warc]);
    assert.equal(r.status, EXIT_STATUS.DRUM_CLOBBER, r.stderr);
    assert.match(r.stderr, /DRUM_CLOBBER/);
    assert.match(r.stderr, /<state>\/content-runs\//, 'the message names drum content\'s default place');
    assert.doesNotMatch(r.stderr, /<state>\/runs\//, 'not ingest\'s');
  });

  it('replaces an earlier content run\'s outputs when the same command runs again', async () => {
    const out = join(dir, 'again');
    for (let i = 0; i < 2; i++) assert.equal((await drum(['content', '--quiet', '--no-fsync', '--state', state, '--out', out, warc])).status, 0);
    assert.deepEqual(fs.readdirSync(out).sort(), ['content-duplicates.tsv', 'content-report.json']);
  });

  it('refuses an input inside the content store with DRUM_BAD_OPTION and leaves the file there', async () => {
    const kept = join(state, 'content', 'work', 'exact', 'kept.warc.gz');
    fs.mkdirSync(join(state, 'content', 'work', 'exact'), { recursive: true });
    fs.copyFileSync(warc, kept);
    const r = await drum(['content', '--quiet', '--no-fsync', '--state', state, '--out', join(dir, 'o-in'), kept]);
    assert.equal(r.status, EXIT_STATUS.DRUM_BAD_OPTION, r.stderr);
    assert.ok(fs.existsSync(kept));
  });
});
