import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { resolvePolicy } from '../../../src/canonicalize/policy.js';
import { Parser } from '../../../src/engine/pipeline/parse.js';
import { LineSplitter } from '../../../src/input/split.js';
import type { LineChunk } from '../../../src/input/types.js';

// Raw lines: canonical URLs, variants of them, rejects, relative targets, one URL too long for the aux log.
const LONG = `http://long.example/${'x'.repeat(70_000)}`;
const TARGETS = [
  'http://a.example/1', 'HTTP://A.example:80/1#top', 'http://a.example/2?b=2&a=1', 'http://a.example/2?a=1&b=2',
  'http://b.example/', 'http://b.example', 'mailto:x@y.example', 'http://bad host.example/', 'ftp://c.example/f',
  'page.html', '../up.html', '', LONG,
];
const SOURCES = ['http://a.example/dir/', 'http://b.example/x/y'];

/** Rows as TSV (source, target) or, with tsv false, as plain lines of targets; small chunks. */
function chunksOf(rows: [number, number][], tsv: boolean): LineChunk[] {
  const text = rows.map(([s, t]) => (tsv ? `${SOURCES[s]}\t${TARGETS[t]}\n` : `${TARGETS[t]}\n`)).join('');
  const sp = new LineSplitter({ input: 0, format: tsv ? 'tsv' : 'lines', maxLineBytes: 1 << 20, chunkBytes: 256, headerCheck: false });
  return [...sp.push(Buffer.from(text)), ...sp.end()];
}

interface Seen { urls: Map<number, string>; rejects: Map<number, string>; skipped: number }

function run(parser: Parser, chunks: LineChunk[]): Seen {
  const out: Seen = { urls: new Map(), rejects: new Map(), skipped: 0 };
  for (const c of chunks) {
    const p = parser.parse(c);
    const b = p.batch;
    let start = 0;
    for (let k = 0; k < b.count; k++) {
      out.urls.set(b.lines[k]!, b.bytes.toString('latin1', start, b.ends[k]));
      start = b.ends[k]!;
    }
    for (const r of p.rejects) out.rejects.set(r.line, r.reason);
    out.skipped += p.lineRepeats;
  }
  return out;
}

describe('Parser with a line memo', () => {
  it('answers only lines whose URL an earlier line gave, and rejects every repeat of a rejected line', () => {
    const policy = resolvePolicy({ maxLineBytes: 1 << 20 });
    let answered = 0;
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat({ max: SOURCES.length - 1 }), fc.nat({ max: TARGETS.length - 1 })), { minLength: 30, maxLength: 120 }),
        fc.constantFrom(4, 16, 1 << 10),
        fc.boolean(),
        (rows, entries, tsv) => {
          const plain = run(new Parser(policy, 24), chunksOf(rows, tsv));
          const memo = run(new Parser(policy, 24, entries), chunksOf(rows, tsv));
          // Same rejects, line for line.
          assert.deepEqual([...memo.rejects].sort(), [...plain.rejects].sort());
          // A line the memo answered has a URL that an earlier accepted line already gave; the rest are parsed the same.
          const firstLine = new Map<string, number>();
          for (const [line, url] of [...plain.urls].sort((x, y) => x[0] - y[0])) if (!firstLine.has(url)) firstLine.set(url, line);
          let skipped = 0;
          for (const [line, url] of plain.urls) {
            const got = memo.urls.get(line);
            if (got !== undefined) {
              assert.equal(got, url);
              continue;
            }
            skipped++;
            assert.ok(firstLine.get(url)! < line, `line ${line} answered without an earlier ${url}`);
            assert.ok(url.length <= 0xffff, 'a URL too long for the aux log is never answered');
          }
          assert.equal(memo.skipped, skipped);
          assert.equal(plain.skipped, 0);
          answered += memo.skipped;
        },
      ),
      { seed: 4242, numRuns: 150 },
    );
    assert.ok(answered > 1000, `the memo answered only ${answered} lines in all runs`);
  });

  it('answers most repeats of a crawl-like stream before canonicalizing them', () => {
    const rows: [number, number][] = Array.from({ length: 400 }, (_, i) => [0, (i * 7) % 5]);
    const parser = new Parser(resolvePolicy({}), 24, 1 << 10);
    const seen = run(parser, chunksOf(rows, false));
    assert.equal(seen.urls.size + seen.skipped, 400);
    assert.ok(seen.skipped >= 390, `only ${seen.skipped} answered`);
    assert.equal(parser.memo.hits, seen.skipped);
  });
});
