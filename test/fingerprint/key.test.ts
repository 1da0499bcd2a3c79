import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { expectedCollisions, hashRanges, hostMask, keyOfString, keysOfBatch } from '../../src/fingerprint/key.js';
import { murmur3x2 } from '../../src/fingerprint/hash.js';

function batch(urls: string[]): { bytes: Buffer; ends: Uint32Array; hs: Uint32Array; he: Uint32Array } {
  const bytes = Buffer.from(urls.join(''), 'latin1');
  const ends = new Uint32Array(urls.length);
  const hs = new Uint32Array(urls.length);
  const he = new Uint32Array(urls.length);
  let at = 0;
  urls.forEach((u, i) => {
    const s = u.indexOf('://') + 3;
    let e = s;
    while (e < u.length && u[e] !== '/') e++;
    hs[i] = at + s;
    he[i] = at + e;
    at += u.length;
    ends[i] = at;
  });
  return { bytes, ends, hs, he };
}

describe('keys', () => {
  it('gives every URL of one host the same top H bits', () => {
    for (const H of [8, 16, 24, 32]) {
      const a = keyOfString('http://www.example.com/a', H);
      const b = keyOfString('http://www.example.com/some/other?page=2', H);
      assert.equal((a[0] & hostMask(H)) >>> 0, (b[0] & hostMask(H)) >>> 0);
      assert.notDeepEqual(a, b);
    }
  });

  it('gives different hosts different top bits (almost always)', () => {
    const tops = new Set<number>();
    for (let i = 0; i < 1000; i++) tops.add(keyOfString(`http://host${i}.example/`, 24)[0] >>> 8);
    assert.ok(tops.size > 990, `only ${tops.size} distinct host prefixes`);
  });

  it('keeps no host bits when H is 0 and only host bits in the high word when H is 32', () => {
    const a0 = keyOfString('http://a.example/x', 0);
    const b0 = keyOfString('http://b.example/x', 0);
    assert.notEqual(a0[0], b0[0]);
    const a = keyOfString('http://a.example/x', 32);
    const b = keyOfString('http://a.example/y', 32);
    assert.equal(a[0], b[0]);
    assert.notEqual(a[1], b[1]);
  });

  it('computes the same keys for a batch as one URL at a time', () => {
    const urls = ['http://a.example/1', 'http://a.example/2', 'https://b.example:8080/x?y=1', 'http://a.example/1', 'http://c.example/'];
    const { bytes, ends, hs, he } = batch(urls);
    const keys = new Uint32Array(urls.length * 2);
    keysOfBatch(bytes, urls.length, ends, hs, he, 24, keys);
    urls.forEach((u, i) => assert.deepEqual([keys[2 * i], keys[2 * i + 1]], keyOfString(u, 24)));
  });

  it('computes the same keys at every byte alignment of the batch buffer, up to its last byte', () => {
    const urls: string[] = [];
    for (let i = 0; i < 40; i++) urls.push(`http://h${i % 3}.example${'x'.repeat(i % 7)}/${'p'.repeat(i)}?q=${i}`);
    for (let count = 36; count <= 40; count++) for (let shift = 0; shift < 8; shift++) {
      const { bytes, ends, hs, he } = batch(urls.slice(0, count));
      // A buffer whose URLs start `shift` bytes in and whose last URL ends at its last byte.
      const big = Buffer.alloc(shift + bytes.length);
      bytes.copy(big, shift);
      const view = shift % 2 === 0 ? big.subarray(shift) : Buffer.from(big.subarray(shift));
      for (const H of [0, 24, 32]) {
        const keys = new Uint32Array(count * 2);
        keysOfBatch(view, count, ends, hs, he, H, keys);
        urls.slice(0, count).forEach((u, i) => assert.deepEqual([keys[2 * i], keys[2 * i + 1]], keyOfString(u, H), `${u} shift ${shift} H ${H}`));
      }
    }
  });

  it('estimates collisions: one host of 2^20 URLs with 40 URL bits expects about 2^-1 pairs', () => {
    const n = 2 ** 20;
    const e = expectedCollisions(n, 24, [n]);
    assert.ok(Math.abs(e - (n * (n - 1)) / 2 / 2 ** 40) < 1e-9);
    assert.ok(expectedCollisions(n, 24, []) < e);
  });

  it('hashes ranges with gaps between them, at every byte offset of the view, as murmur3x2 does one by one', () => {
    const text = Buffer.from('http://a.example/x\tz\nhttps://b.example/longer/path?q=1\n\nabc\nhttp://c.example/abcdefgh\n');
    const starts = Uint32Array.from([0, 21, 55, 56, 60]);
    const ends = Uint32Array.from([18, 54, 55, 59, 84]);
    for (let off = 0; off < 8; off++) {
      const backing = Buffer.alloc(text.length + off + 3);
      text.copy(backing, off);
      const view = backing.subarray(off, off + text.length);
      const got = new Uint32Array(2 * starts.length);
      hashRanges(view, starts.length, starts, ends, 11, 22, got);
      const want = new Uint32Array(2 * starts.length);
      for (let i = 0; i < starts.length; i++) murmur3x2(view, starts[i]!, ends[i]!, 11, 22, want, 2 * i);
      assert.deepEqual(got, want, `view at byte offset ${off}`);
    }
  });
});
