// The example crawler end to end (examples/crawler/): Crawlee's
// CheerioCrawler with drum as its URL-seen set crawls the synthetic site on
// 127.0.0.1. The site's own request log is the witness: every article page
// reachable from / was requested exactly once whatever spelling its links
// used, the calendar trap was cut at the per-path budget, nothing was
// requested twice, and the crawler fetched nothing outside the site. A
// second crawl into the same store fetches nothing new, also as a second
// run of main.js with the same --state and --port. Skips with an
// install hint where @crawlee/cheerio is missing, and fails instead under CI.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { tempDir } from '../helpers/tmp.js';

const crawlee = await import('@crawlee/cheerio').then(() => true, () => false);
const missing = crawlee ? false : 'needs the devDependency @crawlee/cheerio: run `npm ci` (or `npm install`) in the repository';
if (!crawlee && process.env.CI) throw new Error(`examples/crawler: ${missing as string}`);

describe('the example crawler', { skip: missing }, () => {
  it('fetches every reachable page of the site exactly once, bounds the calendar trap and requests nothing off the site', async () => {
    const { startSite } = await import('../../examples/crawler/site.js');
    const { crawl } = await import('../../examples/crawler/crawl.js');
    const site = await startSite({ pages: 1000 });
    const stateDir = join(tempDir(), 'state');
    try {
      const r = await crawl({ start: site.url, stateDir, maxPagesPerPath: 12, drum: { fsync: false } });
      assert.deepEqual(r.failed, []);
      const counts = new Map<string, number>();
      for (const p of site.log) counts.set(p, (counts.get(p) ?? 0) + 1);
      assert.deepEqual([...counts].filter(([, n]) => n > 1), [], 'no URL was requested twice');
      const articles = site.log.filter((p) => !p.startsWith('/calendar'));
      assert.deepEqual([...articles].sort(), [...site.articles].sort(), 'every article page, and nothing else, was requested');
      assert.equal(site.log.filter((p) => p.startsWith('/calendar?month=')).length, 12, 'the calendar stopped at its path budget');
      assert.equal(r.fetched.length, site.log.length);
      assert.ok(r.fetched.every((u) => u.startsWith(site.url)), 'the crawler fetched nothing outside the site');
      assert.ok(r.offSite > 0 && r.overBudget > 0 && r.duplicates > r.fetched.length);
      site.log.length = 0;
      const again = await crawl({ start: site.url, stateDir, drum: { fsync: false } });
      assert.deepEqual(again.fetched, [], 'a second crawl into the same store fetches nothing: drum remembers');
      assert.deepEqual(site.log, []);
    } finally {
      await site.close();
    }
  });

  it('fetches nothing on a second run of main.js with the same --state and --port', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as { port: number }).port;
        srv.close(() => resolve(p));
      });
    });
    const main = join(process.cwd(), 'dist', 'examples', 'crawler', 'main.js');
    const args = [main, '--pages', '40', '--state', join(tempDir(), 'state'), '--port', String(port)];
    const run = async (): Promise<string> => (await promisify(execFile)(process.execPath, args)).stdout;
    assert.match(await run(), /^fetched [1-9]\d* pages/m);
    assert.match(await run(), /^fetched 0 pages/m, 'the second run is the same site: drum remembers every page');
  });
});
