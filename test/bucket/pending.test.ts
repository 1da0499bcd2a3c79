import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PendingBuckets } from '../../src/bucket/pending.js';
import { DrumFs } from '../../src/io/fs.js';
import { tempDir } from '../helpers/tmp.js';

describe('PendingBuckets', () => {
  it('spills a full RAM buffer to disk and loads spilled and RAM entries back in arrival order', () => {
    const dfs = new DrumFs();
    const p = new PendingBuckets(dfs, tempDir(), 2, 4); // 4 buckets, 4 entries per buffer
    const hiOf = (b: number, i: number): number => ((b << 30) | i) >>> 0;
    for (let i = 0; i < 11; i++) p.add(hiOf(1, i), i * 10, i);
    p.add(hiOf(2, 0), 1, 11);
    assert.equal(p.total, 12);
    assert.equal(p.spillWrites, 2);
    assert.equal(p.totals[1], 11);
    const hi = new Uint32Array(16), lo = new Uint32Array(16), ord = new Uint32Array(16);
    const n = p.load(1, hi, lo, ord, null, new Uint8Array(64));
    assert.equal(n, 11);
    assert.deepEqual([...ord.subarray(0, n)], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert.deepEqual([...lo.subarray(0, n)], [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    p.reset();
    assert.equal(p.total, 0);
    assert.equal(p.load(1, hi, lo, ord, null, new Uint8Array(64)), 0);
  });

  it('carries each key\'s seed through spill file and RAM buffer, in arrival order, in a store with values', () => {
    const dfs = new DrumFs();
    const p = new PendingBuckets(dfs, tempDir(), 1, 3, true); // 2 buckets, 3 entries per buffer
    for (let i = 0; i < 10; i++) p.add(i % 2 === 0 ? 5 : 0x80000005, i, i, 1000 + i);
    assert.equal(p.bytes, 2 * 3 * 16);
    const hi = new Uint32Array(8), lo = new Uint32Array(8), ord = new Uint32Array(8), seed = new Uint32Array(8);
    const n = p.load(1, hi, lo, ord, seed, new Uint8Array(32));
    assert.equal(n, 5);
    assert.deepEqual([...ord.subarray(0, n)], [1, 3, 5, 7, 9]);
    assert.deepEqual([...seed.subarray(0, n)], [1001, 1003, 1005, 1007, 1009]);
    const s = p.loadSlice(0, { lowerHi: 5, lowerLo: 4, upperHi: 0, upperLo: 0, unbounded: true, count: 3, single: false }, hi, lo, ord, seed, new Uint8Array(32));
    assert.deepEqual(s, { seen: 3, loaded: 3 });
    assert.deepEqual([...seed.subarray(0, 3)], [1004, 1006, 1008]);
  });
});

