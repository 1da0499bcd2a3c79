import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import fc from 'fast-check';
import { bucketRange, planSlices } from '../../src/bucket/key-range.js';
import { PendingBuckets } from '../../src/bucket/pending.js';
import { MAX_PARTS } from '../../src/bucket/slice-partition.js';
import { DrumFs } from '../../src/io/fs.js';
import { tempDir } from '../helpers/tmp.js';

/** Bucket 0 of a 1-bucket PendingBuckets filled with `keys` (indexes into a small key pool, so keys repeat). */
function filled(keys: number[], bufferEntries: number, seeded = false): { p: PendingBuckets; dir: string } {
  const dir = tempDir();
  const p = new PendingBuckets(new DrumFs(), dir, 0, bufferEntries, seeded);
  keys.forEach((k, i) => p.add((Math.imul(k, 0x9e3779b1) >>> 0) & 0xfff00000, k, i, 7 * i + 1));
  return { p, dir };
}

function arrays(n: number): [Uint32Array, Uint32Array, Uint32Array, Uint32Array] {
  return [new Uint32Array(n), new Uint32Array(n), new Uint32Array(n), new Uint32Array(n)];
}

describe('SlicePartition', () => {
  it('loads every slice exactly as a pass over the whole bucket would, seeds with their keys, and leaves no work file behind', () => {
    fc.assert(
      fc.property(fc.array(fc.nat({ max: 60 }), { minLength: 1, maxLength: 400 }), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 20 }), fc.boolean(), (keys, cap, bufferEntries, seeded) => {
        const { p, dir } = filled(keys, bufferEntries, seeded);
        const scratch = new Uint8Array(48);
        const slices = planSlices(bucketRange(0, 0), keys.length, cap, (r, w, out) => p.countChildren(0, r, w, out, scratch));
        if (slices.length > MAX_PARTS) return;
        // Tiny per-slice buffers: most slices spill to their files.
        const part = p.partition(0, slices, scratch, 12 * 16 * slices.length);
        slices.forEach((s, k) => {
          const [h1, l1, o1, s1] = arrays(keys.length);
          const [h2, l2, o2, s2] = arrays(keys.length);
          const a = p.loadSlice(0, s, h1, l1, o1, seeded ? s1 : null, scratch);
          const b = part.load(k, h2, l2, o2, seeded ? s2 : null, scratch);
          assert.deepEqual(b, a);
          assert.deepEqual([...o2.subarray(0, b.loaded)], [...o1.subarray(0, a.loaded)]);
          assert.deepEqual([...l2.subarray(0, b.loaded)], [...l1.subarray(0, a.loaded)]);
          // A seed stays with its key: ordinal i was added with seed 7i + 1.
          if (seeded) assert.deepEqual([...s2.subarray(0, b.loaded)], [...o2.subarray(0, b.loaded)].map((o) => 7 * o + 1));
        });
        p.reset();
        assert.deepEqual(fs.readdirSync(dir), []);
      }),
      { seed: 7, numRuns: 150 },
    );
  });

  it('deletes the files of slices never loaded on discard', () => {
    const keys = Array.from({ length: 300 }, (_, i) => i % 50);
    const { p, dir } = filled(keys, 8);
    const scratch = new Uint8Array(48);
    const slices = planSlices(bucketRange(0, 0), keys.length, 40, (r, w, out) => p.countChildren(0, r, w, out, scratch));
    assert.ok(slices.length >= 3, `${slices.length} slices`);
    const part = p.partition(0, slices, scratch, 12 * 16 * slices.length);
    assert.ok(fs.readdirSync(dir).some((f) => /^spill-b0000-s\d{4}\.dat$/.test(f)));
    const [h, l, o] = arrays(keys.length);
    part.load(0, h, l, o, null, scratch);
    part.discard();
    p.reset();
    assert.deepEqual(fs.readdirSync(dir), []);
  });
});
