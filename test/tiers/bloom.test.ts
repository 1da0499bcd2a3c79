// Tests for src/tiers/bloom.ts: no false negatives (property), the observed
// FP rate on 1M seeded random keys against expectedFpRate, the blocked vs
// classic formulas, sizing, spread over blocks, and a golden bit pattern that
// pins the hashing (part of the on-disk format).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { BLOCK_BITS, BlockedBloom, blockedFpRate, blocksFor, classicFpRate, optimalK } from '../../src/tiers/bloom.js';
import { narrowFamilies, randomKeys } from './keys.js';

const key = fc.tuple(fc.integer({ min: 0, max: 0xffffffff }), fc.integer({ min: 0, max: 0xffffffff }));

describe('BlockedBloom', () => {
  it('never reports a false negative, even when overfilled far past its size', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 1, max: 24 }),
        fc.array(key, { maxLength: 500 }),
        (expected, bpk, keys) => {
          const f = BlockedBloom.forKeys(expected, bpk);
          for (const [hi, lo] of keys) f.add(hi, lo);
          for (const [hi, lo] of keys) assert.equal(f.mayContain(hi, lo), true);
          assert.equal(f.keys, keys.length);
        },
      ),
      { seed: 4242, numRuns: 200 },
    );
  });

  it('has an observed FP rate on 1M random keys within 5% of expectedFpRate, above the classic formula', () => {
    const n = 1_000_000;
    const f = BlockedBloom.forKeys(n, 10);
    const ins = randomKeys(n, 1);
    for (let i = 0; i < n; i++) f.add(ins.hi[i]!, ins.lo[i]!);
    for (let i = 0; i < n; i++) assert.ok(f.mayContain(ins.hi[i]!, ins.lo[i]!));
    const q = randomKeys(n, 2); // a different stream: absent keys (a 64-bit collision is ~1e-7 likely)
    let fp = 0;
    for (let i = 0; i < n; i++) if (f.mayContain(q.hi[i]!, q.lo[i]!)) fp++;
    const observed = fp / n;
    const expected = f.expectedFpRate();
    // ~9,600 expected false positives: one standard deviation is ~1%, so 5% is ~5 sigma.
    assert.ok(Math.abs(observed / expected - 1) < 0.05, `observed ${observed}, expected ${expected}`);
    assert.ok(observed > f.classicFpRate() * 1.08, `classic ${f.classicFpRate()} should underestimate ${observed}`);
  });

  it('derives k = round(bitsPerKey · ln 2) and sizes blocks from keys × bitsPerKey', () => {
    assert.deepEqual([4, 6, 8, 10, 12, 16].map(optimalK), [3, 4, 6, 7, 8, 11]);
    assert.equal(optimalK(1), 1);
    const f = BlockedBloom.forKeys(1_000_000, 10);
    assert.equal(f.blocks, Math.ceil((1_000_000 * 10) / BLOCK_BITS));
    assert.equal(f.bytes, f.blocks * 64);
    assert.equal(f.bytes, BlockedBloom.bytesFor(1_000_000, 10));
    assert.equal(blocksFor(0, 10), 1);
    assert.throws(() => blocksFor(1e12, 64), { code: 'DRUM_BAD_OPTION' });
    assert.throws(() => BlockedBloom.forKeys(10, 0), { code: 'DRUM_BAD_OPTION' });
  });

  it('sizes a store\'s rebuilt filter for 1.5 × its keys, at least 1,024 and at most the budget\'s keys', () => {
    assert.equal(BlockedBloom.forStore(100_000, 10).blocks, blocksFor(150_000, 10));
    assert.equal(BlockedBloom.forStore(0, 10).blocks, blocksFor(1024, 10));
    assert.equal(BlockedBloom.forStore(100_000, 10, 20_000).blocks, blocksFor(20_000, 10));
  });

  it('holds blocks · 512 / bitsPerKey keys by design: its room shrinks with each key and is 0 once full or loaded past it', () => {
    const f = BlockedBloom.forStore(2000, 10);
    assert.equal(f.capacity, Math.floor((f.blocks * BLOCK_BITS) / 10));
    assert.ok(f.capacity >= 3000 && f.capacity < 3000 + BLOCK_BITS / 10);
    const ks = randomKeys(f.capacity + 5, 3);
    for (let i = 0; i < 10; i++) f.add(ks.hi[i]!, ks.lo[i]!);
    assert.equal(f.room, f.capacity - 10);
    for (let i = 10; i < f.capacity + 5; i++) f.add(ks.hi[i]!, ks.lo[i]!);
    assert.equal(f.room, 0);
    // At its capacity it answers at the nominal rate of its bits per key.
    assert.ok(Math.abs(f.expectedFpRate(f.capacity) - blockedFpRate(1e6, 1e6 * 51.2, 7)) < 0.001);
    // A store rebuilt into the budget's share holds more keys than it was sized for: no room.
    const over = new BlockedBloom(f.blocks, f.k, 10, f.words, f.capacity * 2);
    assert.equal(over.room, 0);
  });

  it('expects the false positives that new keys meet while it fills up to its capacity and after, as counted', () => {
    // As the front routes: a new key it calls maybe seen is a false positive; one it passes is added while there is room.
    const f = BlockedBloom.forStore(2000, 10);
    const ks = randomKeys(100_000, 5);
    let fp = 0;
    let expected = 0;
    for (let c = 0; c < ks.hi.length; c += 997) {
      const before = f.keys;
      let passed = 0;
      for (let i = c; i < Math.min(c + 997, ks.hi.length); i++) {
        if (f.mayContain(ks.hi[i]!, ks.lo[i]!)) fp++;
        else {
          passed++;
          if (f.room > 0) f.add(ks.hi[i]!, ks.lo[i]!);
        }
      }
      expected += f.expectedFalsePositives(before, f.keys - before, passed - (f.keys - before));
    }
    assert.equal(f.keys, f.capacity, 'it stops at its capacity');
    // ~950 expected at 0.96 % (σ ≈ 31).
    assert.ok(fp < 0.015 * ks.hi.length, `${fp} false positives`);
    assert.ok(Math.abs(fp - expected) < 0.1 * expected, `${fp} false positives, ${expected.toFixed(0)} expected`);
  });

  it('computes a blocked FP rate above the classic one that converges to it as blocks grow', () => {
    const n = 1e6;
    const k = 7;
    const m = n * 10;
    const blocked = blockedFpRate(m / BLOCK_BITS, n, k);
    const classic = classicFpRate(m, n, k);
    assert.ok(blocked > classic * 1.1, `${blocked} vs ${classic}`);
    const bigBlocks = blockedFpRate(m / 2 ** 20, n, k, 2 ** 20);
    assert.ok(Math.abs(bigBlocks / classic - 1) < 0.01, `${bigBlocks} vs ${classic}`);
    assert.equal(blockedFpRate(100, 0, k), 0);
    assert.ok(blockedFpRate(100, 5000, k) < blockedFpRate(100, 6000, k));
    // A single overloaded block is almost always full.
    assert.ok(blockedFpRate(1, 1e5, k) > 0.999);
  });

  it('matches a known value of the Poisson-mixture formula (hand-checked small case)', () => {
    // λ = 1, k = 1, B = 2: Σ_i e^-1/i! · (1 − 2^-i) = 1 − e^-1 · e^(1/2) = 1 − e^-0.5
    assert.ok(Math.abs(blockedFpRate(1, 1, 1, 2) - (1 - Math.exp(-0.5))) < 1e-12);
  });

  it('sets the same bits from an interleaved key block (addPairs) as from add one key at a time', () => {
    const ks = randomKeys(3000, 8);
    const one = BlockedBloom.forKeys(3000, 10);
    const pairs = new Uint32Array(6000);
    for (let i = 0; i < 3000; i++) {
      one.add(ks.hi[i]!, ks.lo[i]!);
      pairs[2 * i] = ks.hi[i]!;
      pairs[2 * i + 1] = ks.lo[i]!;
    }
    const block = BlockedBloom.forKeys(3000, 10);
    block.addPairs(pairs, 2000);
    block.addPairs(pairs.subarray(4000), 1000);
    assert.deepEqual(block.words, one.words);
    assert.equal(block.keys, 3000);
  });

  it('answers maybe for every key once overfilled into a single block', () => {
    const f = new BlockedBloom(1, 3, 10);
    const ks = randomKeys(5000, 9);
    for (let i = 0; i < 5000; i++) f.add(ks.hi[i]!, ks.lo[i]!);
    assert.equal(f.mayContain(12345, 67890), true);
    f.clear();
    assert.equal(f.mayContain(ks.hi[0]!, ks.lo[0]!), false);
    assert.equal(f.keys, 0);
  });

  for (const [family, keys] of Object.entries(narrowFamilies(1024))) {
    it(`spreads 1024 keys that differ in ${family} over many blocks`, () => {
      const f = new BlockedBloom(1024, 7, 10);
      const blocks = new Set(keys.map(([hi, lo]) => f.blockOf(hi, lo)));
      assert.ok(blocks.size > 550, `only ${blocks.size} blocks used`);
    });
  }

  it('sets the same bits as the format version 1 hashing did (golden CRC of the bit array)', () => {
    const f = new BlockedBloom(64, 7, 10);
    const ks = randomKeys(500, 77);
    for (let i = 0; i < 500; i++) f.add(ks.hi[i]!, ks.lo[i]!);
    f.add(0, 0);
    f.add(0xffffffff, 0xffffffff);
    const le = Buffer.alloc(f.bytes);
    f.words.forEach((w, i) => le.writeUInt32LE(w, 4 * i));
    assert.equal((crc32(le) >>> 0).toString(16), '594fb34a');
  });
});
