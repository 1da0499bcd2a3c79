// Tests of SlabPool: a slab is handed out again only after it was given
// back (a fast-check model with an owner mark in every live slab), giving
// back empties every view of it, twice is refused, the free list is bounded,
// and a steady take/give cycle stops allocating.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { isDrumError } from '../../../src/errors.js';
import { SlabPool, slabBytesFor } from '../../../src/engine/workers/slab-pool.js';

describe('SlabPool', () => {
  it('never hands out a slab that is still taken (fast-check)', () => {
    const op = fc.oneof(
      fc.record({ take: fc.integer({ min: 1, max: 300_000 }) }),
      fc.record({ give: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 200 }), fc.integer({ min: 0, max: 6 }), (ops, max) => {
        const pool = new SlabPool(max);
        const live: { slab: ArrayBuffer; mark: number; need: number }[] = [];
        let next = 1;
        for (const o of ops) {
          if ('take' in o) {
            const slab = pool.take(o.take);
            assert.ok(slab.byteLength >= o.take);
            for (const l of live) assert.notEqual(l.slab, slab);
            // Mark it across its whole length: a slab also held by another owner would overwrite that owner's mark.
            const mark = next++;
            new Uint32Array(slab).fill(mark);
            live.push({ slab, mark, need: o.take });
          } else if (live.length > 0) {
            const [l] = live.splice(o.give % live.length, 1);
            pool.give(l!.slab);
            assert.equal(l!.slab.byteLength, 0, 'the giver keeps no access to what it gave');
          }
          for (const l of live) {
            const v = new Uint32Array(l.slab);
            assert.ok(v[0] === l.mark && v[v.length - 1] === l.mark, 'a live slab was overwritten by another owner');
          }
          assert.ok(pool.size <= max);
        }
      }),
      { seed: 4242, numRuns: 300 },
    );
  });

  it('empties every view of a slab when it is given back', () => {
    const pool = new SlabPool(2);
    const slab = pool.take(1000);
    const bytes = Buffer.from(slab, 8, 100);
    const words = new Uint32Array(slab, 200, 10);
    bytes.fill(1);
    pool.give(slab);
    assert.equal(bytes.length, 0);
    assert.equal(words.length, 0);
    assert.equal(words[0], undefined);
    // The memory itself is kept, with its bytes, for the next taker.
    const again = pool.take(1000);
    assert.equal(pool.allocated, 1);
    assert.equal(new Uint8Array(again)[8], 1);
  });

  it('refuses a slab given back twice', () => {
    const pool = new SlabPool(4);
    const slab = pool.take(10);
    pool.give(slab);
    assert.throws(() => pool.give(slab), (e: unknown) => isDrumError(e, 'DRUM_INTERNAL'));
    assert.equal(pool.size, 1);
  });

  it('hands out the smallest free slab that fits, and keeps at most max, dropping the smallest', () => {
    const pool = new SlabPool(2);
    const a = pool.take(100_000);
    const b = pool.take(300_000);
    const c = pool.take(600_000);
    const [na, nb, nc] = [a.byteLength, b.byteLength, c.byteLength];
    pool.give(b);
    pool.give(c);
    pool.give(a); // full: the smallest (a) is dropped
    assert.equal(pool.size, 2);
    assert.equal(pool.bytes, nb + nc);
    assert.equal(pool.take(200_000).byteLength, nb);
    assert.equal(pool.take(1).byteLength, nc);
    assert.ok(na < nb);
  });

  it('stops allocating once a steady take/give cycle has warmed up', () => {
    const pool = new SlabPool(8);
    const sizes = [1_400_000, 1_500_000, 1_450_000, 900_000, 1_520_000];
    const held: ArrayBuffer[] = [];
    for (let i = 0; i < 2000; i++) {
      held.push(pool.take(sizes[i % sizes.length]!));
      if (held.length > 4) pool.give(held.shift()!);
      if (i === 200) assert.ok(pool.allocated <= 8, `${pool.allocated} slabs for 5 in use`);
    }
    const warm = pool.allocated;
    for (let i = 0; i < 2000; i++) {
      held.push(pool.take(sizes[i % sizes.length]!));
      if (held.length > 4) pool.give(held.shift()!);
    }
    assert.equal(pool.allocated, warm);
  });

  it('sizes new slabs with slack, in 64 KiB steps', () => {
    assert.equal(slabBytesFor(1), 65536);
    assert.equal(slabBytesFor(1 << 20) % 65536, 0);
    assert.ok(slabBytesFor(1 << 20) >= (1 << 20) * 1.125);
  });
});
