import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { DrumFs } from '../../../src/io/fs.js';
import { emptyUrlLog, indexPath, segmentPath } from '../../../src/store/url-log/url-log-format.js';
import { UrlLogReader } from '../../../src/store/url-log/url-log-reader.js';
import { verifyUrlLog } from '../../../src/store/url-log/url-log-verify.js';
import { UrlLogWriter } from '../../../src/store/url-log/url-log-writer.js';
import { WRITE_BEHIND_BYTES } from '../../../src/io/write-behind.js';
import { isDrumError } from '../../../src/errors.js';
import { tempDir } from '../../helpers/tmp.js';
import { appendUrls, readAll } from '../../helpers/url-log.js';

const SMALL = { fsync: false, segmentBytes: 300, blockTextBytes: 64 };
const url = fc.stringMatching(/^http:\/\/[a-z]{1,3}\.example\/[a-z0-9]{0,40}$/);

describe('UrlLogWriter', async () => {
  it('gives each URL the next docID, across blocks, segments and commits, one by one or in blocks of lines', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ urls: fc.array(url, { maxLength: 30 }), lines: fc.boolean(), commit: fc.boolean() }), { maxLength: 12 }), async (rounds) => {
        const dir = tempDir();
        const w = new UrlLogWriter(new DrumFs(), dir, SMALL);
        let committed = emptyUrlLog(0);
        const model: string[] = [];
        for (const r of rounds) {
          w.begin(committed);
          assert.equal(w.nextDoc, model.length);
          appendUrls(w, r.urls, r.lines);
          const p = (await w.sync());
          // A round that does not commit (its manifest never written) is cut off by the next begin().
          if (r.commit) {
            committed = p;
            model.push(...r.urls);
          }
          assert.deepEqual(readAll(dir, committed), model);
        }
        w.close();
        assert.equal(committed.docs, model.length);
        assert.deepEqual(verifyUrlLog(new DrumFs(), dir, committed, model.length).problems, []);
      }),
      { numRuns: 60 },
    );
  });

  it('keeps every index entry when one commit seals more blocks than the index buffer holds', async () => {
    const dir = tempDir();
    // One URL a block: 10,000 blocks in one commit, more than twice the 4,096 entries buffered before a write.
    const w = new UrlLogWriter(new DrumFs(), dir, { fsync: false, segmentBytes: 1 << 20, blockTextBytes: 8 });
    const urls = Array.from({ length: 10_000 }, (_, i) => `http://h${i % 97}.example/${i}`);
    w.begin(emptyUrlLog(0));
    appendUrls(w, urls, false);
    const p = (await w.sync());
    w.close();
    assert.deepEqual(verifyUrlLog(new DrumFs(), dir, p, urls.length).problems, []);
    assert.deepEqual(readAll(dir, p), urls);
  });

  it('cuts the files back to the committed point before it appends again, and deletes later segments', async () => {
    const dir = tempDir();
    const w = new UrlLogWriter(new DrumFs(), dir, SMALL);
    w.begin(emptyUrlLog(0));
    appendUrls(w, ['http://a.example/1', 'http://a.example/2'], false);
    const p1 = (await w.sync());
    w.close();
    const lenSeg = fs.statSync(segmentPath(dir, 0)).size;
    const lenIdx = fs.statSync(indexPath(dir)).size;
    // A commit that wrote its blocks but never reached its manifest, by another process.
    const lost = new UrlLogWriter(new DrumFs(), dir, SMALL);
    lost.begin(p1);
    appendUrls(lost, Array.from({ length: 40 }, (_, i) => `http://b.example/${i}`), true);
    const p2 = (await lost.sync());
    lost.close();
    assert.ok(p2.segments > 1 && fs.existsSync(segmentPath(dir, 1)));
    const again = new UrlLogWriter(new DrumFs(), dir, SMALL);
    again.begin(p1);
    assert.equal(fs.statSync(segmentPath(dir, 0)).size, lenSeg);
    assert.equal(fs.statSync(indexPath(dir)).size, lenIdx);
    assert.equal(fs.existsSync(segmentPath(dir, 1)), false);
    appendUrls(again, ['http://c.example/3'], false);
    const p3 = (await again.sync());
    again.close();
    assert.deepEqual(readAll(dir, p3), ['http://a.example/1', 'http://a.example/2', 'http://c.example/3']);
    assert.deepEqual(verifyUrlLog(new DrumFs(), dir, p3, 3).problems, []);
  });

  it('starts the docIDs of a log at its base', async () => {
    const dir = tempDir();
    const w = new UrlLogWriter(new DrumFs(), dir, SMALL);
    w.begin(emptyUrlLog(1000));
    assert.equal(w.nextDoc, 1000);
    appendUrls(w, ['http://a.example/x', 'http://a.example/y'], true);
    const p = (await w.sync());
    w.close();
    assert.deepEqual(p, { ...p, base: 1000, docs: 2 });
    const r = new UrlLogReader(new DrumFs(), dir, p);
    assert.equal(r.url(999), null);
    assert.equal(r.url(1001), 'http://a.example/y');
    r.close();
  });

  it('fails the commit\'s sync when a write-behind fsync of a segment failed, though the last fsync succeeds', async () => {
    let failed = false;
    const dfs = new DrumFs(undefined, (op, path) => {
      if (op !== 'fsync' || failed || !path.includes('u000000')) return;
      failed = true;
      throw Object.assign(new Error('injected'), { code: 'EIO' });
    });
    const w = new UrlLogWriter(dfs, tempDir(), { fsync: true });
    w.begin(emptyUrlLog(0));
    const url = 'http://a.example/a/path/of/some/length/to/fill/the/log';
    appendUrls(w, Array.from({ length: Math.ceil((2 * WRITE_BEHIND_BYTES) / url.length) }, () => url), true);
    await assert.rejects(w.sync(), (e) => isDrumError(e, 'DRUM_IO'));
    assert.ok(failed);
    w.close();
  });

  it('writes nothing to disk for a commit without new URLs', async () => {
    const dir = tempDir();
    const w = new UrlLogWriter(new DrumFs(), dir, SMALL);
    w.begin(emptyUrlLog(0));
    assert.deepEqual((await w.sync()), emptyUrlLog(0));
    w.close();
    assert.equal(fs.existsSync(join(dir, 'urls')), false);
  });
});
