// Tests of pack.ts: a chunk or a parse result packed into a slab (dirty
// from earlier use, and reused chunk after chunk) reads back exactly as the
// original, also after crossing a transfer and unpack.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { resolvePolicy } from '../../../src/canonicalize/policy.js';
import { chunkSlabBytes, packChunk, packParsed, parsedSlabBytes, unpackChunk, unpackParsed } from '../../../src/engine/pipeline/pack.js';
import { Parser, type ParsedChunk } from '../../../src/engine/pipeline/parse.js';
import { LineSplitter } from '../../../src/input/split.js';
import type { LineChunk } from '../../../src/input/types.js';
import { flatten } from '../../input/helpers.js';

const LINES = [
  'http://a.example/1', 'HTTP://A.example:80/1#x', 'http://b.example', 'mailto:x@y.example', 'http://bad host.example/',
  'page.html', '', '# c', 'http://c.example/\u00e9t\u00e9?q=%41', 'x'.repeat(90), 'http://a.example/1',
];

function chunksOf(idx: number[], tsv: boolean, chunkBytes: number): LineChunk[] {
  const text = idx.map((i) => (tsv ? `http://s.example/d/\t${LINES[i]}\n` : `${LINES[i]}\n`)).join('');
  const sp = new LineSplitter({ input: 3, format: tsv ? 'tsv' : 'lines', maxLineBytes: 80, chunkBytes, headerCheck: false });
  return [...sp.push(Buffer.from(text)), ...sp.end()];
}

/** Everything a consumer reads from a parse result, as plain values. */
function view(p: ParsedChunk): unknown {
  const b = p.batch;
  const n = b.count;
  return {
    n, bytes: b.bytes.toString('latin1', 0, n === 0 ? 0 : b.ends[n - 1]), ends: [...b.ends.subarray(0, n)],
    hostStarts: [...b.hostStarts.subarray(0, n)], hostEnds: [...b.hostEnds.subarray(0, n)], lines: [...b.lines.subarray(0, n)],
    keys: [...p.keys.subarray(0, 2 * n)], repeats: [...p.repeats.subarray(0, n)], repeatCount: p.repeatCount,
    rejects: p.rejects.map((r) => [r.line, r.input, r.reason, r.excerpt.toString('latin1')]),
    input: p.input, endOffset: p.endOffset, endLine: p.endLine, lineRepeats: p.lineRepeats,
  };
}

const dirty = (bytes: number): ArrayBuffer => {
  const s = new ArrayBuffer(bytes);
  new Uint8Array(s).fill(0xab);
  return s;
};

describe('pack', () => {
  it('packs chunk after chunk into one dirty slab, each reading back as the original (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: LINES.length - 1 }), { maxLength: 80 }), fc.boolean(), fc.constantFrom(16, 64, 512),
        (idx, tsv, chunkBytes) => {
          const slab = dirty(1 << 16);
          for (const c of chunksOf(idx, tsv, chunkBytes)) {
            assert.ok(chunkSlabBytes(c) <= slab.byteLength);
            const packed = packChunk(c, slab);
            assert.equal(packed.buf.buffer, slab);
            assert.deepEqual(flatten([packed]).links, flatten([c]).links);
            assert.deepEqual(flatten([packed]).rejects, flatten([c]).rejects);
            assert.deepEqual([packed.endOffset, packed.endLine, packed.input], [c.endOffset, c.endLine, c.input]);
          }
        },
      ),
      { seed: 4242, numRuns: 200 },
    );
  });

  it('packs a parse result whose every array, byte and reject matches the parser\'s (fast-check)', () => {
    const policy = resolvePolicy({ maxLineBytes: 80 });
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: LINES.length - 1 }), { maxLength: 80 }), fc.boolean(), fc.constantFrom(16, 64, 512),
        (idx, tsv, chunkBytes) => {
          const parser = new Parser(policy, 24, 64);
          const slab = dirty(1 << 16);
          for (const c of chunksOf(idx, tsv, chunkBytes)) {
            const p = parser.parse(c);
            assert.ok(parsedSlabBytes(p) <= slab.byteLength);
            const packed = packParsed(p, slab);
            assert.equal(packed.slab, slab);
            assert.deepEqual(view(packed), view(p));
          }
        },
      ),
      { seed: 4242, numRuns: 200 },
    );
  });

  it('crosses a transfer: unpack gives Buffers over the transferred slab, with the same contents', () => {
    const [c] = chunksOf([0, 3, 5, 9, 2], false, 4096);
    const slab = new ArrayBuffer(chunkSlabBytes(c!));
    const sent = packChunk(c!, slab);
    const got = unpackChunk(structuredClone(sent, { transfer: [slab] }));
    assert.equal(slab.byteLength, 0, 'the sender lost the slab');
    assert.ok(Buffer.isBuffer(got.buf) && got.rejects.every((r) => Buffer.isBuffer(r.excerpt)));
    assert.deepEqual(flatten([got]).links, flatten([c!]).links);
    const p = new Parser(resolvePolicy({ maxLineBytes: 80 }), 24).parse(got);
    const out = new ArrayBuffer(parsedSlabBytes(p));
    const want = view(p);
    const back = unpackParsed(structuredClone(packParsed(p, out), { transfer: [out] }));
    assert.ok(Buffer.isBuffer(back.batch.bytes) && back.slab instanceof ArrayBuffer && back.batch.bytes.buffer === back.slab);
    assert.deepEqual(view(back), want);
  });
});
