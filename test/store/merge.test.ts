import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { DrumFs } from '../../src/io/fs.js';
import { KeyReader } from '../../src/store/key-reader.js';
import { KeyWriter } from '../../src/store/key-writer.js';
import { mergeBucket } from '../../src/store/merge.js';
import { tempDir } from '../helpers/tmp.js';

const big = (hi: number, lo: number): bigint => (BigInt(hi) << 32n) | BigInt(lo);
const key = fc.tuple(fc.nat({ max: 50 }), fc.nat({ max: 20000 }));

function writeStore(path: string, keys: bigint[]): void {
  const w = new KeyWriter(new DrumFs(), path, 0, null, false);
  for (const k of keys) w.push(Number(k >> 32n), Number(k & 0xffffffffn));
  w.finish();
}

describe('mergeBucket', () => {
  it('marks exactly the pending keys missing from the store as new and writes the sorted union', () => {
    const dir = tempDir();
    let run = 0;
    fc.assert(
      fc.property(fc.array(key, { maxLength: 400 }), fc.array(key, { maxLength: 200 }), (storePairs, pendPairs) => {
        const storeSet = new Set(storePairs.map(([h, l]) => big(h, l)));
        const store = [...storeSet].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const pendMap = new Map<bigint, number>();
        pendPairs.forEach(([h, l], i) => { if (!pendMap.has(big(h, l))) pendMap.set(big(h, l), i); });
        const pend = [...pendMap.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        const src = join(dir, `s${run}.keys`);
        const dst = join(dir, `d${run++}.keys`);
        writeStore(src, store);
        const dfs = new DrumFs();
        const reader = store.length ? KeyReader.open(dfs, src, { bucket: 0, keys: store.length }, fs.statSync(src).size) : null;
        const writer = new KeyWriter(dfs, dst, 0, null, false);
        const newBits = new Uint8Array(64);
        const r = mergeBucket({
          hi: Uint32Array.from(pend.map((p) => Number(p[0] >> 32n))),
          lo: Uint32Array.from(pend.map((p) => Number(p[0] & 0xffffffffn))),
          ord: Uint32Array.from(pend.map((p) => p[1])),
          n: pend.length,
        }, reader, writer, newBits, null);
        reader?.close();
        const written = writer.finish();
        const expectNew = pend.filter((p) => !storeSet.has(p[0])).map((p) => p[1]).sort((a, b) => a - b);
        const gotNew: number[] = [];
        for (let i = 0; i < 512; i++) if ((newBits[i >>> 3]! >>> (i & 7)) & 1) gotNew.push(i);
        assert.deepEqual(gotNew, expectNew);
        assert.equal(r.newKeys, expectNew.length);
        assert.equal(r.hits, pend.length - expectNew.length);
        const union = new Set([...storeSet, ...pendMap.keys()]);
        assert.equal(written.keys, union.size);
        const rr = KeyReader.open(dfs, dst, { bucket: 0, keys: union.size }, fs.statSync(dst).size);
        const out: bigint[] = [];
        while (rr.nextBlock()) for (let i = 0; i < rr.n; i++) out.push(big(rr.keys[2 * i]!, rr.keys[2 * i + 1]!));
        rr.close();
        assert.deepEqual(out, [...union].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      }),
      { seed: 4242, numRuns: 120 },
    );
  });
});
