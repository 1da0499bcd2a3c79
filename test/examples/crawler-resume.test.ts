// The example crawler killed for real and restarted (examples/crawler/):
// the synthetic site runs in this process, so its request log spans every
// crawler process; each crawl is a child process (the example's crawl()
// with drum's fsync off, for speed: a kill -9 keeps the page cache) killed
// with SIGKILL after some pages from outside, in the middle of a round (as
// the round's MANIFEST is renamed, once its frontier hook has queued URLs
// drum has not stored), and just after a round committed; then main.js
// runs it to the end, and once more. The witness: every page reachable
// from / was fetched, the calendar stopped at its budget across restarts,
// and no page was fetched more often than the kills can explain. Skips
// where @crawlee/cheerio is missing (fails under CI), as crawler.test.ts.
// Does not cut power: the frontier's and drum's fsyncs are not tested here.
// REQUIRES: the build (the children run dist/examples/crawler/*.js).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';

const crawlee = await import('@crawlee/cheerio').then(() => true, () => false);
const missing = crawlee ? false : 'needs the devDependency @crawlee/cheerio: run `npm ci` (or `npm install`) in the repository';
if (!crawlee && process.env.CI) throw new Error(`examples/crawler: ${missing as string}`);

const DIST = join(process.cwd(), 'dist', 'examples', 'crawler');
const BUDGET = 20; // the default, which main.js uses
const CONCURRENCY = 16;

interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A child crawl; `killWhen` (polled every 2 ms) sends it SIGKILL from outside. */
function child(args: string[], killWhen: () => boolean = () => false): Promise<Exit> {
  const p = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  p.stdout.on('data', (b: Buffer) => (stdout += b));
  p.stderr.on('data', (b: Buffer) => (stderr += b));
  const poll = setInterval(() => {
    if (killWhen()) p.kill('SIGKILL');
  }, 2);
  return new Promise((resolve) => p.on('close', (code, signal) => {
    clearInterval(poll);
    resolve({ code, signal, stdout, stderr });
  }));
}

/**
 * The example's crawl() in a child. `kill`: 'round' SIGKILLs itself as the
 * MANIFEST of a round is renamed (the round not committed) once the frontier
 * grew since the last rename and at least `after` renames went by; 'commit'
 * at drum's first file operation after the `after`-th rename (committed).
 */
function crawlChild(start: string, state: string, kill: 'none' | 'round' | 'commit' = 'none', after = 0, killWhen?: () => boolean): Promise<Exit> {
  const code = `
    import { statSync } from 'node:fs';
    import { crawl } from ${JSON.stringify(join(DIST, 'crawl.js'))};
    const queued = ${JSON.stringify(`${state}.frontier/queued.log`)};
    const size = () => { try { return statSync(queued).size; } catch { return 0; } };
    let renames = 0, grown = size(), committed = false;
    const faultHook = (op, path) => {
      if (committed) process.kill(process.pid, 'SIGKILL');
      if (op !== 'rename' || !path.endsWith('MANIFEST')) return;
      renames++;
      if (${JSON.stringify(kill)} === 'round' && renames > ${after} && size() > grown) process.kill(process.pid, 'SIGKILL');
      if (${JSON.stringify(kill)} === 'commit' && renames === ${after}) committed = true;
      grown = size();
    };
    await crawl({ start: ${JSON.stringify(start)}, stateDir: ${JSON.stringify(state)}, maxPagesPerPath: ${BUDGET},
      maxConcurrency: ${CONCURRENCY}, drum: { fsync: false, faultHook } });`;
  // A file, not -e: drum's parse workers inherit the process's flags, and --input-type is refused there.
  const script = join(tempDir(), 'crawl-child.mjs');
  writeFileSync(script, code);
  return child([script], killWhen);
}

/** The URLs of queued.log that drum has not stored. */
async function queuedNotStored(state: string): Promise<string[]> {
  const queued = `${state}.frontier/queued.log`;
  if (!existsSync(queued)) return [];
  const d = await Drum.open(state, { readOnly: true, workers: 0 });
  try {
    const out: string[] = [];
    await d.check({ inputs: [queued], onNew: (u) => out.push(u) });
    return out;
  } finally {
    await d.close();
  }
}

describe('the example crawler, killed and restarted', { skip: missing }, () => {
  it('fetches every page reachable from / across kill -9s after some pages, in a round and after a commit, and restarts', async () => {
    const { startSite } = await import('../../examples/crawler/site.js');
    const site = await startSite({ pages: 300 });
    const state = join(tempDir(), 'state');
    const t0 = performance.now();
    try {
      const runs: [string, Exit][] = [];
      const fetched = (): number => site.log.length;
      runs.push(['after 40 pages', await crawlChild(site.url, state, 'none', 0, () => fetched() >= 40)]);
      runs.push(['in a round', await crawlChild(site.url, state, 'round', 3)]);
      const unstored = await queuedNotStored(state);
      runs.push(['after a commit', await crawlChild(site.url, state, 'commit', 3)]);
      runs.push(['after 180 pages', await crawlChild(site.url, state, 'none', 0, () => fetched() >= 180)]);
      const kills = runs.length;
      const last = await child([join(DIST, 'main.js'), '--start', site.url, '--state', state]);
      const again = await child([join(DIST, 'main.js'), '--start', site.url, '--state', state]);
      const seconds = ((performance.now() - t0) / 1000).toFixed(1);

      const articles = new Set(site.log.filter((p) => !p.startsWith('/calendar')));
      assert.deepEqual([...articles].sort(), [...site.articles].sort(), 'every article page, and nothing else, was fetched');
      assert.equal(new Set(site.log.filter((p) => p.startsWith('/calendar?month='))).size, BUDGET, 'the calendar budget held across restarts');
      const repeats = site.log.length - new Set(site.log).size;
      assert.ok(repeats <= kills * CONCURRENCY, `${repeats} repeated requests for ${kills} kills of ${CONCURRENCY} pages in flight`);
      for (const [when, r] of runs) assert.equal(r.signal, 'SIGKILL', `the crawl killed ${when} was killed (${r.stderr})`);
      assert.ok(unstored.length > 0, 'the kill in a round left URLs queued that drum had not stored');
      assert.equal(last.code, 0, last.stderr);
      assert.match(last.stdout, /^resumed: [1-9]\d* URLs queued and not fetched by earlier crawls \(which fetched [1-9]\d* pages\)$/m);
      assert.match(again.stdout, /^fetched 0 pages/m, 'a run after the crawl finished fetches nothing');
      console.log(`# ${site.log.length} requests (${repeats} repeated) for ${site.articles.length + BUDGET} pages, ${kills} kills, ${seconds} s`);
    } finally {
      await site.close();
    }
  });
});
