// End-to-end test of a pipeline that pauses: the real bin/drum reads links
// from a stdin left open after several chunks' worth, and routes and commits
// every chunk the workers have parsed while it waits for more input, not
// only once more input or the end comes; then the rest arrives and every
// new URL is written exactly once. Skips when the compiled engine is absent.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { drum, haveEngine, manifestOf, startDrum } from '../torture/harness.js';
import { uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

/** n distinct canonical URLs from `from` on (canonicalization leaves them as they are). */
function urls(from: number, n: number): string[] {
  return Array.from({ length: n }, (_, k) => `http://h${(from + k) % 53}.example/page/${from + k}`);
}

/** Polls the state's running run until it has committed at least `want` new URLs or `ms` pass; returns the last count. */
async function committedUpTo(state: string, want: number, ms: number): Promise<number> {
  let seen = 0;
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
    const run = manifestOf(state)?.run;
    if (run?.status === 'running') seen = run.counters.uniqueUrls ?? 0;
    if (seen >= want) break;
  }
  return seen;
}

describe('a stdin pipe that pauses', { skip: !haveEngine && 'engine not compiled' }, () => {
  it('commits every chunk it has read before the pause, and writes each new URL once when the rest comes', async () => {
    const root = tempDir();
    const first = urls(0, 150_000); // ~5 MiB: four full 1 MiB chunks, and a partial one the splitter holds until more comes
    const rest = urls(150_000, 20_000);
    const { child, done } = startDrum(['ingest', '--no-progress', '--no-fsync', '--merge-every', '5000', '--workers', '1', '--out', 'out', '-'],
      { cwd: root, input: first.join('\n') + '\n', stdinOpen: true });
    let committed: number;
    try {
      committed = await committedUpTo(join(root, 'drum-state'), 100_000, 20_000);
    } finally {
      child.stdin!.end(rest.join('\n') + '\n');
    }
    const r = await done;
    assert.equal(r.status, 0, r.stderr);
    assert.ok(committed >= 100_000, `committed ${committed} of the first 150,000 during the pause`);
    assert.deepEqual(uniques(join(root, 'out')), [...first, ...rest]);
    const again = await drum(['check', '-'], { cwd: root, input: first.slice(0, 10).join('\n') + '\n' });
    assert.match(again.stderr, /10 links read, 0 new/);
  });
});
