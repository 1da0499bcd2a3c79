// The real WARC/0.17 file Heritrix 1.14 wrote (shared data set): every record
// read, the metadata outlinks equal outlinks.tsv row for row, and HTML
// extraction finds links for the same pages. Skipped when the file is absent.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { readWarcChunks } from '../../../src/input/warc/index.js';
import { NAV, collect, pieces } from './helpers.js';

const dir = path.resolve(process.cwd(), '../shared/datasets/heritrix-archive-org-2008');
const warcPath = path.join(dir, 'example.warc.gz');
const tsvPath = path.join(dir, 'outlinks.tsv');
const absent = !existsSync(warcPath) || !existsSync(tsvPath);

describe('the Heritrix 1.14 example.warc.gz (WARC/0.17)', { skip: absent }, () => {
  const load = () => gunzipSync(readFileSync(warcPath));

  it('yields exactly the outlinks of outlinks.tsv, in order, from the metadata records', async () => {
    const stats = { records: 0, peakRetained: 0 };
    const c = await collect(pieces(load(), [65536]), { ...NAV, links: 'all', warcLinks: 'metadata' }, undefined, stats);
    const rows = readFileSync(tsvPath, 'utf8').trimEnd().split('\n').slice(1).map((l) => l.split('\t'));
    assert.equal(stats.records, 822);
    assert.equal(c.links.length, rows.length);
    assert.deepEqual(c.links.map((l) => [l[1], l[0]]), rows.map((r) => [r[0], r[1]]));
    assert.deepEqual(c.rejects, []);
  });

  it('extracts HTML links with page bases and no malformed records, streamed through zlib', async () => {
    const gz = Readable.from([readFileSync(warcPath)]).pipe(createGunzip());
    const c = await collect(gz, NAV);
    assert.ok(c.links.length > 35000, `only ${c.links.length} links`);
    assert.ok(c.links.some(([u, b]) => u === '/details/movies' && b === 'http://www.archive.org/index.php'));
    assert.equal(c.rejects.filter((r) => r.reason === 'malformed-record').length, 0);
    assert.ok(c.rejects.some((r) => r.reason === 'fragment-only'));
    assert.equal(c.chunks.at(-1)!.endLine, 822);
    assert.equal(c.chunks.at(-1)!.endOffset, load().length);
  });

  it('finds through the public entry point the same a/@href link count as through the test reader', async () => {
    let n = 0;
    for await (const ch of readWarcChunks(pieces(load()), 0, { ...NAV, links: 'all' })) n += ch.count;
    const c = await collect(pieces(load()), { ...NAV, links: 'all' });
    assert.equal(n, c.links.length);
  });
});
