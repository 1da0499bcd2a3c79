// One job at a time per open Drum (src/engine/job-gate.ts), seen through the
// library: while a stream holds the store, and once close() is called, every method
// that returns a promise returns a rejected one (DRUM_BAD_OPTION, then
// DRUM_CLOSED) instead of throwing where it is called, so `.catch()` and
// `await` both see the error; the store works again once the stream ends.
// A reader (stats, urls, resolve) does not refuse add(): a call made while it
// reads waits for it, and it sees exactly the calls made before it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../src/engine/drum.js';
import { isDrumError, type DrumErrorCode } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';

const OPTS = { workers: 0, fsync: false } as const;

/** Every promise-returning method, called the way a crawler would. */
function calls(d: Drum, root: string): [string, () => Promise<unknown>][] {
  const links = join(root, 'links.txt');
  return [
    ['ingest', () => d.ingest({ inputs: [links], outDir: join(root, `o-${Math.random()}`) })],
    ['check', () => d.check({ inputs: [links], onNew: () => undefined })],
    ['forget', () => d.forget(['http://a.example/'])],
    ['compact', () => d.compact()],
    ['stats', () => d.stats()],
    ['verify', () => d.verify()],
    ['urls', () => d.urls([0])],
    ['resolve', () => d.resolve({ inputs: [links], onResolved: () => undefined })],
    ['add', () => d.add(['http://b.example/'])],
  ];
}

/** Calls each method, asserting it returns (does not throw) a promise that rejects with `code`. */
async function allReject(d: Drum, root: string, code: DrumErrorCode): Promise<void> {
  for (const [name, call] of calls(d, root)) {
    let p: Promise<unknown> | undefined;
    assert.doesNotThrow(() => (p = call()), `${name} threw where it was called`);
    await assert.rejects(p!, (e) => isDrumError(e, code), name);
  }
}

describe('the job gate', () => {
  it('rejects every job started while a stream holds the store, and runs them once it ends', async () => {
    const root = tempDir();
    fs.writeFileSync(join(root, 'links.txt'), 'http://a.example/\n');
    const d = await Drum.open(join(root, 'state'), OPTS);
    try {
      const st = d.stream();
      st.resume();
      await allReject(d, root, 'DRUM_BAD_OPTION');
      st.end();
      await once(st, 'end');
      assert.equal((await d.ingest({ inputs: [join(root, 'links.txt')], outDir: join(root, 'after') })).uniqueUrls, 1);
    } finally {
      await d.close();
    }
  });

  it('rejects every call after close() with DRUM_CLOSED, endRun() included', async () => {
    const root = tempDir();
    fs.writeFileSync(join(root, 'links.txt'), 'http://a.example/\n');
    const d = await Drum.open(join(root, 'state'), OPTS);
    await d.add(['http://c.example/']);
    await d.close();
    await allReject(d, root, 'DRUM_CLOSED');
    await assert.rejects(d.endRun(), (e) => isDrumError(e, 'DRUM_CLOSED'));
  });

  it('rejects every call made once close() is called, before it has resolved, endRun() included', async () => {
    const root = tempDir();
    fs.writeFileSync(join(root, 'links.txt'), 'http://a.example/\n');
    const d = await Drum.open(join(root, 'state'), OPTS);
    const added = d.add(['http://c.example/']);
    const closed = d.close();
    await allReject(d, root, 'DRUM_CLOSED');
    await assert.rejects(d.endRun(), (e) => isDrumError(e, 'DRUM_CLOSED'));
    assert.deepEqual((await added).newUrls, ['http://c.example/']);
    await closed;
    // close() ended the run of the call made before it.
    const again = await Drum.open(join(root, 'state'), { ...OPTS, readOnly: true });
    try {
      assert.equal((await again.stats()).recentRuns[0]?.status, 'complete');
    } finally {
      await again.close();
    }
  });

  it('lets add() called while stats(), urls() or resolve() reads wait for it, in the same run', async () => {
    const root = tempDir();
    fs.writeFileSync(join(root, 'links.txt'), 'http://a.example/\nhttp://b.example/\n');
    const d = await Drum.open(join(root, 'state'), OPTS);
    try {
      const a = d.add(['http://a.example/']);
      const stats = d.stats();
      const b = d.add(['http://b.example/']);
      assert.equal((await stats).storeUrls, 1);
      assert.deepEqual((await a).newUrls, ['http://a.example/']);
      assert.deepEqual((await b).newUrls, ['http://b.example/']);
      const runId = d.runStats()?.runId;
      const urls = d.urls([0, 1, 2]);
      const c = d.add(['http://c.example/']);
      assert.deepEqual(await urls, ['http://a.example/', 'http://b.example/', null]);
      const seen: (number | null)[] = [];
      const resolved = d.resolve({ inputs: [join(root, 'links.txt')], onResolved: (id) => seen.push(id) });
      const e = d.add(['http://e.example/']);
      await resolved;
      assert.deepEqual(seen, [0, 1]);
      assert.equal((await c).newUrls.length + (await e).newUrls.length, 2);
      assert.equal(d.runStats()?.runId, runId);
      assert.equal(d.runStats()?.uniqueUrls, 4);
    } finally {
      await d.close();
    }
  });
});
