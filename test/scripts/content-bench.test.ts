// Smoke test of scripts/content-bench.ts on 200 generated documents: drum
// content and the RAM MinHash-LSH peer both run as child processes, read
// every document and agree on the exact duplicates. No timing assertions;
// the measured table lives in docs/content.md.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { benchOne } from '../../scripts/content-bench.js';
import { tempDir } from '../helpers/tmp.js';

describe('content bench', () => {
  it('runs drum content and the RAM peer on the same file, and they agree on exact duplicates', () => {
    const rows = benchOne(200, tempDir('drum-content-bench-'), 2);
    assert.equal(rows.length, 2);
    assert.deepEqual(rows.map((r) => r.documents), [200, 200]);
    assert.equal(rows[0]!.exact, rows[1]!.exact);
    assert.ok(rows.every((r) => r.peakRssMiB > 0 && r.docsPerSecond > 0));
  });
});
