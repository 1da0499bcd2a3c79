// Tests of readInputs on damaged inputs: a truncated gzip, a gzip cut at
// 90% read slower than zlib inflates it, a gzip file with trailing garbage,
// and a cut single-stream .warc.gz. Each yields every complete line (or
// whole record) before the damage, then fails with DRUM_INPUT.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { constants as zlibConstants, gzipSync, gunzipSync } from 'node:zlib';
import { htmlRecord } from './warc/helpers.js';
import { readInputs, type ReadInputsOptions } from '../../src/input/read.js';
import type { LineChunk } from '../../src/input/types.js';
import { fileIn, rejectsWith, urlsOf } from './helpers.js';
import { tempDir } from '../helpers/tmp.js';

const OPTS: ReadInputsOptions = { format: 'auto', maxLineBytes: 2048, chunkBytes: 1024 };

const dir = tempDir('drum-input-damaged-');
const file = (name: string, data: string | Buffer): string => fileIn(dir, name, data);
const urls = urlsOf;

describe('readInputs on damaged inputs', () => {
  it('yields every complete line of a truncated gzip, then fails with DRUM_INPUT', async () => {
    const big = Array.from({ length: 20000 }, (_, i) => `http://example.com/${i * 7919}`).join('\n') + '\n';
    const gz = gzipSync(big);
    const p = file('cut.gz', gz.subarray(0, Math.floor(gz.length * 0.6)));
    const got: LineChunk[] = [];
    await rejectsWith(
      (async () => {
        for await (const c of readInputs([{ path: p }], OPTS)) got.push(c);
      })(),
      'DRUM_INPUT',
    );
    const u = urls(got);
    assert.ok(u.length > 5000, `got ${u.length} lines before the damage`);
    assert.deepEqual(u, big.split('\n').slice(0, u.length));
    assert.equal(got.at(-1)!.endOffset, big.split('\n').slice(0, u.length).join('\n').length + 1);
  });

  it('yields every complete line of a gzip cut at 90% even when its reader is slower than zlib', async () => {
    // Over GUNZIP_AHEAD (8 MiB) decompressed, so zlib runs ahead of the slow reader when the cut is hit.
    const big = Array.from({ length: 400_000 }, (_, i) => `http://example.com/page/${i}`).join('\n') + '\n';
    const gz = gzipSync(big);
    const cut = gz.subarray(0, Math.floor(gz.length * 0.9));
    const decoded = gunzipSync(cut, { finishFlush: zlibConstants.Z_SYNC_FLUSH }).toString('latin1');
    const complete = decoded.slice(0, decoded.lastIndexOf('\n') + 1).split('\n').slice(0, -1);
    const p = file('slow-cut.gz', cut);
    let lines = 0;
    let last = '';
    await rejectsWith(
      (async () => {
        for await (const c of readInputs([{ path: p }], { ...OPTS, chunkBytes: 1 << 20 })) {
          lines += c.count;
          if (c.count > 0) last = urls([c]).at(-1)!;
          await new Promise((r) => setTimeout(r, 30));
        }
      })(),
      'DRUM_INPUT',
    );
    assert.equal(lines, complete.length);
    assert.equal(last, complete.at(-1));
  });

  it('yields every line of a .gz file before trailing garbage after its last member, then fails with DRUM_INPUT', async () => {
    // ~300 KB compressed: the garbage lands in the stream's fifth 64 KiB slice, whose lines zlib drops with its error.
    const big = Array.from({ length: 40_000 }, (_, i) => `http://example.com/${i}/${((i * 2654435761) >>> 0).toString(36)}`);
    const p = file('trailing.gz', Buffer.concat([gzipSync(big.join('\n') + '\n'), Buffer.from('garbage')]));
    const got: LineChunk[] = [];
    await rejectsWith(
      (async () => {
        for await (const c of readInputs([{ path: p }], { ...OPTS, chunkBytes: 1 << 16 })) got.push(c);
      })(),
      'DRUM_INPUT',
    );
    assert.equal(urls(got).length, big.length);
    assert.deepEqual(urls(got).slice(-2), big.slice(-2));
  });

  it('yields the links of every whole record of a cut single-stream .warc.gz, then fails with DRUM_INPUT', async () => {
    const n3 = (i: number) => String(i).padStart(3, '0'); // every record the same length
    const page = (i: number) => `<html><body>${Array.from({ length: 20 }, (_, k) => `<a href="/r${n3(i)}/l${n3(k)}">x</a>`).join('')}</body></html>`;
    const whole = Buffer.concat(Array.from({ length: 300 }, (_, i) => htmlRecord(`http://w.example/p${n3(i)}`, page(i))));
    const gz = gzipSync(whole); // one gzip member for the whole file
    const cut = gz.subarray(0, Math.floor(gz.length * 0.9));
    const p = file('cut.warc.gz', cut);
    const got: LineChunk[] = [];
    await rejectsWith(
      (async () => {
        for await (const c of readInputs([{ path: p }], { ...OPTS, chunkBytes: 1 << 20 })) got.push(c);
      })(),
      'DRUM_INPUT',
    );
    const decoded = gunzipSync(cut, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
    const recordLen = htmlRecord('http://w.example/p000', page(0)).length;
    const records = Math.floor(decoded.length / recordLen);
    assert.ok(records > 200, String(records));
    assert.equal(urls(got).length, records * 20);
    assert.equal(got.at(-1)!.endLine, records);
  });
});
