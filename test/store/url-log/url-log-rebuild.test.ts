// Tests of the URL index rebuild (drum repair --url-index's core): the index
// it writes from the segments equals the one the writer wrote, for any
// commits (property); a damaged segment is refused naming that segment, and
// no half-written index is left beside the old one.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import fc from 'fast-check';
import { DrumFs } from '../../../src/io/fs.js';
import { isDrumError } from '../../../src/errors.js';
import { emptyUrlLog, indexPath, segmentPath } from '../../../src/store/url-log/url-log-format.js';
import { rebuildUrlIndex } from '../../../src/store/url-log/url-log-rebuild.js';
import { verifyUrlLog } from '../../../src/store/url-log/url-log-verify.js';
import { UrlLogWriter } from '../../../src/store/url-log/url-log-writer.js';
import { flipByte } from '../../helpers/damage.js';
import { tempDir } from '../../helpers/tmp.js';
import { appendUrls, readAll } from '../../helpers/url-log.js';

const url = fc.stringMatching(/^http:\/\/[a-z]{1,3}\.example\/[a-z0-9]{0,40}$/);

describe('rebuildUrlIndex', async () => {
  it('writes from the segments the very index the writer wrote, over any commits (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(url, { maxLength: 40 }), { minLength: 1, maxLength: 6 }), async (commits) => {
        const dir = tempDir();
        const w = new UrlLogWriter(new DrumFs(), dir, { fsync: false, segmentBytes: 400, blockTextBytes: 64 });
        let p = emptyUrlLog(0);
        for (const urls of commits) {
          w.begin(p);
          appendUrls(w, urls, false);
          p = (await w.sync());
        }
        w.close();
        const written = p.segments === 0 ? null : fs.readFileSync(indexPath(dir));
        const r = rebuildUrlIndex(new DrumFs(), dir, p, false);
        assert.deepEqual(r.point, p);
        if (written !== null) assert.deepEqual(fs.readFileSync(indexPath(dir)).subarray(0, p.indexBytes), written.subarray(0, p.indexBytes));
        assert.deepEqual(verifyUrlLog(new DrumFs(), dir, r.point, 0).problems, []);
        assert.deepEqual(readAll(dir, r.point), commits.flat());
      }),
      { numRuns: 40 },
    );
  });

  it('refuses a damaged segment with DRUM_CORRUPT_FILE naming it, and leaves the old index and no tmp file', async () => {
    const dir = tempDir();
    const w = new UrlLogWriter(new DrumFs(), dir, { fsync: false, segmentBytes: 400, blockTextBytes: 64 });
    w.begin(emptyUrlLog(0));
    appendUrls(w, Array.from({ length: 50 }, (_, i) => `http://h.example/${i}`), false);
    const p = (await w.sync());
    w.close();
    const before = fs.readFileSync(indexPath(dir));
    const seg = segmentPath(dir, 1);
    flipByte(seg, 30, 0xff);
    assert.throws(() => rebuildUrlIndex(new DrumFs(), dir, p, false), (e: unknown) => isDrumError(e) && e.code === 'DRUM_CORRUPT_FILE' && e.file === seg);
    assert.deepEqual(fs.readFileSync(indexPath(dir)), before);
    assert.equal(fs.existsSync(`${indexPath(dir)}.tmp`), false);
  });
});
