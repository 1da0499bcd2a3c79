// Concurrency through the real bin/drum: while one `drum ingest` writes a
// store, a second writer gets DRUM_LOCKED's exit status and changes nothing
// of the writer's run, and the readers (`check`, `stats`, `verify`, `runs`)
// succeed and see a committed state: one between the manifests committed just
// before they started and just after they ended.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { EXIT_STATUS } from '../../../src/errors.js';
import { MANY_ROUNDS, drum, haveEngine, manifestOf, startDrum, writeLinks } from '../harness.js';
import { tempDir } from '../../helpers/tmp.js';

const SLOW = [...MANY_ROUNDS, '--no-progress', '--quiet', '--no-fsync', '--workers', '1'];

async function until(cond: () => boolean, what: string, ms = 20_000): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe('one writer at a time, readers alongside', { skip: !haveEngine && 'engine not compiled' }, () => {
  it('refuses a second writer with DRUM_LOCKED and lets check, stats, verify and runs read the last committed state', async () => {
    const root = tempDir('drum-torture-');
    const input = join(root, 'links.txt');
    writeLinks(input, 300_000, 21);
    const other = join(root, 'other.txt');
    writeLinks(other, 1000, 22);
    const state = join(root, 'st');
    // The input's distinct URLs, known once the writer is done; the bounds below only need it then.
    let total = 0;
    // The writer reads stdin: it gets ~60 % of the input now, commits merges, then waits for the rest holding
    // the lock, so the second writer and the readers surely meet a running writer, however fast it is.
    const bytes = fs.readFileSync(input);
    const cut = bytes.indexOf(0x0a, Math.floor(bytes.length * 0.6)) + 1;
    // Bloom gate: each commit replaces the Bloom file too, which verify reads.
    const w = startDrum(['ingest', ...SLOW, '--bloom', 'gate', '--state', 'st', '--out', 'out', '-'], { cwd: root, stdinOpen: true });
    w.child.stdin!.write(bytes.subarray(0, cut));
    let writerDone = false;
    void w.done.then(() => (writerDone = true));
    await until(() => writerDone || (manifestOf(state)?.commit ?? 0) >= 2, 'the first merge commit');

    const before = manifestOf(state)!;
    const readers = Promise.all([
      drum(['check', '--quiet', '--workers', '0', '--state', 'st', input], { cwd: root }),
      drum(['stats', '--json', '--state', 'st'], { cwd: root }),
      drum(['verify', '--state', 'st'], { cwd: root }),
      drum(['runs', '--json', '--state', 'st'], { cwd: root }),
    ]);
    const second = await drum(['ingest', ...SLOW, '--state', 'st', '--out', 'out2', other], { cwd: root });
    if (writerDone) assert.fail('the writer finished before the second writer was refused');
    const [check, stats, verify, runs] = await readers;
    w.child.stdin!.end(bytes.subarray(cut));
    const afterM = manifestOf(state)!;

    assert.equal(second.status, EXIT_STATUS.DRUM_LOCKED, second.stderr);
    assert.match(second.stderr, /^drum: DRUM_LOCKED: /m);
    assert.ok(!fs.existsSync(join(root, 'out2')), 'the refused writer wrote no outputs');

    assert.equal(stats.status, 0, `stats: ${stats.stderr}`);
    const s = JSON.parse(stats.stdout) as { storeUrls: number };
    assert.ok(s.storeUrls >= before.storeUrls && s.storeUrls <= afterM.storeUrls, `stats saw ${s.storeUrls}, committed ${before.storeUrls}..${afterM.storeUrls}`);

    assert.equal(check.status, 0, `check: ${check.stderr}`);
    const fresh = check.stdout.split('\n').filter((l) => l !== '').length;
    total = (await w.done, manifestOf(state)!.storeUrls);
    assert.ok(fresh <= total - before.storeUrls && fresh >= total - afterM.storeUrls, `check saw ${fresh} new of ${total}; store ${before.storeUrls}..${afterM.storeUrls}`);

    assert.equal(verify.status, 0, `verify: ${verify.stderr}`);
    assert.equal(runs.status, 0, `runs: ${runs.stderr}`);

    const done = await w.done;
    assert.equal(done.status, 0, done.stderr);
    // The input's distinct URLs: everything the writer stored (the store was empty).
    const final = manifestOf(state)!;
    assert.equal(final.run!.status, 'complete');
    assert.equal(final.storeUrls, total);
    assert.equal((await drum(['verify', '--state', 'st'], { cwd: root })).status, 0);
  });
});
