// Tests of format detection on decompressed prefixes: WARC, TSV, lines, the
// BOM, comment lines before the first data line, undecided short prefixes,
// and gzip recognition by name and magic.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { detectFormat, hasGzipMagic, isGzipName, PEEK_BYTES } from '../../src/input/detect.js';

const d = (s: string, complete = true) => detectFormat(Buffer.from(s, 'latin1'), complete, 2048);

describe('detectFormat', () => {
  it('detects WARC from a WARC/ start', () => {
    assert.equal(d('WARC/1.0\r\nWARC-Type: warcinfo\r\n')!.format, 'warc');
  });

  it('detects TSV when the first data line has a tab, after comments, blanks and a BOM', () => {
    assert.deepEqual(d('\xEF\xBB\xBF# c\n\nsrc\tdst\nhttp://a/\n'), { format: 'tsv', firstDataLineEnd: 16 });
  });

  it('detects lines when the first data line has no tab, even if a later one has', () => {
    assert.equal(d('http://a/\nhttp://s/\thttp://t/\n')!.format, 'lines');
  });

  it('takes a URL list whose first line ends in a stray tab for lines, not TSV', () => {
    assert.equal(d('http://a/\t\nhttp://b/\nhttp://c/\n')!.format, 'lines');
    assert.equal(d('http://a/ \t \nhttp://b/\n')!.format, 'lines');
  });

  it('takes a URL list with one tab-separated first line among plain ones for lines', () => {
    assert.equal(d('http://a/\tnote\nhttp://b/\nhttp://c/\nhttp://d/\n')!.format, 'lines');
  });

  it('detects TSV rows with an empty source column, and waits for more lines before deciding TSV', () => {
    assert.equal(d('\thttp://a/\n\thttp://b/\n')!.format, 'tsv');
    assert.equal(d('s\thttp://a/\n', false), null);
  });

  it('waits for more bytes while the first data line has not ended', () => {
    assert.equal(d('http://a/', false), null);
    assert.equal(d('WA', false), null);
    assert.equal(d('http://a/', true)!.format, 'lines');
  });

  it('decides on PEEK_BYTES even without a newline', () => {
    const r = detectFormat(Buffer.alloc(PEEK_BYTES, 0x61), false, 1 << 20);
    assert.deepEqual(r, { format: 'lines', firstDataLineEnd: null });
  });

  it('keeps a forced format and still finds the first data line end', () => {
    assert.deepEqual(detectFormat(Buffer.from('a\tb\n'), true, 2048, 'lines'), { format: 'lines', firstDataLineEnd: 4 });
  });

  it('recognizes gzip by .gz name and by 1f 8b magic', () => {
    assert.ok(isGzipName('x/links.TXT.GZ'));
    assert.ok(!isGzipName('links.tgzx'));
    assert.ok(hasGzipMagic(Buffer.from([0x1f, 0x8b, 8])));
    assert.ok(!hasGzipMagic(Buffer.from([0x1f])));
  });
});
