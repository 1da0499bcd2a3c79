// The content-dedup generator: deterministic from its seed, and its truth
// file describes what it wrote (exact copies share the original's bytes under
// a URL variant of the same host; near copies and unique pages do not).

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { generateWarc, parseTruth, planDocs } from '../../scripts/gen-warc.js';

describe('gen-warc', () => {
  let dir = '';
  before(() => (dir = mkdtempSync(join(tmpdir(), 'drum-gen-warc-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the same bytes for the same seed and other bytes for another', () => {
    generateWarc({ docs: 200, seed: 5, out: join(dir, 'a.warc') });
    generateWarc({ docs: 200, seed: 5, out: join(dir, 'b.warc') });
    generateWarc({ docs: 200, seed: 6, out: join(dir, 'c.warc') });
    assert.ok(readFileSync(join(dir, 'a.warc')).equals(readFileSync(join(dir, 'b.warc'))));
    assert.ok(!readFileSync(join(dir, 'a.warc')).equals(readFileSync(join(dir, 'c.warc'))));
    assert.equal(parseTruth(readFileSync(join(dir, 'a.warc.truth.tsv'), 'utf8')).length, 200);
  });

  it('gives exact copies the original bytes under a variant URL of the same host', () => {
    const docs = planDocs({ docs: 1000, seed: 2, out: '' });
    const originals = new Map(docs.filter((d) => d.row.role === 'original').map((d) => [d.row.group, d]));
    let exact = 0;
    let near = 0;
    for (const d of docs) {
      const o = originals.get(d.row.group);
      if (d.row.role === 'exact' && o) {
        exact++;
        assert.equal(d.html, o.html);
        assert.equal(new URL(d.row.url).host, new URL(o.row.url).host);
        assert.notEqual(d.row.url, o.row.url);
      } else if (d.row.role === 'near' && o) {
        near++;
        assert.notEqual(d.html, o.html);
      }
    }
    assert.ok(exact > 50 && near > 50, `${exact} exact, ${near} near`);
    assert.deepEqual(new Set(docs.filter((d) => d.row.role === 'exact').map((d) => d.row.detail)), new Set(['ref', 'sessionid', 'index.html', 'trailing-slash']));
  });
});
