import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { DrumFs } from '../../../src/io/fs.js';
import { emptyUrlLog, indexPath, segmentPath, URL_INDEX_HEADER_BYTES } from '../../../src/store/url-log/url-log-format.js';
import { verifyUrlLog } from '../../../src/store/url-log/url-log-verify.js';
import { UrlLogWriter } from '../../../src/store/url-log/url-log-writer.js';
import { flipByte } from '../../helpers/damage.js';
import { tempDir } from '../../helpers/tmp.js';
import { appendUrls } from '../../helpers/url-log.js';

const URLS = Array.from({ length: 300 }, (_, i) => `http://h${i % 5}.example/p/${i}`);

async function logOf() {
  const dir = tempDir();
  const w = new UrlLogWriter(new DrumFs(), dir, { fsync: false, segmentBytes: 2000, blockTextBytes: 100 });
  w.begin(emptyUrlLog(0));
  appendUrls(w, URLS.slice(0, 100), true);
  (await w.sync());
  w.begin({ ...(await w.sync()) });
  appendUrls(w, URLS.slice(100), false);
  const p = (await w.sync());
  w.close();
  assert.ok(p.segments > 2);
  return { dir, p };
}

const codes = (r: ReturnType<typeof verifyUrlLog>) => r.problems.map((x) => x.code);

describe('verifyUrlLog', async () => {
  it('finds a sound log sound, past bytes of a commit that never reached its manifest too', async () => {
    const { dir, p } = await logOf();
    const r = verifyUrlLog(new DrumFs(), dir, p, URLS.length);
    assert.deepEqual(r.problems, []);
    assert.equal(r.filesChecked, p.segments + 1);
    fs.appendFileSync(segmentPath(dir, p.segments - 1), 'garbage of an interrupted commit');
    fs.appendFileSync(indexPath(dir), Buffer.alloc(16, 7));
    assert.deepEqual(verifyUrlLog(new DrumFs(), dir, p, URLS.length).problems, []);
  });

  it('reports a changed byte in a sealed segment', async () => {
    const { dir, p } = await logOf();
    const f = segmentPath(dir, 1);
    const b = fs.readFileSync(f);
    b[b.length - 5] ^= 1;
    fs.writeFileSync(f, b);
    assert.deepEqual(codes(verifyUrlLog(new DrumFs(), dir, p, URLS.length)), ['DRUM_CORRUPT_FILE']);
  });

  it('reports a sealed segment cut short, a missing segment, and an index entry that points elsewhere', async () => {
    const a = await logOf();
    fs.truncateSync(segmentPath(a.dir, 0), fs.statSync(segmentPath(a.dir, 0)).size - 3);
    assert.deepEqual(codes(verifyUrlLog(new DrumFs(), a.dir, a.p, URLS.length)), ['DRUM_CORRUPT_FILE']);
    const b = await logOf();
    fs.rmSync(segmentPath(b.dir, 1));
    assert.deepEqual(codes(verifyUrlLog(new DrumFs(), b.dir, b.p, URLS.length)), ['DRUM_CORRUPT_FILE']);
    const c = await logOf();
    const idx = fs.readFileSync(indexPath(c.dir));
    idx[URL_INDEX_HEADER_BYTES + 16 + 12] += 1; // entry 1's offset
    fs.writeFileSync(indexPath(c.dir), idx);
    assert.deepEqual(codes(verifyUrlLog(new DrumFs(), c.dir, c.p, URLS.length)), ['DRUM_CORRUPT_FILE']);
  });

  it('names the index, with the repair that mends it, for a block without an entry or a missing index; not for a damaged segment', async () => {
    const { dir, p } = await logOf();
    const short = verifyUrlLog(new DrumFs(), dir, { ...p, indexBytes: p.indexBytes - 16 }, URLS.length).problems;
    assert.deepEqual(short.map((x) => x.file), [indexPath(dir)]);
    assert.match(short[0]!.message, /repair --url-index/);
    fs.renameSync(indexPath(dir), `${indexPath(dir)}.away`);
    const missing = verifyUrlLog(new DrumFs(), dir, p, URLS.length).problems;
    assert.deepEqual(missing.map((x) => [x.code, x.file]), [['DRUM_CORRUPT_FILE', indexPath(dir)]]);
    assert.match(missing[0]!.message, /repair --url-index/);
    fs.renameSync(`${indexPath(dir)}.away`, indexPath(dir));
    const seg = segmentPath(dir, 0);
    flipByte(seg, 40, 0xff);
    const damaged = verifyUrlLog(new DrumFs(), dir, p, URLS.length).problems;
    assert.deepEqual(damaged.map((x) => x.file), [seg]);
    assert.doesNotMatch(damaged[0]!.message, /repair --url-index/);
  });

  it('reports a log with fewer docIDs than the store has keys', async () => {
    const { dir, p } = await logOf();
    assert.deepEqual(codes(verifyUrlLog(new DrumFs(), dir, p, URLS.length + 1)), ['DRUM_CORRUPT_FILE']);
    assert.deepEqual(codes(verifyUrlLog(new DrumFs(), dir, { ...p, docs: p.docs - 1 }, 0)), ['DRUM_CORRUPT_FILE']);
  });
});
