// The arguments of Drum.open and of the library's jobs
// (src/engine/job-args.ts), seen through Drum: an argument not of its
// documented shape (no state directory path, one URL string where a list is
// meant, inputs that are not a list of paths, a format drum does not read) is
// refused with DRUM_BAD_OPTION before the call starts, so it stores, forgets
// and records nothing and the run of add() calls goes on. So is stdin (-)
// given twice among the inputs, as the command line refuses it.
// Does not test the options a job checks itself (revisitAfter, hosts).
// REQUIRES: a writable temp dir.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { Drum } from '../../src/engine/drum.js';
import { isDrumError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';

const OPTS = { workers: 0, fsync: false } as const;
const A = 'http://a.example/';

/** Lets a test pass what a JavaScript caller may pass, whatever the types say. */
const loose = (v: unknown): never => v as never;

async function refused(p: () => Promise<unknown>, what: string): Promise<void> {
  await assert.rejects(p(), (e) => isDrumError(e, 'DRUM_BAD_OPTION'), what);
}

describe('the arguments of library jobs', () => {
  it('refuses Drum.open without a state directory path or with options that are not an object', async () => {
    await refused(() => Drum.open(loose(undefined)), 'open()');
    await refused(() => Drum.open(''), "open('')");
    await refused(() => Drum.open(tempDir(), loose(null)), 'open(dir, null)');
  });

  it('refuses forget() given one URL as a string and forgets nothing', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      await d.add([A]);
      const run = d.runStats()?.runId;
      await refused(() => d.forget(loose(A)), 'forget(string)');
      await refused(() => d.forget(loose({ urls: A })), 'forget({ urls: string })');
      await refused(() => d.forget(loose(42)), 'forget(42)');
      assert.equal(d.runStats()?.runId, run, 'the run of add() calls goes on');
      assert.equal((await d.add([A])).duplicates, 1);
    } finally {
      await d.close();
    }
  });

  it('refuses ingest, check and resolve whose inputs are not a list of paths', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      await refused(() => d.ingest(loose({ inputs: 'links.txt' })), 'ingest inputs string');
      await refused(() => d.ingest(loose(undefined)), 'ingest()');
      await refused(() => d.check(loose({ onNew: () => undefined })), 'check without inputs');
      await refused(() => d.resolve(loose({ inputs: [1], onResolved: () => undefined })), 'resolve inputs [1]');
      await refused(() => d.urls(loose(5)), 'urls(5)');
      assert.equal((await d.stats()).storeUrls, 0);
    } finally {
      await d.close();
    }
  });

  it('refuses stdin (-) given twice in ingest, check, resolve and forget, and reads and stores nothing', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      await d.add([A]);
      const run = d.runStats()?.runId;
      const stdin = Readable.from([Buffer.from('http://b.example/\n')]);
      await refused(() => d.ingest({ inputs: ['-', '-'], streams: new Map([['-', stdin]]) }), 'ingest');
      await refused(() => d.check({ inputs: ['-', '-'], onNew: () => undefined }), 'check');
      await refused(() => d.resolve({ inputs: ['-', '-'], onResolved: () => undefined }), 'resolve');
      await refused(() => d.forget({ inputs: ['-', '-'] }), 'forget');
      assert.equal(d.runStats()?.runId, run, 'the run of add() calls goes on');
      assert.equal(stdin.readableEnded, false, 'the stream was not read');
      assert.equal((await d.stats()).storeUrls, 1, 'nothing was stored or forgotten');
    } finally {
      await d.close();
    }
  });

  it('refuses a format drum does not read in every call that takes one', async () => {
    const d = await Drum.open(tempDir(), OPTS);
    try {
      const format = loose('csv');
      await refused(() => d.ingest({ inputs: [], format }), 'ingest');
      await refused(() => d.check({ inputs: [], format, onNew: () => undefined }), 'check');
      await refused(() => d.resolve({ inputs: [], format, onResolved: () => undefined }), 'resolve');
      await refused(() => d.forget({ urls: [A], format }), 'forget');
      await refused(async () => {
        for await (const _ of d.checkUpdate([A], { format })) void _;
      }, 'checkUpdate');
      assert.throws(() => d.stream({ format }), (e) => isDrumError(e, 'DRUM_BAD_OPTION'), 'stream');
      assert.deepEqual((await d.add([A])).newUrls, [A], 'no refused call stored or held anything');
    } finally {
      await d.close();
    }
  });
});
