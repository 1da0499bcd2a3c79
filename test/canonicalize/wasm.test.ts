// Differential tests of the WebAssembly canonicalization fast path against
// the TypeScript one, the reference: per URL both decline alike or write the
// same canonical bytes and host range, and whole batches (with the full path
// for declined lines, skip flags, custom tracking lists) are identical, on
// random URLs aimed at the fast path's branches, random bytes and the
// bundled 2008 archive.org outlinks; and without the .wasm the TypeScript
// path runs. Each test names the path it ran (t.diagnostic). Fixed seeds.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { compile } from '../../src/canonicalize/compiled.js';
import { fastCanonical } from '../../src/canonicalize/fast.js';
import { BatchScratch, canonicalizeBatch, resolvePolicy, type CanonicalPolicy } from '../../src/canonicalize/index.js';
import { fastPathKind, loadFastWasm, resetFastWasm, runFastWasm, WASM_FILE } from '../../src/canonicalize/wasm.js';
import type { LineChunk } from '../../src/input/types.js';
import { chunkOf, type Line } from './chunk.js';
import { anyUrlArb, pick, policyArb, sameBatch } from './url-arbs.js';

const SAMPLE = path.resolve(process.cwd(), 'data/archive-org-2008-outlinks.tsv.gz');
const built = existsSync(WASM_FILE);

function sayPath(t: TestContext): void {
  const k = fastPathKind();
  t.diagnostic(`fast path: ${k.kind}${k.reason === '' ? '' : ` (${k.reason})`}`);
}

/** Per line, TypeScript fastCanonical and the WebAssembly run agree: both decline, or the same bytes and host range. Returns lines taken. */
function sameLines(chunk: LineChunk, p: CanonicalPolicy): number {
  const w = runFastWasm(chunk, compile(p), null);
  assert.ok(w !== null, 'the WebAssembly module is not loaded');
  const out = Buffer.alloc(chunk.buf.length + 2);
  const hs = new Uint32Array(1);
  const he = new Uint32Array(1);
  let taken = 0;
  let wpos = 0;
  for (let i = 0; i < chunk.count; i++) {
    const s = chunk.urlStarts[i]!;
    const e = chunk.urlEnds[i]!;
    const end = fastCanonical(chunk.buf, s, e, out, 0, compile(p), hs, he, 0);
    const we: number = w.ends[i]!;
    const what = chunk.buf.toString('latin1', s, e);
    if (end < 0) {
      assert.equal(we, -1, `TypeScript declines, WebAssembly does not: ${what}`);
      continue;
    }
    assert.notEqual(we, -1, `WebAssembly declines, TypeScript does not: ${what}`);
    assert.equal(Buffer.from(w.bytes.subarray(wpos, we)).toString('latin1'), out.toString('latin1', 0, end), what);
    assert.deepEqual([w.hostStarts[i]! - wpos, w.hostEnds[i]! - wpos], [hs[0], he[0]], what);
    wpos = we;
    taken++;
  }
  return taken;
}

function sampleLines(): Line[] {
  return gunzipSync(readFileSync(SAMPLE)).toString('utf8').split('\n').slice(1).filter((l) => l.length > 0).map((l) => {
    const [src, dst] = l.split('\t');
    return [src!, dst!] as [string, string];
  });
}

describe('WebAssembly fast path', { skip: built ? false : `${WASM_FILE.pathname} is not built (npm run build)` }, () => {
  it('loads in this build', (t) => {
    sayPath(t);
    assert.equal(fastPathKind().kind, 'wasm');
  });

  it('declines or writes exactly what the TypeScript fast path writes, URL by URL, under every flag combination', (t) => {
    sayPath(t);
    let taken = 0;
    fc.assert(fc.property(fc.array(anyUrlArb, { minLength: 1, maxLength: 30 }), policyArb, (urls, p) => {
      taken += sameLines(chunkOf(urls), p);
    }), { seed: 4242, numRuns: 400 });
    assert.ok(taken > 1000, `fast path taken only ${taken} times`);
  });

  it('drops parameters like the TypeScript path under custom tracking lists', (t) => {
    sayPath(t);
    const params = fc.array(fc.tuple(pick(['a', 'Ab', 'x_1', 'utm_q', 'sid', 'SID', '', 'jsessionid', 'ASPSESSIONIDx', 'longer_name_than_thirty_one_bytes_x']),
      pick(['', '=', '=1', '=0123456789abcdefgh', '=0123456789abcdef-', '=%41%42'])).map(([n, v]) => n + v), { maxLength: 5 });
    const lists = pick(['a', 'ab*', 'x_*', 'longer_name_than_thirty_one_bytes_x', '*', 'sid', 'Q', 'p*']);
    let taken = 0;
    fc.assert(fc.property(fc.array(params, { minLength: 1, maxLength: 5 }), fc.array(lists, { maxLength: 3 }), (qs, tp) => {
      const p = resolvePolicy({ trackingParams: tp });
      const urls = qs.map((ps, j) => `http://a${j}.com/p;${ps[0] ?? 'x=1'};sid=0123456789abcdef0123/q?` + ps.join('&'));
      taken += sameLines(chunkOf(urls), p);
    }), { seed: 4242, numRuns: 300 });
    assert.ok(taken > 500, `fast path taken only ${taken} times`);
  });

  it('sorts long unsorted queries like the TypeScript path and declines beyond 256 parameters', (t) => {
    sayPath(t);
    const urls = [100, 256, 257, 300].map((n) => `http://a.com/p?${Array.from({ length: n }, (_, j) => `k${(j * 7919) % n}=${j}`).join('&')}`);
    assert.equal(sameLines(chunkOf(urls), resolvePolicy()), 2);
  });

  it('gives the same batches as the TypeScript path on random bytes, with lines passed over', (t) => {
    sayPath(t);
    const bytesArb = fc.oneof(
      anyUrlArb.map((s) => Buffer.from(s)),
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.concat([Buffer.from('http://a.com/'), Buffer.from(b.filter((x) => x !== 10))])),
      fc.constant(Buffer.alloc(0)),
    );
    fc.assert(fc.property(fc.array(fc.tuple(bytesArb, fc.boolean()), { minLength: 1, maxLength: 30 }), policyArb, (rows, p) => {
      const chunk = chunkOf(rows.map((r) => r[0]));
      const skip = Uint8Array.from(rows.map((r) => (r[1] ? 1 : 0)));
      for (const s of [null, skip]) {
        sameBatch(canonicalizeBatch(chunk, p, undefined, { skip: s, wasm: true }), canonicalizeBatch(chunk, p, undefined, { skip: s, wasm: false }));
      }
    }), { seed: 4242, numRuns: 400 });
  });

  it('gives the same batches and URLs on the 2008 archive.org outlinks, most of them via the fast path', (t) => {
    sayPath(t);
    const lines = sampleLines();
    const p = resolvePolicy();
    const all = resolvePolicy({ stripWww: true, foldHttps: true, stripIndex: true, lowercasePath: true });
    for (const policy of [p, all]) {
      for (let j = 0; j < lines.length; j += 1000) {
        const chunk = chunkOf(lines.slice(j, j + 1000));
        // Reused scratch on one side: a batch must not depend on the buffers' previous contents.
        sameBatch(canonicalizeBatch(chunk, policy, undefined, { wasm: true }), canonicalizeBatch(chunk, policy, new BatchScratch(), { wasm: false }));
      }
    }
    const taken = sameLines(chunkOf(lines.map((l) => (l as [string, string])[1])), p);
    t.diagnostic(`fast path took ${taken} of ${lines.length} outlinks`);
    assert.ok(taken > lines.length / 2);
  });
});

describe('without the WebAssembly module', () => {
  it('runs the TypeScript fast path and gives the same batch', (t) => {
    resetFastWasm();
    try {
      assert.equal(loadFastWasm(new URL('./no-such-file.wasm', WASM_FILE)), null);
      sayPath(t);
      assert.equal(fastPathKind().kind, 'ts');
      const chunk = chunkOf(['HTTP://Example.COM:80/a/./b?b=2&a=1#x', 'http://a.com/?utm_source=x&q=1', 'mailto:x@y', '']);
      const b = canonicalizeBatch(chunk, resolvePolicy());
      sameBatch(b, canonicalizeBatch(chunk, resolvePolicy(), undefined, { fast: false }));
      assert.equal(b.bytes.toString('latin1'), 'http://example.com/a/b?a=1&b=2http://a.com/?q=1');
    } finally {
      resetFastWasm();
    }
  });
});
