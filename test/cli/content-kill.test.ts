// drum content killed with SIGKILL in the middle of a run, with the real
// binary: the store is sound at its last committed round, and a re-run of
// the same WARC answers as an uninterrupted run does — the documents the
// killed run committed are now exact duplicates of themselves (or of their
// own earliest copy), and every later document gets the uninterrupted
// run's line (kind, earliest copy, similarity).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { drum } from '../helpers/cli.js';
import { signalAfterDocs } from '../helpers/content-signal.js';
import { tempDir } from '../helpers/tmp.js';
import { generateWarc, parseTruth } from '../../scripts/gen-warc.js';

const ROUND_DOCS = 20;

/** Output lines by URL (only URLs that occur once among the documents, so a line names its document). */
function linesByUrl(outDir: string, once: Set<string>): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const l of fs.readFileSync(join(outDir, 'content-duplicates.tsv'), 'utf8').split('\n')) {
    const f = l.split('\t');
    if (f.length === 4 && once.has(f[0]!)) m.set(f[0]!, f);
  }
  return m;
}

describe('drum content killed mid-run', () => {
  it('keeps its last committed round, and a re-run answers as an uninterrupted run does', async () => {
    const dir = tempDir('drum-content-kill-');
    const warc = join(dir, 'g.warc.gz');
    generateWarc({ docs: 600, seed: 3, out: warc });
    const truth = parseTruth(fs.readFileSync(`${warc}.truth.tsv`, 'utf8'));
    const count = new Map<string, number>();
    for (const t of truth) count.set(t.url, (count.get(t.url) ?? 0) + 1);
    const once = new Set(truth.filter((t) => count.get(t.url) === 1).map((t) => t.url));

    const whole = await drum(['content', '--quiet', '--round-docs', String(ROUND_DOCS), '--state', join(dir, 'u'), '--out', join(dir, 'uo'), warc]);
    assert.equal(whole.status, 0, whole.stderr);
    const want = linesByUrl(join(dir, 'uo'), once);

    const state = join(dir, 'k');
    const m = (await signalAfterDocs(['content', '--quiet', '--round-docs', String(ROUND_DOCS), '--state', state, '--out', join(dir, 'ko'), warc], state, 3 * ROUND_DOCS, 'SIGKILL')).docs;
    assert.ok(m >= 3 * ROUND_DOCS && m < truth.length && m % ROUND_DOCS === 0, `killed after ${m} documents`);
    const v = await drum(['content', '--verify', '--state', state]);
    assert.equal(v.status, 0, v.stdout + v.stderr);

    const again = await drum(['content', '--quiet', '--round-docs', String(ROUND_DOCS), '--state', state, '--out', join(dir, 'ro'), warc]);
    assert.equal(again.status, 0, again.stderr);
    const got = linesByUrl(join(dir, 'ro'), once);
    truth.forEach((t, i) => {
      if (!once.has(t.url)) return;
      if (i < m) {
        const w = want.get(t.url);
        assert.deepEqual(got.get(t.url), [t.url, 'exact', w !== undefined && w[1] === 'exact' ? w[2] : t.url, '0'], `document ${i}`);
      } else assert.deepEqual(got.get(t.url), want.get(t.url), `document ${i}`);
    });
    assert.equal((await drum(['content', '--verify', '--quiet', '--state', state])).status, 0);
  });
});
