// Tests of LineSplitter: line endings, BOM, blank/comment lines, line
// numbers, offsets, TSV fields and header, too-long lines in bounded memory,
// a fast-check model test over random pieces and both feeding paths, and
// leased index arrays (valid until the next call, then empty, never stale).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { LineSplitter, type SplitOptions } from '../../src/input/split.js';
import type { LineChunk } from '../../src/input/types.js';
import { flatten, type Flat } from './helpers.js';

const base = { input: 0, maxLineBytes: 2048, chunkBytes: 1024 } as const;

function split(text: string | Buffer, o: Partial<SplitOptions> = {}, pieces = [Infinity]): Flat {
  const s = new LineSplitter({ ...base, format: 'lines', ...o });
  const buf = typeof text === 'string' ? Buffer.from(text, 'latin1') : text;
  const out: LineChunk[] = [];
  let pos = 0, k = 0;
  while (pos < buf.length) {
    const n = Math.min(pieces[k++ % pieces.length]!, buf.length - pos);
    out.push(...s.push(buf.subarray(pos, pos + n)));
    pos += n;
  }
  out.push(...s.end());
  return flatten(out);
}

/** Feeds through pushOwned() with read sizes from `reads`, as the file reader does; `each` sees every call's chunks. */
function splitWindowed(buf: Buffer, o: SplitOptions, reads: number[], each: (cs: LineChunk[]) => void = () => {}): LineChunk[] {
  const s = new LineSplitter(o);
  const out: LineChunk[] = [];
  const room = s.frontRoom();
  const took = (cs: LineChunk[]): void => {
    out.push(...cs);
    each(cs);
  };
  let pos = 0, k = 0;
  while (pos < buf.length) {
    const n = Math.min(o.chunkBytes, buf.length - pos, Math.max(1, reads[k++ % reads.length]!));
    const w = Buffer.allocUnsafeSlow(room + o.chunkBytes).fill(0x3f);
    buf.copy(w, room, pos, pos + n);
    pos += n;
    took(s.pushOwned(w, room, n));
  }
  took(s.end());
  return out;
}

/** The index arrays of a chunk, copied. */
function indexOf(c: LineChunk): number[][] {
  return [c.urlStarts, c.urlEnds, c.baseStarts, c.baseEnds, c.lines].map((a) => [...a]);
}

/** The reference: a plain split('\n') reading of the documented rules. */
function model(text: string, o: { format: 'lines' | 'tsv'; max: number }): Omit<Flat, 'chunks'> {
  const f: Omit<Flat, 'chunks'> = { links: [], rejects: [] };
  const t = text.startsWith('\xEF\xBB\xBF') ? text.slice(3) : text;
  const raw = t.split('\n');
  if (raw[raw.length - 1] === '') raw.pop();
  let header = o.format === 'tsv';
  raw.forEach((r, i) => {
    const line = i + 1;
    const l = r.endsWith('\r') ? r.slice(0, -1) : r;
    if (l.length > o.max) return f.rejects.push([line, 'too-long', l.slice(0, 200)]);
    const lead = l.replace(/^[ \t]+/, '');
    if (lead === '' || lead.startsWith('#')) return;
    if (o.format === 'lines') return f.links.push([line, lead.replace(/[ \t]+$/, ''), '']);
    if (header) {
      header = false;
      if (!l.includes(':')) return;
    }
    const cols = l.split('\t');
    const target = (cols[1] ?? '').replace(/^ +| +$/g, '');
    const source = cols[0]!.replace(/^ +| +$/g, '');
    // An empty target is the source itself (RFC 3986 5.4.1); no target field, or nothing at all, is 'empty'.
    const url = target === '' ? source : target;
    if (cols.length < 2 || url === '') return f.rejects.push([line, 'empty', l.slice(0, 200)]);
    f.links.push([line, url, source]);
  });
  return f;
}

function assertChunkInvariants(chunks: LineChunk[], total: number, o: { chunkBytes: number; maxLineBytes: number }): void {
  let prevLine = 0, prevOff = 0;
  for (const c of chunks) {
    assert.ok(c.buf.length <= o.chunkBytes + o.maxLineBytes + 1, `chunk buffer ${c.buf.length} too big`);
    assert.ok(c.endOffset >= prevOff && c.endLine >= prevLine);
    for (let i = 0; i < c.count; i++) assert.ok(c.lines[i]! > prevLine && c.lines[i]! <= c.endLine);
    prevLine = c.endLine;
    prevOff = c.endOffset;
  }
  if (chunks.length > 0) assert.equal(prevOff, total);
}

describe('LineSplitter', () => {
  it('strips CR from CRLF line endings and keeps lone CRs inside a line', () => {
    const f = split('http://a/\r\nhttp://b/x\ry\r\n');
    assert.deepEqual(f.links.map((l) => l[1]), ['http://a/', 'http://b/x\ry']);
  });

  it('drops a UTF-8 BOM at the start of the input only', () => {
    const f = split('\xEF\xBB\xBFhttp://a/\n\xEF\xBB\xBFhttp://b/\n');
    assert.deepEqual(f.links.map((l) => l[1]), ['http://a/', '\xEF\xBB\xBFhttp://b/']);
  });

  it('drops a BOM even when the first line spans several windows', () => {
    const url = 'http://example.com/' + 'p'.repeat(20);
    for (const pieces of [[1], [5], [Infinity]]) {
      const f = split(`\xEF\xBB\xBF${url}\nhttp://b/\n`, { chunkBytes: 16, maxLineBytes: 60 }, pieces);
      assert.deepEqual(f.links, [[1, url, ''], [2, 'http://b/', '']]);
    }
  });

  it('keeps a BOM when the input resumes past offset 0', () => {
    const f = split('\xEF\xBB\xBFhttp://a/\n', { startOffset: 10, startLine: 3 });
    assert.deepEqual(f.links, [[4, '\xEF\xBB\xBFhttp://a/', '']]);
  });

  it('skips blank and # lines but counts them in line numbers', () => {
    const f = split('# comment\n\nhttp://a/\n   \n\t# indented comment\nhttp://b/\n');
    assert.deepEqual(f.links, [[3, 'http://a/', ''], [6, 'http://b/', '']]);
    assert.equal(f.chunks.at(-1)!.endLine, 6);
  });

  it('trims spaces and tabs around a lines-format URL', () => {
    assert.deepEqual(split('  http://a/ \t\n').links, [[1, 'http://a/', '']]);
  });

  it('reads a last line that has no newline', () => {
    const f = split('http://a/\nhttp://b/');
    assert.deepEqual(f.links.map((l) => l[1]), ['http://a/', 'http://b/']);
    assert.equal(f.chunks.at(-1)!.endOffset, 19);
  });

  it('passes invalid UTF-8 and binary bytes through untouched', () => {
    const bytes = Buffer.from([0x68, 0xff, 0x00, 0xc3, 0x28, 0x0a]);
    const f = split(bytes);
    assert.deepEqual(Buffer.from(f.links[0]![1], 'latin1'), bytes.subarray(0, 5));
  });

  it('splits TSV into target URL and source base, skipping a header without a colon', () => {
    const f = split('source_url\toutlink_url\thop\nhttp://s/\thttp://t/\tL\tx\n', { format: 'tsv' });
    assert.deepEqual(f.links, [[2, 'http://t/', 'http://s/']]);
    assert.deepEqual(f.rejects, []);
  });

  it('treats a first TSV data line with a colon as data, not a header, even without ://', () => {
    assert.deepEqual(split('http://s/\thttp://t/\n', { format: 'tsv' }).links, [[1, 'http://t/', 'http://s/']]);
    assert.deepEqual(split('http:s.com/\thttp:t.com/first\n', { format: 'tsv' }).links, [[1, 'http:t.com/first', 'http:s.com/']]);
  });

  it('rejects a TSV row without a tab, or with neither target nor source, as empty; an empty target is its source', () => {
    const f = split('http://s/\thttp://t/\nhttp://no-tab/\nhttp://s/\t\tL\nhttp://s/\t  \n\t\tx\n', { format: 'tsv' });
    assert.deepEqual(f.links, [[1, 'http://t/', 'http://s/'], [3, 'http://s/', 'http://s/'], [4, 'http://s/', 'http://s/']]);
    assert.deepEqual(f.rejects, [
      [2, 'empty', 'http://no-tab/'],
      [5, 'empty', '\t\tx'],
    ]);
  });

  it('rejects a line over maxLineBytes as too-long with a 200-byte excerpt', () => {
    const long = 'http://x/' + 'a'.repeat(3000);
    const f = split(`http://a/\n${long}\nhttp://b/\n`);
    assert.deepEqual(f.links.map((l) => l[0]), [1, 3]);
    assert.deepEqual(f.rejects, [[2, 'too-long', long.slice(0, 200)]]);
  });

  it('accepts a CRLF line of exactly maxLineBytes whose CR ends a window', () => {
    const line = 'h'.repeat(47); // 47 + CR = three 16-byte windows, LF in the next
    const f = split(`${line}\r\n`, { maxLineBytes: 47, chunkBytes: 16 });
    assert.deepEqual(f.links.map((l) => l[1]), [line]);
    assert.deepEqual(f.rejects, []);
  });

  it('rejects a 64 MB line without newline while holding at most one window', () => {
    const s = new LineSplitter({ ...base, format: 'lines', chunkBytes: 1 << 16 });
    const piece = Buffer.alloc(1 << 20, 0x61);
    const chunks: LineChunk[] = [...s.push(Buffer.from('http://first/\n'))];
    let maxHeld = 0;
    for (let i = 0; i < 64; i++) {
      chunks.push(...s.push(piece));
      maxHeld = Math.max(maxHeld, s.bufferedBytes());
    }
    chunks.push(...s.push(Buffer.from('\nhttp://after/\n')), ...s.end());
    assert.ok(maxHeld <= (1 << 16) + 2048 + 1, `held ${maxHeld} bytes`);
    for (const c of chunks) assert.ok(c.buf.length <= (1 << 16) + 2048 + 1);
    const f = flatten(chunks);
    assert.deepEqual(f.links.map((l) => l[1]), ['http://first/', 'http://after/']);
    assert.deepEqual(f.rejects, [[2, 'too-long', 'a'.repeat(200)]]);
    assert.equal(chunks.at(-1)!.endOffset, 14 + 64 * (1 << 20) + 15);
  });

  it('resumes from any chunk endOffset/endLine with exactly the remaining lines', () => {
    const text = Array.from({ length: 500 }, (_, i) => (i % 7 === 0 ? '# c' : `http://h/${i}`)).join('\n') + '\n';
    const buf = Buffer.from(text);
    const o = { ...base, format: 'lines' as const, chunkBytes: 256 };
    const full = flatten(splitWindowed(buf, o, [100000]));
    assert.ok(full.chunks.length > 5);
    for (const c of full.chunks) {
      const rest = split(buf.subarray(c.endOffset), { ...o, startOffset: c.endOffset, startLine: c.endLine });
      assert.deepEqual(rest.links, full.links.filter((l) => l[0] > c.endLine));
    }
  });

  it('matches the split model for random lines cut into random pieces (fast-check)', () => {
    const byte = fc.constantFrom(...'ab:/h\t #\r\xEF\xBB\xBF\xFF\x00'.split(''));
    const lineArb = fc.oneof(
      fc.array(byte, { maxLength: 30 }).map((a) => a.join('')),
      fc.constant('http://s/\thttp://t/\tL'),
      fc.nat(120).map((n) => 'x'.repeat(n)),
    );
    const p = fc.property(
      fc.array(lineArb, { maxLength: 60 }),
      fc.boolean(),
      fc.constantFrom('lines', 'tsv') as fc.Arbitrary<'lines' | 'tsv'>,
      fc.constantFrom(8, 40, 300),
      fc.array(fc.integer({ min: 1, max: 90 }), { minLength: 1, maxLength: 8 }),
      fc.boolean(),
      (lines, lastNl, format, max, cuts, windowed) => {
        const text = lines.join('\n') + (lastNl && lines.length > 0 ? '\n' : '');
        const buf = Buffer.from(text, 'latin1');
        const o = { input: 0, format, maxLineBytes: max, chunkBytes: 16 };
        const chunks = windowed
          ? splitWindowed(buf, o, cuts)
          : split(buf, o, cuts).chunks;
        const got = flatten(chunks);
        const want = model(text, { format, max });
        assert.deepEqual(got.links, want.links);
        assert.deepEqual(got.rejects, want.rejects);
        assertChunkInvariants(chunks, buf.length, o);
      },
    );
    fc.assert(p, { seed: 4242, numRuns: 400 });
  });

  it('lends its index arrays to a lone chunk until the next call, then empties them, never showing other lines (fast-check)', () => {
    const lineArb = fc.oneof(fc.constant('http://s/\thttp://t/'), fc.nat(40).map((n) => `http://h/${'p'.repeat(n)}`), fc.constant(''), fc.constant('x'.repeat(70)));
    let emptied = 0;
    const p = fc.property(
      fc.array(lineArb, { maxLength: 80 }),
      fc.constantFrom('lines', 'tsv') as fc.Arbitrary<'lines' | 'tsv'>,
      fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 6 }),
      (lines, format, reads) => {
        const buf = Buffer.from(lines.join('\n') + '\n', 'latin1');
        const o = { input: 0, format, maxLineBytes: 60, chunkBytes: 16 };
        const want = flatten(splitWindowed(buf, o, reads));
        const copies: LineChunk[] = [];
        const lent: { c: LineChunk; index: number[][] }[] = [];
        splitWindowed(buf, { ...o, lease: true }, reads, (cs) => {
          assert.ok(cs.length <= 1, 'pushOwned and end give at most one chunk');
          // Every chunk lent before this call reads as it did, or as nothing.
          for (const l of lent) {
            if (l.c.urlStarts.length === 0 && l.c.lines.length === 0) emptied++;
            else assert.deepEqual(indexOf(l.c), l.index);
          }
          for (const c of cs) {
            lent.push({ c, index: indexOf(c) });
            copies.push({ ...c, urlStarts: c.urlStarts.slice(), urlEnds: c.urlEnds.slice(), baseStarts: c.baseStarts.slice(), baseEnds: c.baseEnds.slice(), lines: c.lines.slice() });
          }
        });
        const got = flatten(copies);
        assert.deepEqual(got.links, want.links);
        assert.deepEqual(got.rejects, want.rejects);
      },
    );
    fc.assert(p, { seed: 4242, numRuns: 300 });
    assert.ok(emptied > 100, `only ${emptied} lent chunks were emptied`);
  });
});
