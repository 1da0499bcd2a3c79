// Smoke test of scripts/content-accuracy.ts on a small generator sample:
// exact copies are always found, precision stays at least 0.95 at every
// SimHash threshold up to 6 (unrelated pages sharing a host's template are
// not flagged), and recall grows with the threshold. The measured tables
// live in docs/content.md.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { JACCARD_LEVELS, sampleOf, simhashLevel, minhashLevel, table } from '../../scripts/content-accuracy.js';
import { generateWarc, parseTruth } from '../../scripts/gen-warc.js';

describe('content accuracy', () => {
  it('finds every exact copy and flags no unrelated page of a shared template', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'drum-acc-test-'));
    try {
      const file = join(dir, 'g.warc');
      generateWarc({ docs: 400, seed: 9, out: file });
      const truth = parseTruth(readFileSync(`${file}.truth.tsv`, 'utf8'));
      const s = await sampleOf(file, 400);
      const same = (i: number, j: number): boolean => truth[i]!.group === truth[j]!.group && truth[i]!.role !== 'unique';
      const kind = (i: number, j: number): string => (truth[i]!.role === 'near' || truth[j]!.role === 'near' ? 'near' : 'exact');
      const t = table(s, [0, 1, 2, 3, 4, 5, 6], simhashLevel(s), same, kind);
      const exact = Object.entries(t.recallByClass).find(([k]) => k.startsWith('exact'))![1];
      assert.ok(exact.every((r) => r === 1));
      for (const r of t.rows) assert.ok(r.precision >= 0.95, `precision ${r.precision} at ${r.threshold}`);
      for (let k = 1; k < t.rows.length; k++) assert.ok(t.rows[k]!.recall >= t.rows[k - 1]!.recall);
      const m = table(s, JACCARD_LEVELS, minhashLevel(s), same);
      assert.ok(m.rows[m.rows.length - 1]!.recall >= t.rows[t.rows.length - 1]!.recall);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
