import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { AUX_CURSOR_MIN_BYTES, AUX_HEADER_BYTES, AUX_MAX_SHARED, AuxCursor, AuxLog } from '../../src/bucket/aux-log.js';
import { DrumFs } from '../../src/io/fs.js';
import { tempDir } from '../helpers/tmp.js';

/** Appends `urls` from one buffer, each with the previous URL's range when `chain` (as Front.route does within a chunk). */
function appendAll(aux: AuxLog, urls: string[], chain: boolean): void {
  const src = Buffer.from(urls.join(''), 'latin1');
  let at = 0;
  let prevS = -1;
  let prevE = -1;
  for (const u of urls) {
    const end = at + u.length;
    if (chain) aux.append(src, at, end, prevS, prevE);
    else aux.append(src, at, end);
    prevS = at;
    prevE = end;
    at = end;
  }
}

function readAll(aux: AuxLog, n: number, chunkBytes = AUX_CURSOR_MIN_BYTES): string[] {
  const got: string[] = [];
  aux.forEachWanted(new Uint8Array((n >>> 3) + 1).fill(0xff), chunkBytes, (o, buf, s, e) => {
    assert.equal(o, got.length, 'ordinals in order');
    got.push(buf.toString('latin1', s, e));
  });
  return got;
}

/** Through a cursor over the log's file alone, as the worker's dispatch scan reads it. */
function readFile(path: string): string[] {
  const fd = fs.openSync(path, 'r');
  try {
    const cur = new AuxCursor(new Uint8Array(AUX_CURSOR_MIN_BYTES), (b, off, len, pos) => fs.readSync(fd, b, off, len, pos));
    const got: string[] = [];
    while (cur.next()) got.push(cur.url.toString('latin1', 0, cur.len));
    return got;
  } finally {
    fs.closeSync(fd);
  }
}

const newLog = (bufferBytes = 1): AuxLog => new AuxLog(new DrumFs(), join(tempDir(), 'aux.dat'), bufferBytes);

describe('AuxLog', () => {
  it('returns exactly the wanted records, in order, across file and RAM buffer', () => {
    const aux = newLog();
    const urls = Array.from({ length: 3000 }, (_, i) => `http://h${i % 7}.example/${'x'.repeat(i % 50)}/${i}`);
    appendAll(aux, urls, true);
    const wanted = new Uint8Array((urls.length >>> 3) + 1);
    const want = urls.map((_, i) => i).filter((i) => i % 3 === 0 || i === urls.length - 1);
    for (const i of want) wanted[i >>> 3]! |= 1 << (i & 7);
    const got: string[] = [];
    aux.forEachWanted(wanted, 1024, (o, buf, s, e) => {
      assert.equal(buf.toString('latin1', s, e), urls[o]);
      got.push(buf.toString('latin1', s, e));
    });
    assert.deepEqual(got, want.map((i) => urls[i]));
    aux.discard();
    assert.equal(aux.records, 0);
  });

  it('reads back every URL in order, whether it shares a prefix with the one before or not', () => {
    // URLs from a few hosts and path stems, so neighbours share prefixes of every length (also 0 and the whole URL).
    const url = fc
      .tuple(fc.constantFrom('http://a.example', 'https://a.example', 'http://b.example'), fc.constantFrom('', '/', '/p', '/p/q'), fc.string({ maxLength: 12 }), fc.nat(300))
      .map(([h, stem, tail, long]) => `${h}${stem}${tail}${long > 280 ? 'y'.repeat(long) : ''}`);
    fc.assert(
      fc.property(fc.array(url, { maxLength: 200 }), fc.boolean(), fc.boolean(), (urls, chain, flushEarly) => {
        const aux = newLog();
        const half = urls.length >> 1;
        appendAll(aux, urls.slice(0, half), chain);
        if (flushEarly) aux.flush(); // the rest stays in RAM: the chain must carry on from the file into the buffer
        appendAll(aux, urls.slice(half), chain);
        assert.deepEqual(readAll(aux, urls.length), urls);
        aux.flush();
        assert.deepEqual(urls.length === 0 ? [] : readFile(aux.path), urls);
        aux.discard();
      }),
    );
  });

  it('rebuilds URLs whose records straddle the reader\'s refills', () => {
    const aux = newLog();
    const urls = Array.from({ length: 6000 }, (_, i) => `http://host${i % 13}.example/section/${i % 5}/${'z'.repeat(i % 97)}${i}`);
    appendAll(aux, urls, true);
    aux.flush();
    assert.ok(fs.statSync(aux.path).size > 2 * AUX_CURSOR_MIN_BYTES, 'several refills');
    assert.deepEqual(readFile(aux.path), urls);
  });

  it('stores only the bytes after the prefix a URL shares with the one before it, up to AUX_MAX_SHARED', () => {
    const a = 'http://example.com/dir/page-1';
    const b = 'http://example.com/dir/page-22';
    const aux = newLog();
    appendAll(aux, [a, b], true);
    assert.equal(aux.bytes, 2 * AUX_HEADER_BYTES + a.length + (b.length - 'http://example.com/dir/page-'.length));
    const long1 = `http://example.com/${'q'.repeat(400)}1`;
    const long2 = `http://example.com/${'q'.repeat(400)}2`;
    const capped = newLog();
    appendAll(capped, [long1, long2], true);
    assert.equal(capped.bytes, 2 * AUX_HEADER_BYTES + long1.length + long2.length - AUX_MAX_SHARED);
    assert.deepEqual(readAll(capped, 2), [long1, long2]);
    const whole = newLog();
    appendAll(whole, [a, b], false);
    assert.equal(whole.bytes, 2 * AUX_HEADER_BYTES + a.length + b.length, 'no previous range: the whole URL');
  });

  it('stores the first URL of a round whole even when given a previous range', () => {
    const aux = newLog();
    const src = Buffer.from('http://example.com/ahttp://example.com/b');
    aux.append(src, 0, 20);
    aux.flush();
    aux.discard();
    aux.append(src, 20, 40, 0, 20); // the range belongs to the discarded round
    assert.equal(aux.bytes, AUX_HEADER_BYTES + 20);
    assert.deepEqual(readAll(aux, 1), ['http://example.com/b']);
  });

  it('refuses a record that claims more shared bytes than the URL before it had', () => {
    const path = join(tempDir(), 'bad.dat');
    // [len 3][shared 0]"abc", then [len 1][shared 4]"d": the first URL has only 3 bytes.
    fs.writeFileSync(path, Buffer.from([3, 0, 0, 0x61, 0x62, 0x63, 1, 0, 4, 0x64]));
    assert.throws(() => readFile(path), RangeError);
    // [len 1][shared 0]"a", then [len 65535][shared 1]...: a URL of 65,536 bytes, one more than any record holds.
    const long = join(tempDir(), 'long.dat');
    fs.writeFileSync(long, Buffer.concat([Buffer.from([1, 0, 0, 0x61, 0xff, 0xff, 1]), Buffer.alloc(0xffff, 0x62)]));
    assert.throws(() => readFile(long), RangeError);
  });

  it('stops with DRUM_CORRUPT_FILE when its file holds fewer records than were appended', () => {
    const aux = newLog();
    const urls = Array.from({ length: 3000 }, (_, i) => `http://h${i % 7}.example/${i}`);
    appendAll(aux, urls.slice(0, 2000), true);
    aux.flush();
    appendAll(aux, urls.slice(2000), true); // these stay in RAM
    fs.truncateSync(aux.path, fs.statSync(aux.path).size - 100);
    assert.throws(() => readAll(aux, urls.length), (e: unknown) => (e as { code?: string }).code === 'DRUM_CORRUPT_FILE');
  });
});
