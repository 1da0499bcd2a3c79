// drum content stopped by SIGINT in the middle of a run, with the real
// binary: it exits with the signal's status and says on stderr how many
// documents its committed rounds left in the content store, the number the
// store's manifest holds. Does not check what a rerun answers
// (content-kill.test.ts does).
// REQUIRES: a build (DRUM_DIST_DIR, test/helpers/cli.ts).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { bin, distRoot } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { readContentManifest } from '../../src/content/content-manifest.js';
import { generateWarc } from '../../scripts/gen-warc.js';

const ROUND_DOCS = 20;

describe('drum content stopped by a signal', () => {
  it('exits 130 on SIGINT and names the documents its committed rounds left in the store', async () => {
    const dir = tempDir('drum-content-stop-');
    const warc = join(dir, 'g.warc.gz');
    generateWarc({ docs: 600, seed: 3, out: warc });
    const state = join(dir, 's');
    const child = spawn(process.execPath, [bin, 'content', '--quiet', '--round-docs', String(ROUND_DOCS), '--state', state, '--out', join(dir, 'o'), warc], {
      env: { ...process.env, DRUM_DIST_DIR: distRoot, DRUM_STATE: '' }, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    let alive = true;
    void exited.then(() => (alive = false));
    while (alive) {
      let docs = 0;
      try {
        docs = readContentManifest(join(state, 'content'))?.docs ?? 0;
      } catch {
        // the manifest is being replaced; ask again
      }
      if (docs >= 2 * ROUND_DOCS) {
        child.kill('SIGINT');
        break;
      }
      await new Promise((r) => setTimeout(r, 2));
    }
    assert.equal(await exited, 130, stderr);
    const docs = readContentManifest(join(state, 'content'))!.docs;
    assert.ok(docs >= 2 * ROUND_DOCS && docs < 600, `stopped after ${docs} documents`);
    assert.match(stderr, new RegExp(`SIGINT: the content store keeps the ${docs} documents`));
  });
});
