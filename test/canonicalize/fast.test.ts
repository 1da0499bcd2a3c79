// Properties of the byte fast path and of canonicalization as a whole: the
// fast path either declines or equals the full path byte for byte (random
// URL-ish strings, random bytes, real Heritrix links), and canonicalization
// is idempotent. Fixed fast-check seeds; no timing assertions.

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { compile } from '../../src/canonicalize/compiled.js';
import { fastCanonical } from '../../src/canonicalize/fast.js';
import {
  canonicalizeBatch, canonicalizeString, resolvePolicy, type CanonicalPolicy,
} from '../../src/canonicalize/index.js';
import { chunkOf, type Line } from './chunk.js';
import { anyUrlArb, pick, policyArb, sameBatch } from './url-arbs.js';

const OUTLINKS = path.resolve(process.cwd(), '../shared/datasets/heritrix-archive-org-2008/outlinks.tsv');

/** Runs the fast path alone on a string; null when it declines. */
function fast(s: string, policy: CanonicalPolicy): { url: string; hostStart: number; hostEnd: number } | null {
  const src = Buffer.from(s, 'utf8');
  const out = Buffer.alloc(src.length + 2);
  const hs = new Uint32Array(1);
  const he = new Uint32Array(1);
  const end = fastCanonical(src, 0, src.length, out, 0, compile(policy), hs, he, 0);
  return end < 0 ? null : { url: out.toString('latin1', 0, end), hostStart: hs[0]!, hostEnd: he[0]! };
}

describe('fast path', () => {
  it('takes plain, already canonical-looking links', () => {
    const p = resolvePolicy();
    for (const s of ['http://www.example.com/', 'https://a.b.c/x/y.html?a=1&b=2#top', 'http://A.COM:8080/P?q', 'http://a.com./', 'http://a.com:80/',
      'http://a.com/a%2f%c3%a9?q=%3d%3D&b=1&a=2&a=1']) {
      const f = fast(s, p);
      assert.ok(f !== null, s);
      assert.deepEqual(f, canonicalizeString(s, null, p));
    }
  });

  it('declines links it cannot canonicalize byte for byte', () => {
    const p = resolvePolicy();
    for (const s of ['http://a.com/%7e', 'http://a.com/a/../b', 'http://a.com/%', 'http://a.com/%4', 'http://1.2.3.4/',
      'http://xn--mnchen-3ya.de/', 'HTTP://a.com/', 'http://u@a.com/', ' http://a.com/', 'http://a.com/.;jsessionid=1/x', 'http://a.com/x/..;cfid=2']) {
      assert.equal(fast(s, p), null, s);
    }
  });

  it('drops tracking and session parameters and empty params itself, like the full path', () => {
    const p = resolvePolicy();
    const cases: [string, string][] = [
      ['http://a.com/?utm_source=1', 'http://a.com/'],
      ['http://a.com/;jsessionid=1', 'http://a.com/'],
      ['http://a.com/?sid=1', 'http://a.com/?sid=1'],
      ['http://a.com/?sid=0123456789abcdef', 'http://a.com/'],
      ['http://a.com/x;JSESSIONID=A;b=2/y;c?UTM_x=1&&b=1&PHPSESSID=z&a', 'http://a.com/x;b=2/y;c?a&b=1'],
      ['http://a.com/p;aspsessionidQX=1;sid=1?&&', 'http://a.com/p;sid=1'],
      ['http://a.com/?gclid=1&fbclid=2#f', 'http://a.com/'],
      ['http://a.com/p?%2A=2&=1&utm_%2A=3', 'http://a.com/p?=1&%2A=2'],
    ];
    for (const [s, want] of cases) {
      const f = fast(s, p);
      assert.ok(f !== null, s);
      assert.equal(f.url, want, s);
      assert.deepEqual(f, canonicalizeString(s, null, p));
    }
  });

  it('drops like the full path under custom tracking lists, including a bare `*`', () => {
    const params = fc.array(fc.tuple(pick(['a', 'Ab', 'x_1', 'utm_q', 'sid', '', 'longer_name_than_thirty_one_bytes_x']), pick(['', '=', '=1', '=0123456789abcdefgh'])).map(([n, v]) => n + v), { maxLength: 5 });
    const lists = pick(['a', 'ab*', 'x_*', 'longer_name_than_thirty_one_bytes_x', '*', 'sid']);
    fc.assert(fc.property(params, fc.array(lists, { maxLength: 3 }), (ps, tp) => {
      const p = resolvePolicy({ trackingParams: tp });
      const s = 'http://a.com/p;sid=0123456789abcdef0123;x=1?' + ps.join('&');
      const f = fast(s, p);
      assert.ok(f !== null, s);
      assert.deepEqual(f, canonicalizeString(s, null, p), s);
    }), { seed: 4242, numRuns: 500 });
  });

  it('sorts long unsorted queries like the full path and declines beyond 256 parameters', () => {
    const p = resolvePolicy();
    for (const n of [200, 300]) {
      const q = Array.from({ length: n }, (_, j) => `k${(j * 7919) % n}=${j}`).join('&');
      const s = `http://a.com/p?${q}`;
      const f = fast(s, p);
      if (n <= 256) assert.deepEqual(f, canonicalizeString(s, null, p));
      else assert.equal(f, null);
    }
  });

  it('equals the full path on random URL-ish strings under every flag combination', () => {
    let taken = 0;
    fc.assert(fc.property(anyUrlArb, policyArb, (s, p) => {
      const f = fast(s, p);
      if (f === null) return;
      taken++;
      assert.deepEqual(f, canonicalizeString(s, null, p), s);
    }), { seed: 4242, numRuns: 3000 });
    assert.ok(taken > 500, `fast path taken only ${taken} times`);
  });

  it('gives the same batch with and without the fast path on random bytes', () => {
    const bytesArb = fc.oneof(
      anyUrlArb.map((s) => Buffer.from(s)),
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.concat([Buffer.from('http://a.com/'), Buffer.from(b.filter((x) => x !== 10))])),
    );
    fc.assert(fc.property(fc.array(bytesArb, { minLength: 1, maxLength: 20 }), policyArb, (fields, p) => {
      const chunk = chunkOf(fields);
      sameBatch(canonicalizeBatch(chunk, p), canonicalizeBatch(chunk, p, undefined, { fast: false }));
    }), { seed: 4242, numRuns: 300 });
  });
});

describe('idempotence', () => {
  it('canonicalizing a canonical URL returns it unchanged, under every flag combination', () => {
    fc.assert(fc.property(anyUrlArb, policyArb, (s, p) => {
      const r = canonicalizeString(s, null, p);
      if (typeof r === 'string') return;
      assert.deepEqual(canonicalizeString(r.url, null, p), r, `${s} -> ${r.url}`);
      assert.match(r.url, /^[\x21-\x7e]+$/);
    }), { seed: 4242, numRuns: 3000 });
  });
});

describe('real links (Heritrix 2008 outlinks.tsv)', { skip: !existsSync(OUTLINKS) }, () => {
  const lines: Line[] = existsSync(OUTLINKS)
    ? readFileSync(OUTLINKS, 'utf8').split('\n').slice(1).filter((l) => l.length > 0).map((l) => {
      const [src, dst] = l.split('\t');
      return [src!, dst!] as [string, string];
    })
    : [];

  it('gives identical batches with and without the fast path, mostly via the fast path', () => {
    const chunk = chunkOf(lines);
    const p = resolvePolicy();
    const withFast = canonicalizeBatch(chunk, p);
    sameBatch(withFast, canonicalizeBatch(chunk, p, undefined, { fast: false }));
    assert.equal(withFast.count + withFast.rejects.length, lines.length);
    let taken = 0;
    const c = compile(p);
    const out = Buffer.alloc(4096);
    const h = new Uint32Array(1);
    for (let i = 0; i < chunk.count; i++) {
      if (fastCanonical(chunk.buf, chunk.urlStarts[i]!, chunk.urlEnds[i]!, out, 0, c, h, h, 0) >= 0) taken++;
    }
    assert.ok(taken > lines.length / 2, `fast path took ${taken} of ${lines.length}`);
  });

  it('is idempotent on every real link under the default and all-flags policies', () => {
    for (const p of [resolvePolicy(), resolvePolicy({ stripWww: true, foldHttps: true, stripIndex: true, lowercasePath: true })]) {
      for (const l of lines) {
        const [src, dst] = l as [string, string];
        const r = canonicalizeString(dst, src, p);
        if (typeof r === 'string') continue;
        assert.deepEqual(canonicalizeString(r.url, null, p), r, dst);
      }
    }
  });
});
