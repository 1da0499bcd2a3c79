// Tests of splitFile (read-from.ts): a plain file read in chunks no bigger
// than the file's size when it was opened (a small batch allocates no
// full-size buffers), yet read to its end when it grew after that size was
// taken, with or without reused buffers.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { open } from 'node:fs/promises';
import { LineSplitter } from '../../src/input/split.js';
import { splitFile } from '../../src/input/read-from.js';
import { fileIn, flatten } from './helpers.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('drum-read-from-');

async function linesOf(path: string, size: number, reuse: boolean): Promise<string[]> {
  const fh = await open(path, 'r');
  try {
    const splitter = new LineSplitter({ input: 0, format: 'lines', maxLineBytes: 2048, chunkBytes: 1 << 20, headerCheck: false });
    const out: string[] = [];
    // Each chunk read before the next is asked for: with reused buffers a chunk kept past its turn reads as empty.
    for await (const c of splitFile(fh, splitter, 0, size, 1 << 20, () => {}, () => {}, path, reuse)) out.push(...flatten([c]).links.map(([, u]) => u));
    return out;
  } finally {
    await fh.close();
  }
}

describe('splitFile', () => {
  const urls = Array.from({ length: 20_000 }, (_, i) => `http://h${i % 97}.example/p/${i}`);
  const path = fileIn(dir, 'grown.txt', urls.join('\n') + '\n');

  it('reads a file to its end when it grew past the size taken when it was opened', async () => {
    for (const reuse of [false, true]) assert.deepEqual(await linesOf(path, 100, reuse), urls, `reuse ${reuse}`);
  });

  it('reads a file of the size it was opened with, small or big, line for line', async () => {
    const small = fileIn(dir, 'small.txt', 'http://a.example/\nhttp://b.example/\n');
    assert.deepEqual(await linesOf(small, 36, true), ['http://a.example/', 'http://b.example/']);
    assert.deepEqual(await linesOf(path, Buffer.byteLength(urls.join('\n') + '\n'), true), urls);
  });
});
