import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LineSplitter } from '../../src/input/split.js';
import type { LineChunk } from '../../src/input/types.js';
import { LineMemo, MEMO_WAYS, SKIP_LOCAL, SKIP_MEMO, SKIP_NONE } from '../../src/tiers/line-memo.js';

function chunkOf(text: string, format: 'lines' | 'tsv' = 'lines'): LineChunk {
  const sp = new LineSplitter({ input: 0, format, maxLineBytes: 4096, chunkBytes: 1 << 20, headerCheck: false });
  const cs = [...sp.push(Buffer.from(text)), ...sp.end()];
  assert.equal(cs.length, 1);
  return cs[0]!;
}

function marks(memo: LineMemo, c: LineChunk): number[] {
  const skip = new Uint8Array(c.count);
  memo.mark(c, skip);
  return [...skip];
}

describe('LineMemo', () => {
  it('answers a line repeated from an earlier chunk, and only that line', () => {
    const m = new LineMemo(1 << 10);
    assert.deepEqual(marks(m, chunkOf('http://a.example/1\nhttp://a.example/2\n')), [SKIP_NONE, SKIP_NONE]);
    assert.deepEqual(marks(m, chunkOf('http://a.example/2\nhttp://a.example/3\nhttp://a.example/1\n')), [SKIP_MEMO, SKIP_NONE, SKIP_MEMO]);
    assert.equal(m.lookups, 5);
    assert.equal(m.hits, 2);
  });

  it('marks a repeat inside one chunk as local and leaves its first occurrence to be parsed', () => {
    const m = new LineMemo(1 << 10);
    assert.deepEqual(marks(m, chunkOf('http://a.example/x\nhttp://b.example/\nhttp://a.example/x\nhttp://a.example/x\n')), [SKIP_NONE, SKIP_NONE, SKIP_LOCAL, SKIP_LOCAL]);
    assert.equal(m.lastLocals, 2);
  });

  it('tells apart the same relative target under different sources', () => {
    const m = new LineMemo(1 << 10);
    marks(m, chunkOf('http://a.example/dir/\tpage.html\n', 'tsv'));
    assert.deepEqual(marks(m, chunkOf('http://b.example/dir/\tpage.html\nhttp://a.example/dir/\tpage.html\n', 'tsv')), [SKIP_NONE, SKIP_MEMO]);
  });

  it('answers an absolute target whatever its source line says', () => {
    const m = new LineMemo(1 << 10);
    marks(m, chunkOf('http://a.example/\thttps://c.example/p\n', 'tsv'));
    assert.deepEqual(marks(m, chunkOf('http://z.example/other\thttps://c.example/p\n', 'tsv')), [SKIP_MEMO]);
  });

  it('forgets a line on request, so its next occurrence is parsed again', () => {
    const m = new LineMemo(1 << 10);
    const c = chunkOf('http://a.example/1\nhttp://a.example/2\n');
    marks(m, c);
    m.forget(1);
    assert.deepEqual(marks(m, chunkOf('http://a.example/1\nhttp://a.example/2\n')), [SKIP_MEMO, SKIP_NONE]);
  });

  it('keeps the newest lines of a full set and forgets the oldest', () => {
    const m = new LineMemo(MEMO_WAYS); // one set
    assert.equal(m.entries, MEMO_WAYS);
    const lines = Array.from({ length: MEMO_WAYS + 1 }, (_, i) => `http://a.example/${i}`);
    marks(m, chunkOf(lines.map((l) => `${l}\n`).join('')));
    assert.deepEqual(marks(m, chunkOf(`${lines[0]}\n`)), [SKIP_NONE]);
    assert.deepEqual(marks(m, chunkOf(`${lines[MEMO_WAYS]}\n`)), [SKIP_MEMO]);
  });

  it('keeps a line that keeps coming back while one-off lines pass through its set', () => {
    const m = new LineMemo(MEMO_WAYS); // one set
    const popular = 'http://a.example/popular';
    marks(m, chunkOf(`${popular}\n`));
    for (let i = 0; i < 4 * MEMO_WAYS; i++) {
      // Each one-off line pushes the oldest way out; a hit on the popular line moves it back to the front.
      marks(m, chunkOf(`http://a.example/once-${i}\n`));
      if (i % (MEMO_WAYS - 1) === MEMO_WAYS - 2) assert.deepEqual(marks(m, chunkOf(`${popular}\n`)), [SKIP_MEMO], `after ${i + 1} one-off lines`);
    }
  });

  it('forgets everything on clear() and answers nothing when sized 0', () => {
    const m = new LineMemo(1 << 10);
    marks(m, chunkOf('http://a.example/1\n'));
    m.clear();
    assert.deepEqual(marks(m, chunkOf('http://a.example/1\n')), [SKIP_NONE]);
    const off = new LineMemo(0);
    assert.equal(off.enabled, false);
    assert.equal(LineMemo.bytesFor(0), 0);
    assert.equal(LineMemo.bytesFor(1000), 512 * 8);
  });
});
