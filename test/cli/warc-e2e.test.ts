// End-to-end: `drum ingest` reads WARC files directly — the bundled Heritrix
// WARC/0.17 (record-by-record gzip), small WARC/1.0 files plain and gzipped,
// and a truncated file, whose good records still come through.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { EXIT_STATUS } from '../../src/errors.js';
import type { RunReport } from '../../src/stats/report.js';
import { drum, uniques } from '../helpers/cli.js';
import { sharedData, tempDir } from '../helpers/tmp.js';

function record(type: string, uri: string, block: string, version = '1.0'): Buffer {
  const body = Buffer.from(block, 'latin1');
  const head = [
    `WARC/${version}`, `WARC-Type: ${type}`, `WARC-Target-URI: ${uri}`, 'WARC-Date: 2024-01-01T00:00:00Z',
    'WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-000000000000>',
    'Content-Type: application/http; msgtype=response', `Content-Length: ${body.length}`, '', '',
  ].join('\r\n');
  return Buffer.concat([Buffer.from(head, 'latin1'), body, Buffer.from('\r\n\r\n')]);
}

function page(uri: string, html: string): Buffer {
  return record('response', uri, `HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(html)}\r\n\r\n${html}`);
}

const RECORDS = [
  page('http://example.org/a/index.html', '<html><a href="b.html">b</a> <a href="/c?x=1&amp;y=2">c</a> <a href="mailto:x@example.org">m</a> <a href="#top">t</a></html>'),
  page('http://example.org/d/', '<html><base href="http://other.example/base/"><a href="e.html">e</a><a href="http://example.org/a/b.html">again</a></html>'),
];
const EXPECTED = ['http://example.org/a/b.html', 'http://example.org/c?x=1&y=2', 'http://other.example/base/e.html'];

async function ingest(file: string, extra: string[] = []): Promise<{ status: number | null; report: RunReport; out: string; stderr: string }> {
  const dir = tempDir();
  const out = join(dir, 'out');
  const r = await drum(['ingest', '--state', join(dir, 'state'), '--out', out, '--json', ...extra, file]);
  return { status: r.status, report: JSON.parse(r.stdout) as RunReport, out, stderr: r.stderr };
}

describe('drum ingest on WARC files', () => {
  it('extracts, resolves and dedupes links from WARC/1.0 response records, plain and gzipped', async () => {
    const dir = tempDir();
    const plain = join(dir, 'crawl.warc');
    fs.writeFileSync(plain, Buffer.concat(RECORDS));
    const gz = join(dir, 'crawl.warc.gz');
    fs.writeFileSync(gz, Buffer.concat(RECORDS.map((r) => gzipSync(r))));
    for (const file of [plain, gz]) {
      const r = await ingest(file);
      assert.equal(r.status, 0, r.stderr);
      assert.deepEqual(uniques(r.out), EXPECTED);
      assert.equal(r.report.rejectsByReason['unsupported-scheme'], 1);
      assert.equal(r.report.rejectsByReason['fragment-only'], 1);
      assert.equal(r.report.linksRead, r.report.uniqueUrls + r.report.duplicateUrls + r.report.rejectedLines);
    }
  });

  it('keeps the links of every whole record of a truncated WARC and reports the damage', async () => {
    const dir = tempDir();
    const file = join(dir, 'cut.warc');
    const whole = Buffer.concat(RECORDS);
    fs.writeFileSync(file, whole.subarray(0, RECORDS[0]!.length + 40));
    const r = await ingest(file);
    assert.deepEqual(uniques(r.out), EXPECTED.slice(0, 2));
    assert.ok((r.report.rejectsByReason['malformed-record'] ?? 0) >= 1, JSON.stringify(r.report.rejectsByReason));
    assert.ok(r.status === 0 || r.status === EXIT_STATUS.DRUM_INPUT);
  });

  const warc = sharedData('heritrix-archive-org-2008/example.warc.gz');
  it('reads the bundled Heritrix WARC/0.17 file, from HTML and from its metadata records', { skip: warc === null }, async () => {
    const html = await ingest(warc!);
    assert.equal(html.status, 0, html.stderr);
    assert.ok(html.report.uniqueUrls > 10_000, `only ${html.report.uniqueUrls} URLs from HTML`);
    const meta = await ingest(warc!, ['--warc-links', 'metadata', '--links', 'all']);
    assert.equal(meta.status, 0, meta.stderr);
    // Heritrix's own outlinks: 38,277 rows, 16,747 distinct strings, all already absolute.
    assert.equal(meta.report.linksRead, 38_277);
    assert.ok(meta.report.uniqueUrls >= 16_000 && meta.report.uniqueUrls <= 16_747, String(meta.report.uniqueUrls));
  });
});
