// scripts/content-store-accuracy.ts: the scoring of drum content's output
// lines against a reference on a hand-made example (clusters through a
// shared original, a URL that occurs twice, a wrong line), and the real
// binary on a small generated WARC: precision >= 0.95 and pair recall >=
// 0.85 with MinHash. The measured table lives in docs/content.md.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { drumContentLines, score } from '../../scripts/content-store-accuracy.js';
import { generateWarc, parseTruth } from '../../scripts/gen-warc.js';
import { readFileSync } from 'node:fs';
import { tempDir } from '../helpers/tmp.js';

describe('content store accuracy', () => {
  it('scores pairs through clusters and lines one by one, placing a repeated URL at its later record', () => {
    const urls = ['a', 'b', 'c', 'a', 'd', 'e'];
    const group = [1, 2, 1, 1, 2, 3];
    const isTrue = (i: number, j: number): boolean => group[i] === group[j];
    const lines = [['c', 'near', 'a', '0.8'], ['a', 'exact', 'a', '0'], ['d', 'near', 'b', '0.6'], ['e', 'near', 'a', '0.5']];
    const s = score(urls, lines, isTrue);
    assert.equal(s.truePairs, 4); // a-c, a-a', c-a', b-d
    assert.equal(s.flaggedPairs, 4 + 3); // {a, c, a', e}: 6 pairs, {b, d}: 1
    assert.equal(s.pairRecall, 1);
    assert.equal(s.pairPrecision, 4 / 7);
    assert.equal(s.linePrecision, 3 / 4);
    assert.equal(s.docRecall, 1);
  });

  it('finds the generator near copies through the store with MinHash', () => {
    const dir = tempDir('drum-store-acc-');
    const warc = join(dir, 'g.warc.gz');
    generateWarc({ docs: 400, seed: 9, out: warc });
    const truth = parseTruth(readFileSync(`${warc}.truth.tsv`, 'utf8'));
    const same = (i: number, j: number): boolean => truth[i]!.group === truth[j]!.group && truth[i]!.role !== 'unique';
    const s = score(truth.map((t) => t.url), drumContentLines(warc, dir, []), same);
    assert.ok(s.pairPrecision >= 0.95 && s.linePrecision >= 0.95, JSON.stringify(s));
    assert.ok(s.pairRecall >= 0.85, JSON.stringify(s));
  });
});
