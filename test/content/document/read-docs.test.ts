// Documents of a WARC: response records with an HTML or text payload, in
// record order, with chunked and gzip payloads undone for the exact key, the
// declared payload digest checked against drum's own SHA-1 (wrong and
// absent ones counted), and everything else counted as skipped.

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { newDocCounts, readDocs } from '../../../src/content/document/read-docs.js';
import { base32, sha1 } from '../../../src/content/document/digest.js';
import { generateWarc, parseTruth } from '../../../scripts/gen-warc.js';

function rec(type: string, uri: string, block: Buffer, extra = ''): Buffer {
  const h = `WARC/1.0\r\nWARC-Type: ${type}\r\nWARC-Target-URI: ${uri}\r\n${extra}Content-Type: application/http; msgtype=response\r\nContent-Length: ${block.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(h), block, Buffer.from('\r\n\r\n')]);
}
function http(head: string, body: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`HTTP/1.1 ${head}\r\n\r\n`), body]);
}

describe('reading documents from WARC', () => {
  let dir = '';
  before(() => (dir = mkdtempSync(join(tmpdir(), 'drum-content-read-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('reads HTML and text responses, undoes chunked and gzip payloads and checks declared digests', async () => {
    const page = Buffer.from('<html><body><p>hello world again</p></body></html>');
    const gz = gzipSync(page);
    const chunked = Buffer.concat([Buffer.from(`${gz.length.toString(16)}\r\n`), gz, Buffer.from('\r\n0\r\n\r\n')]);
    const ok = `WARC-Payload-Digest: sha1:${base32(sha1(page))}\r\n`;
    const file = join(dir, 'a.warc');
    writeFileSync(file, Buffer.concat([
      rec('response', 'http://a.example/', http('200 OK\r\nContent-Type: text/html', page), ok),
      rec('response', 'http://b.example/', http('200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\nContent-Encoding: gzip', chunked)),
      rec('response', 'http://c.example/', http('200 OK\r\nContent-Type: text/html', page), 'WARC-Payload-Digest: sha1:AAAA\r\n'),
      rec('response', 'http://d.example/x.png', http('200 OK\r\nContent-Type: image/png', Buffer.from('PNG'))),
      rec('response', 'http://e.example/gone', http('404 Not Found\r\nContent-Type: text/html', page)),
      rec('response', 'http://f.example/t.txt', http('200 OK\r\nContent-Type: text/plain', Buffer.from('plain words'))),
      rec('request', 'http://a.example/', Buffer.from('GET / HTTP/1.1\r\n\r\n')),
    ]));
    const counts = newDocCounts();
    const docs = [];
    for await (const d of readDocs(file, counts)) docs.push({ url: d.url, html: d.html, key: d.digest.toString('hex'), declared: d.declared });
    assert.deepEqual(docs.map((d) => [d.url, d.html, d.declared]), [
      ['http://a.example/', true, 'match'], ['http://b.example/', true, 'absent'], ['http://c.example/', true, 'mismatch'], ['http://f.example/t.txt', false, 'absent'],
    ]);
    assert.equal(docs[0]!.key, docs[1]!.key, 'the gzip + chunked copy has the same exact key');
    assert.equal(counts.records, 7);
    assert.deepEqual([counts.docs, counts.digestMatch, counts.digestMismatch, counts.digestAbsent], [4, 1, 1, 2]);
    assert.deepEqual([counts.skipped['not-text'], counts.skipped['not-2xx'], counts.skipped['not-response']], [1, 1, 1]);
  });

  it('reads the generator output: every planned document in order, wrong and absent digests counted', async () => {
    const file = join(dir, 'g.warc.gz');
    const meta = generateWarc({ docs: 300, seed: 3, out: file });
    const truth = parseTruth(readFileSync(`${file}.truth.tsv`, 'utf8'));
    const counts = newDocCounts();
    const urls: string[] = [];
    for await (const d of readDocs(file, counts)) urls.push(d.url);
    assert.deepEqual(urls, truth.map((t) => t.url));
    assert.equal(counts.digestMismatch, meta.wrongDigests);
    assert.equal(counts.digestAbsent, meta.absentDigests);
    assert.equal(counts.records, meta.records);
  });
});
