// The WARC record layer: WARC/1.0 and 1.1 records plain and gzipped record by
// record, truncated and malformed input, chunk offsets at record boundaries,
// random split points, and a huge non-HTML record streamed in bounded memory.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { NAV, collect, htmlRecord, pieces, urls, warcRecord } from './helpers.js';

const pages = [
  htmlRecord('http://a.example/', '<a href="/one">1</a><a href="http://b.example/two">2</a>'),
  warcRecord('1.0', { 'WARC-Type': 'request', 'WARC-Target-URI': 'http://a.example/' }, 'GET / HTTP/1.1\r\n\r\n'),
  htmlRecord('http://c.example/x/', '<html><base href="http://d.example/">\n<a href=three>3</a><img src=i.png></html>', undefined, '1.1'),
  htmlRecord('<http://e.example/>', '<a href="four">4</a>'),
];
const file = Buffer.concat(pages);
const expected: [string, string, number][] = [
  ['/one', 'http://a.example/', 1],
  ['http://b.example/two', 'http://a.example/', 1],
  ['three', 'http://d.example/', 3],
  ['four', 'http://e.example/', 4],
];

describe('WARC record reader', () => {
  it('reads WARC/1.0 and 1.1 records and strips angle brackets from the target URI', async () => {
    const c = await collect(pieces(file));
    assert.deepEqual(c.links, expected);
    assert.deepEqual(c.rejects, []);
  });

  it('reads a file gzipped record by record once zlib has undone the members', async () => {
    const gz = Buffer.concat(pages.map((p) => gzipSync(p)));
    const c = await collect(pieces(gunzipSync(gz)));
    assert.deepEqual(c.links, expected);
  });

  it('ends chunks at record boundaries with the offset and number of the last record', async () => {
    const c = await collect(pieces(file), { ...NAV, chunkBytes: 1 });
    assert.equal(c.chunks.length, 4);
    let end = 0;
    c.chunks.forEach((ch, i) => {
      end += pages[i]!.length;
      assert.equal(ch.endOffset, end);
      assert.equal(ch.endLine, i + 1);
      assert.equal(ch.input, 7);
    });
  });

  it('rejects a truncated last record as malformed-record and still yields the earlier links', async () => {
    const cut = file.subarray(0, file.length - 30);
    const c = await collect(pieces(cut));
    assert.deepEqual(c.links, expected.slice(0, 3));
    assert.deepEqual(c.rejects.map((r) => [r.reason, r.line]), [['malformed-record', 4]]);
    assert.ok(c.rejects[0]!.excerpt.toString('latin1').startsWith('WARC/1.0'));
    assert.equal(c.chunks.at(-1)!.endOffset, cut.length);
  });

  it('rejects a file cut inside a header as malformed-record', async () => {
    const cut = file.subarray(0, pages[0]!.length + 20);
    const c = await collect(pieces(cut));
    assert.deepEqual(urls(c), ['/one', 'http://b.example/two']);
    assert.deepEqual(c.rejects.map((r) => [r.reason, r.line]), [['malformed-record', 2]]);
  });

  it('resyncs after garbage or a wrong Content-Length and reads the following records', async () => {
    const garbage = Buffer.from('this is not a warc header\r\n\r\n');
    const wrong = Buffer.from(pages[0]!.toString('latin1').replace(/Content-Length: \d+/, 'Content-Length: 20'), 'latin1');
    const c = await collect(pieces(Buffer.concat([garbage, pages[3]!, wrong, pages[2]!])));
    assert.deepEqual(urls(c), ['four', 'three']);
    assert.deepEqual(c.rejects.map((r) => [r.reason, r.line]), [['malformed-record', 1], ['malformed-record', 3]]);
  });

  it('rejects a header without a Content-Length as malformed-record', async () => {
    const noLen = Buffer.from('WARC/1.0\r\nWARC-Type: response\r\n\r\nbody\r\n\r\n');
    const c = await collect(pieces(Buffer.concat([noLen, pages[0]!])));
    assert.deepEqual(urls(c), ['/one', 'http://b.example/two']);
    assert.deepEqual(c.rejects.map((r) => r.reason), ['malformed-record']);
  });

  it('yields the same links and rejects however the input is split into pieces', async () => {
    const bad = Buffer.concat([pages[0]!, Buffer.from('junk\r\n'), pages[2]!, pages[3]!.subarray(0, 200)]);
    const whole = await collect(pieces(bad));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 1, max: bad.length - 1 }), { maxLength: 40 }), async (cuts) => {
        const c = await collect(pieces(bad, cuts));
        assert.deepEqual(c.links, whole.links);
        assert.deepEqual(c.rejects, whole.rejects);
      }),
      { seed: 4242, numRuns: 150 },
    );
    assert.equal(whole.links.length, 3);
    assert.equal(whole.rejects.length, 2);
  });

  it('reads a record split into pieces of a few bytes each', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 13 }), async (size) => {
        const cuts: number[] = [];
        for (let i = size; i < file.length; i += size) cuts.push(i);
        const c = await collect(pieces(file, cuts));
        assert.deepEqual(c.links, expected);
      }),
      { seed: 4242, numRuns: 13 },
    );
  });

  it('streams past a huge non-HTML record without holding it', async () => {
    const size = 64 * 1024 * 1024;
    const head = Buffer.from(
      `WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://big.example/video\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: ${size}\r\n\r\n`,
    );
    const http = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: video/mp4\r\n\r\n');
    const zeros = Buffer.alloc(1 << 20);
    async function* src(): AsyncGenerator<Buffer> {
      yield pages[0]!;
      yield Buffer.concat([head, http]);
      let left = size - http.length;
      while (left > 0) {
        const n = Math.min(left, zeros.length);
        yield zeros.subarray(0, n);
        left -= n;
      }
      yield Buffer.from('\r\n\r\n');
      yield pages[3]!;
    }
    const stats = { records: 0, peakRetained: 0 };
    const c = await collect(src(), NAV, { maxRecordBytes: 1 << 20, headBytes: 4096 }, stats);
    assert.deepEqual(urls(c), ['/one', 'http://b.example/two', 'four']);
    assert.deepEqual(c.rejects, []);
    assert.equal(stats.records, 3);
    assert.ok(stats.peakRetained <= 1 << 20, `held ${stats.peakRetained} bytes`);
  });

  it('rejects an HTML record over the size cap as too-long without holding it', async () => {
    const big = htmlRecord('http://big.example/', `<a href="/in-big">x</a>${' '.repeat(10000)}`);
    const stats = { records: 0, peakRetained: 0 };
    const c = await collect(pieces(Buffer.concat([big, pages[3]!]), [100, 5000]), NAV, { maxRecordBytes: 4096, headBytes: 512 }, stats);
    assert.deepEqual(urls(c), ['four']);
    assert.deepEqual(c.rejects.map((r) => [r.reason, r.line]), [['too-long', 1]]);
    assert.ok(stats.peakRetained <= 4096);
  });
});
