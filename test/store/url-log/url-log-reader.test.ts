import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { DrumFs } from '../../../src/io/fs.js';
import { isDrumError } from '../../../src/errors.js';
import { emptyUrlLog, segmentPath, URL_BLOCK_HEADER_BYTES, URL_SEGMENT_HEADER_BYTES } from '../../../src/store/url-log/url-log-format.js';
import { UrlLogReader } from '../../../src/store/url-log/url-log-reader.js';
import { UrlLogWriter } from '../../../src/store/url-log/url-log-writer.js';
import { tempDir } from '../../helpers/tmp.js';
import { appendUrls } from '../../helpers/url-log.js';

async function logOf(urls: string[], opts = { fsync: false, segmentBytes: 1 << 20, blockTextBytes: 64 }) {
  const dir = tempDir();
  const w = new UrlLogWriter(new DrumFs(), dir, opts);
  w.begin(emptyUrlLog(0));
  appendUrls(w, urls, false);
  const p = (await w.sync());
  w.close();
  return { dir, p };
}

const URLS = Array.from({ length: 500 }, (_, i) => `http://h${i % 7}.example/page/${i}`);

describe('UrlLogReader', async () => {
  it('answers docIDs in any order, and null for one outside the log or not an integer', async () => {
    const { dir, p } = await logOf(URLS);
    const r = new UrlLogReader(new DrumFs(), dir, p);
    for (const d of [499, 0, 250, 251, 3, 498, 1, 120]) assert.equal(r.url(d), URLS[d]);
    for (const d of [-1, 500, 1e12, 2.5, NaN]) assert.equal(r.url(d), null);
    r.close();
  });

  it('reads each block once for ascending docIDs', async () => {
    const { dir, p } = await logOf(URLS);
    const dfs = new DrumFs();
    const r = new UrlLogReader(dfs, dir, p);
    for (let d = 0; d < URLS.length; d++) assert.equal(r.url(d), URLS[d]);
    r.close();
    const logBytes = fs.statSync(segmentPath(dir, 0)).size;
    // Each block once (a read may run past its block's end by at most one block's worth), plus the index pages.
    assert.ok(dfs.counters.bytesRead < 3 * logBytes, `${dfs.counters.bytesRead} bytes read for a ${logBytes}-byte log`);
  });

  it('refuses a block whose bytes changed with DRUM_CORRUPT_FILE', async () => {
    const { dir, p } = await logOf(URLS);
    const f = segmentPath(dir, 0);
    const b = fs.readFileSync(f);
    b[URL_SEGMENT_HEADER_BYTES + URL_BLOCK_HEADER_BYTES + 3] ^= 0x20;
    fs.writeFileSync(f, b);
    const r = new UrlLogReader(new DrumFs(), dir, p);
    assert.throws(() => r.url(0), (e) => isDrumError(e, 'DRUM_CORRUPT_FILE'));
    r.close();
  });

  it('says a segment the manifest names but the disk lacks is DRUM_CORRUPT_FILE', async () => {
    const { dir, p } = await logOf(URLS);
    fs.rmSync(segmentPath(dir, 0));
    const r = new UrlLogReader(new DrumFs(), dir, p);
    assert.throws(() => r.url(7), (e) => isDrumError(e, 'DRUM_CORRUPT_FILE'));
    r.close();
  });
});
