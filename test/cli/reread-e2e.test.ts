// End-to-end "already ingested?" of bin/drum across read options: an input
// read one way (a wrong --format, a too small --max-line-bytes) is read again
// by a run that reads it another way, so the URLs the first reading missed
// are emitted; the same reading is still skipped.
// Does not test the identity by content (test/engine/jobs/ingest/).
// REQUIRES: a build (DRUM_DIST_DIR, test/helpers/cli.ts).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { drum, uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const FAST = ['--no-fsync', '--no-progress', '--workers', '0'];

/** Runs `drum ingest --json` with `opts` on `file` into `state`, writing to `out`; returns status and report. */
async function ingest(state: string, out: string, file: string, opts: string[]): Promise<{ status: number | null; uniqueUrls?: number; skipped?: boolean }> {
  const r = await drum(['ingest', ...FAST, '--json', '--state', state, '--out', out, ...opts, file]);
  if (r.status !== 0) return { status: r.status };
  const report = JSON.parse(r.stdout) as { uniqueUrls: number; inputs: { skipped: boolean }[] };
  return { status: r.status, uniqueUrls: report.uniqueUrls, skipped: report.inputs[0]!.skipped };
}

describe('drum ingest of an input read before with other read options', () => {
  it('reads a TSV file again with --format tsv after a --format lines run rejected every line', async () => {
    const dir = tempDir();
    const file = join(dir, 'cols.txt');
    fs.writeFileSync(file, 'id\tlink\n1\thttp://a.example/x\n2\thttp://a.example/y\n');
    const state = join(dir, 's');
    const first = await ingest(state, join(dir, 'o1'), file, ['--format', 'lines']);
    assert.equal(first.status, 0);
    assert.equal(first.uniqueUrls, 0);
    const second = await ingest(state, join(dir, 'o2'), file, ['--format', 'tsv']);
    assert.equal(second.status, 0);
    assert.equal(second.skipped, false);
    assert.deepEqual(uniques(join(dir, 'o2')), ['http://a.example/x', 'http://a.example/y']);
    const third = await ingest(state, join(dir, 'o3'), file, ['--format', 'tsv']);
    assert.equal(third.status, 0);
    assert.equal(third.skipped, true);
  });

  it('reads a file again with a larger --max-line-bytes, emitting the lines that were too long', async () => {
    const dir = tempDir();
    const file = join(dir, 'long.txt');
    const long = `http://a.example/${'a'.repeat(3000)}`;
    fs.writeFileSync(file, `http://a.example/short\n${long}\n`);
    const state = join(dir, 's');
    const first = await ingest(state, join(dir, 'o1'), file, []);
    assert.equal(first.status, 0);
    assert.equal(first.uniqueUrls, 1);
    const second = await ingest(state, join(dir, 'o2'), file, ['--max-line-bytes', '65536']);
    assert.equal(second.status, 0);
    assert.equal(second.skipped, false);
    assert.deepEqual(uniques(join(dir, 'o2')), [long]);
  });
});
