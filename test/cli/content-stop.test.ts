// drum content stopped by SIGINT in the middle of a run, with the real
// binary: it exits with the signal's status and says on stderr how many
// documents its committed rounds left in the content store, the number the
// store's manifest holds. Does not check what a rerun answers
// (content-kill.test.ts does).
// REQUIRES: a build (DRUM_DIST_DIR, test/helpers/cli.ts).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { signalAfterDocs } from '../helpers/content-signal.js';
import { tempDir } from '../helpers/tmp.js';
import { generateWarc } from '../../scripts/gen-warc.js';

const ROUND_DOCS = 20;

describe('drum content stopped by a signal', () => {
  it('exits 130 on SIGINT and names the documents its committed rounds left in the store', async () => {
    const dir = tempDir('drum-content-stop-');
    const warc = join(dir, 'g.warc.gz');
    generateWarc({ docs: 600, seed: 3, out: warc });
    const state = join(dir, 's');
    const r = await signalAfterDocs(['content', '--quiet', '--round-docs', String(ROUND_DOCS), '--state', state, '--out', join(dir, 'o'), warc], state, 2 * ROUND_DOCS, 'SIGINT');
    assert.equal(r.code, 130, r.stderr);
    assert.ok(r.docs >= 2 * ROUND_DOCS && r.docs < 600, `stopped after ${r.docs} documents`);
    assert.match(r.stderr, new RegExp(`SIGINT: the content store keeps the ${r.docs} documents`));
  });
});
