// The bench's batch runner (scripts/small-batches.ts) on a small file: the
// input is cut into batches of exactly `batch` lines (the last one shorter,
// a line never split across two batches, however the file's reads fall), and
// the batches one after another find the same new URLs as one ingest of them
// all (--whole). No timing is asserted.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cutBatches, smallBatches } from '../../scripts/small-batches.js';
import { tempDir } from '../helpers/tmp.js';

describe('small-batches', () => {
  it('finds in batches, one after another, the new URLs one ingest of them all finds', async () => {
    const dir = tempDir();
    const input = join(dir, 'links.txt');
    const lines = Array.from({ length: 2500 }, (_, i) => `http://h${i % 17}.example/p/${i % 1900}`);
    writeFileSync(input, `${lines.join('\n')}\n`);
    const batches = await smallBatches(join(dir, 'a'), input, 1000, 5);
    const whole = await smallBatches(join(dir, 'b'), input, 1000, 5, {}, true);
    assert.equal(batches.batches, 3, 'three batches: 1,000 + 1,000 + 500 lines');
    assert.equal(batches.runsMs.length, 3);
    assert.equal(whole.runsMs.length, 1);
    assert.equal(batches.newUrls.reduce((a, b) => a + b, 0), new Set(lines).size);
    assert.deepEqual(whole.newUrls, [new Set(lines).size]);
    // The first batch holds lines 0..999: its new URLs are the distinct ones among them.
    assert.equal(batches.newUrls[0], new Set(lines.slice(0, 1000)).size);
  });

  it('cuts whole lines however the reads fall: every batch but the last holds exactly `batch` lines', () => {
    const dir = tempDir();
    const input = join(dir, 'links.txt');
    const lines = Array.from({ length: 103 }, (_, i) => `http://h.example/${'x'.repeat(i % 23)}${i}`);
    writeFileSync(input, `${lines.join('\n')}\n`);
    for (const readBytes of [1, 7, 64, 4096]) {
      const files = cutBatches(input, dir, 10, 20, readBytes);
      assert.equal(files.length, 11, `reads of ${readBytes}`);
      const got = files.map((f) => readFileSync(f, 'utf8').split('\n').slice(0, -1));
      assert.deepEqual(got.map((g) => g.length), [...Array(10).fill(10), 3]);
      assert.deepEqual(got.flat(), lines);
    }
    assert.equal(cutBatches(input, dir, 10, 4, 7).length, 4, 'stops after `batches`');
  });
});
