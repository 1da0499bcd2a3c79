// The example crawler's frontier (examples/crawler/frontier.ts) on its own:
// a reopened frontier gives back the URLs queued and not done, in queue
// order, each once; a URL queued once is never fresh again; a torn last
// line (a kill -9 in the middle of an append) is cut off the file, so the
// next append starts a whole line.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Frontier } from '../../examples/crawler/frontier.js';
import { tempDir } from '../helpers/tmp.js';

describe('the example crawler\'s frontier', () => {
  it('gives a reopened crawl the URLs queued and not done, in queue order, each once', async () => {
    const dir = join(tempDir(), 'frontier');
    const f = Frontier.open(dir);
    assert.deepEqual(f.pending, []);
    await Promise.all([f.queue(['http://s/a', 'http://s/b']), f.queue(['http://s/c'])]);
    f.done('http://s/b');
    assert.deepEqual(f.fresh(['http://s/a', 'http://s/d']), ['http://s/d'], 'a URL queued once is not fresh again');
    await f.queue(['http://s/d']);
    f.done('http://s/a');
    await f.close();
    const again = Frontier.open(dir);
    assert.deepEqual(again.pending, ['http://s/c', 'http://s/d']);
    assert.equal(again.doneBefore, 2);
    assert.deepEqual([...again.queuedUrls()], ['http://s/a', 'http://s/b', 'http://s/c', 'http://s/d']);
    assert.deepEqual(again.fresh(['http://s/a', 'http://s/e']), ['http://s/e']);
    await again.close();
  });

  it('cuts a torn last line off both files, so the next append starts a whole line', async () => {
    const dir = join(tempDir(), 'frontier');
    mkdirSync(dir);
    writeFileSync(join(dir, 'queued.log'), 'http://s/a\nhttp://s/b\nhttp://s/tor');
    writeFileSync(join(dir, 'done.log'), 'http://s/a\nhttp://s/');
    const f = Frontier.open(dir);
    assert.deepEqual(f.pending, ['http://s/b']);
    assert.equal(f.doneBefore, 1);
    await f.queue(['http://s/c']);
    f.done('http://s/b');
    await f.close();
    assert.equal(readFileSync(join(dir, 'queued.log'), 'utf8'), 'http://s/a\nhttp://s/b\nhttp://s/c\n');
    assert.equal(readFileSync(join(dir, 'done.log'), 'utf8'), 'http://s/a\nhttp://s/b\n');
  });
});
