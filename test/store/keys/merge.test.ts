import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { DrumFs } from '../../../src/io/fs.js';
import { KeyReader } from '../../../src/store/keys/key-reader.js';
import { KeyWriter } from '../../../src/store/keys/key-writer.js';
import { BucketMerge, mergeBucket } from '../../../src/store/keys/merge.js';
import { tempDir } from '../../helpers/tmp.js';

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

  it('gives the same new bits and union when the pending keys arrive in several ascending slices', () => {
    const dir = tempDir();
    let run = 0;
    fc.assert(
      fc.property(fc.array(key, { maxLength: 400 }), fc.array(key, { maxLength: 300 }), fc.array(fc.nat({ max: 300 }), { maxLength: 6 }), (storePairs, pendPairs, cuts) => {
        const store = [...new Set(storePairs.map(([h, l]) => big(h, l)))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const pendMap = new Map<bigint, number>();
        pendPairs.forEach(([h, l], i) => { if (!pendMap.has(big(h, l))) pendMap.set(big(h, l), i); });
        const pend = [...pendMap.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        const hi = Uint32Array.from(pend.map((p) => Number(p[0] >> 32n)));
        const lo = Uint32Array.from(pend.map((p) => Number(p[0] & 0xffffffffn)));
        const ord = Uint32Array.from(pend.map((p) => p[1]));
        const src = join(dir, `s${run}.keys`);
        writeStore(src, store);
        const dfs = new DrumFs();
        const open = () => (store.length ? KeyReader.open(dfs, src, { bucket: 0, keys: store.length }, fs.statSync(src).size) : null);
        const outputs: { bits: Uint8Array; keys: bigint[]; r: unknown }[] = [];
        for (const sliced of [false, true]) {
          const dst = join(dir, `d${run}-${sliced}.keys`);
          const reader = open();
          const writer = new KeyWriter(dfs, dst, 0, null, false);
          const bits = new Uint8Array(64);
          let r;
          if (!sliced) {
            r = mergeBucket({ hi, lo, ord, n: pend.length }, reader, writer, bits, null);
          } else {
            const m = new BucketMerge(reader, writer, bits, null);
            const at = [...new Set([0, ...cuts.map((c) => Math.min(c, pend.length)), pend.length])].sort((a, b) => a - b);
            for (let k = 0; k + 1 < at.length; k++) {
              m.add({ hi: hi.subarray(at[k]), lo: lo.subarray(at[k]), ord: ord.subarray(at[k]), n: at[k + 1]! - at[k]! });
            }
            r = m.finish();
          }
          reader?.close();
          const w = writer.finish();
          const rr = KeyReader.open(dfs, dst, { bucket: 0, keys: w.keys }, fs.statSync(dst).size);
          const keys: bigint[] = [];
          while (rr.nextBlock()) for (let i = 0; i < rr.n; i++) keys.push(big(rr.keys[2 * i]!, rr.keys[2 * i + 1]!));
          rr.close();
          outputs.push({ bits, keys, r });
        }
        run++;
        assert.deepEqual(outputs[1], outputs[0]);
      }),
      { seed: 4242, numRuns: 120 },
    );
  });

  it('keeps its place across store blocks between slices (a 30,000-key store, slices cut anywhere)', () => {
    const dir = tempDir();
    const store = Array.from({ length: 30000 }, (_, i) => BigInt(i) * 4n);
    const src = join(dir, 'big.keys');
    writeStore(src, store);
    // Pending: every 3rd multiple of 2 up to 130,000 (hits where divisible by 4), ordinal = index.
    const pend = Array.from({ length: 21667 }, (_, i) => BigInt(i) * 6n);
    const hi = Uint32Array.from(pend.map((k) => Number(k >> 32n)));
    const lo = Uint32Array.from(pend.map((k) => Number(k & 0xffffffffn)));
    const ord = Uint32Array.from(pend.map((_, i) => i));
    const dfs = new DrumFs();
    const results = [1, 3, 997, 8191, 8192, 20000].map((step) => {
      const reader = KeyReader.open(dfs, src, { bucket: 0, keys: store.length }, fs.statSync(src).size);
      const dst = join(dir, `out-${step}.keys`);
      const writer = new KeyWriter(dfs, dst, 0, null, false);
      const bits = new Uint8Array((pend.length >>> 3) + 1);
      const m = new BucketMerge(reader, writer, bits, null);
      for (let at = 0; at < pend.length; at += step) {
        const n = Math.min(step, pend.length - at);
        m.add({ hi: hi.subarray(at), lo: lo.subarray(at), ord: ord.subarray(at), n });
      }
      const r = m.finish();
      reader.close();
      const w = writer.finish();
      return { r, keys: w.keys, crc: w.crc, bits: Buffer.from(bits).toString('base64') };
    });
    const hits = pend.filter((k) => k % 4n === 0n && k / 4n < 30000n).length;
    assert.equal(results[0]!.r.hits, hits);
    assert.equal(results[0]!.keys, 30000 + pend.length - hits);
    for (const x of results) assert.deepEqual(x, results[0]);
  });

  it('drops exactly the pending keys it finds, marks their ordinals and ignores the others, in any slices (delete)', () => {
    const dir = tempDir();
    let run = 0;
    // Keys dense enough that a 20,000-key store spans several blocks and most pending keys are found.
    const dense = fc.tuple(fc.nat({ max: 1 }), fc.nat({ max: 30000 }));
    fc.assert(
      fc.property(fc.uniqueArray(dense, { minLength: 0, maxLength: 20000, selector: ([h, l]) => h * 65536 + l }), fc.array(dense, { maxLength: 300 }), fc.array(fc.nat({ max: 300 }), { maxLength: 4 }), (storePairs, pendPairs, cuts) => {
        const storeSet = new Set(storePairs.map(([h, l]) => big(h, l)));
        const store = [...storeSet].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        const pendMap = new Map<bigint, number>();
        pendPairs.forEach(([h, l], i) => { if (!pendMap.has(big(h, l))) pendMap.set(big(h, l), i); });
        const pend = [...pendMap.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
        const hi = Uint32Array.from(pend.map((p) => Number(p[0] >> 32n)));
        const lo = Uint32Array.from(pend.map((p) => Number(p[0] & 0xffffffffn)));
        const ord = Uint32Array.from(pend.map((p) => p[1]));
        const src = join(dir, `x${run}.keys`);
        const dst = join(dir, `y${run++}.keys`);
        writeStore(src, store);
        const dfs = new DrumFs();
        const reader = store.length ? KeyReader.open(dfs, src, { bucket: 0, keys: store.length }, fs.statSync(src).size) : null;
        const writer = new KeyWriter(dfs, dst, 0, null, false);
        const bits = new Uint8Array(64);
        const m = new BucketMerge(reader, writer, bits, () => assert.fail('a delete warms nothing'), null, true);
        const at = [...new Set([0, ...cuts.map((c) => Math.min(c, pend.length)), pend.length])].sort((a, b) => a - b);
        for (let k = 0; k + 1 < at.length; k++) m.add({ hi: hi.subarray(at[k]), lo: lo.subarray(at[k]), ord: ord.subarray(at[k]), n: at[k + 1]! - at[k]! });
        const r = m.finish();
        reader?.close();
        const w = writer.finish();
        const found = pend.filter((p) => storeSet.has(p[0]));
        const got: number[] = [];
        for (let i = 0; i < 512; i++) if ((bits[i >>> 3]! >>> (i & 7)) & 1) got.push(i);
        assert.deepEqual(got, found.map((p) => p[1]).sort((a, b) => a - b));
        assert.equal(r.hits, found.length);
        assert.equal(r.newKeys, 0);
        const rest = store.filter((k) => !pendMap.has(k));
        assert.equal(w.keys, rest.length);
        const rr = KeyReader.open(dfs, dst, { bucket: 0, keys: w.keys }, fs.statSync(dst).size);
        const out: bigint[] = [];
        while (rr.nextBlock()) for (let i = 0; i < rr.n; i++) out.push(big(rr.keys[2 * i]!, rr.keys[2 * i + 1]!));
        rr.close();
        assert.deepEqual(out, rest);
      }),
      { seed: 4242, numRuns: 60 },
    );
  });

  describe('without a writer, given the block first keys', () => {
    // Five blocks: 40,000 keys, multiples of 4 (a pending multiple of 4 below 160,000 is a hit).
    const dir = tempDir();
    const store = Array.from({ length: 40000 }, (_, i) => BigInt(i) * 4n);
    const src = join(dir, 'five-blocks.keys');
    writeStore(src, store);
    const size = fs.statSync(src).size;

    function run(pend: number[], skip: boolean | Uint32Array): { bits: string; hits: number; newKeys: number; bytesRead: number } {
      const dfs = new DrumFs();
      const reader = KeyReader.open(dfs, src, { bucket: 0, keys: store.length }, size);
      const first = skip === true ? reader.firstKeys() : skip === false ? null : skip;
      const before = dfs.counters.bytesRead;
      const bits = new Uint8Array((pend.length >>> 3) + 1);
      try {
        const m = new BucketMerge(reader, null, bits, null, first);
        m.add({ hi: new Uint32Array(pend.length), lo: Uint32Array.from(pend), ord: Uint32Array.from(pend.map((_, i) => i)), n: pend.length });
        const r = m.finish();
        return { bits: Buffer.from(bits).toString('hex'), hits: r.hits, newKeys: r.newKeys, bytesRead: dfs.counters.bytesRead - before };
      } finally {
        reader.close();
      }
    }

    it('answers exactly like the full pass and reads only the blocks it lands on', () => {
      // Keys in the gaps between blocks (just past a block's last key) are the case that reads two blocks.
      const gapKey = fc.integer({ min: 1, max: 4 }).chain((b) => fc.integer({ min: 8192 * 4 * b - 4, max: 8192 * 4 * b + 1 }));
      fc.assert(
        fc.property(fc.uniqueArray(fc.oneof(fc.nat({ max: 170000 }), gapKey), { minLength: 1, maxLength: 4 }), (keys) => {
          const pend = keys.sort((a, b) => a - b);
          const full = run(pend, false);
          const skipped = run(pend, true);
          assert.deepEqual({ ...skipped, bytesRead: 0 }, { ...full, bytesRead: 0 });
          assert.equal(full.hits, pend.filter((k) => k % 4 === 0 && k < 160000).length);
          // At most two blocks per key (64 KiB + CRC each) and the 8-byte first keys, instead of all five blocks.
          assert.ok(skipped.bytesRead <= 2 * pend.length * (8192 * 8 + 4) + 5 * 8, `${skipped.bytesRead} bytes read`);
          if (pend.length === 1) assert.ok(skipped.bytesRead < full.bytesRead / 2, `one key read ${skipped.bytesRead} bytes`);
          assert.ok(full.bytesRead >= 40000 * 8);
        }),
        { seed: 4242, numRuns: 200 },
      );
    });

    it('refuses with DRUM_CORRUPT_FILE when the block it jumps to starts above the key', () => {
      // First keys that lie: block 4 claimed to start at 0, so key 100 (in block 0) jumps there.
      const lying = new Uint32Array(10);
      assert.throws(() => run([100], lying), (e: unknown) => (e as { code?: string }).code === 'DRUM_CORRUPT_FILE');
    });
  });
});


describe('BucketMerge on a store file whose keys are out of order (CRCs valid)', () => {
  it('refuses it with DRUM_CORRUPT_FILE wherever the disorder sits, even between two pending keys it never compares', () => {
    const dir = tempDir();
    // 20,000 keys (3 blocks); one pair swapped at several places; two pending keys far apart, so the
    // merge binary-searches over the swapped pair rather than stepping through it.
    for (const at of [1, 4000, 8191, 8192, 12345, 19998]) {
      const keys = Array.from({ length: 20000 }, (_, i) => big(1, 2 * i + 10));
      [keys[at], keys[at + 1]] = [keys[at + 1]!, keys[at]!];
      const src = join(dir, `bad-${at}.keys`);
      writeStore(src, keys);
      const dfs = new DrumFs();
      const reader = KeyReader.open(dfs, src, { bucket: 0, keys: keys.length }, fs.statSync(src).size);
      const writer = new KeyWriter(dfs, join(dir, `out-${at}.keys`), 0, null, false);
      const pend = { hi: Uint32Array.of(1, 1), lo: Uint32Array.of(1, 2 * 19999 + 11), ord: Uint32Array.of(0, 1), n: 2 };
      assert.throws(() => mergeBucket(pend, reader, writer, new Uint8Array(1), null), (e: unknown) => (e as { code?: string }).code === 'DRUM_CORRUPT_FILE', `swap at ${at}`);
      reader.close();
      writer.abort();
    }
  });
});
