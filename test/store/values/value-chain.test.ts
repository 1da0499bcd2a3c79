// A bucket's values read through insert deltas (src/store/values/value-chain.ts)
// against a plain model: an array of values into which each round inserts
// its new values at their positions. The chain, read by any mix of copy,
// take and forEachBlock, hands out the model's values in order; a chain
// whose files disagree with its manifest entry, or whose positions are out
// of order, is DRUM_CORRUPT_FILE.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { DrumFs } from '../../../src/io/fs.js';
import type { BucketEntry, DeltaEntry } from '../../../src/store/manifest.js';
import { baseCount, chainShape, openValueChain } from '../../../src/store/values/value-chain.js';
import { deltaBlockBytes, newValueBuffers, ValueWriter, type ValueSink } from '../../../src/store/values/value-io.js';
import { DELTA_MAGIC, DELTA_POSITION_BYTES, VALUE_BLOCK } from '../../../src/store/values/values-format.js';
import { tempDir } from '../../helpers/tmp.js';

const WORDS = 2;
const VALUE_BYTES = 4 * WORDS;

/** Writes a values file (or, with `magic` DELTA_MAGIC, a delta) of `rows`, each `width` words; returns its size and CRC. */
function writeRows(dfs: DrumFs, path: string, rows: number[][], width: number, magic?: number): { bytes: number; crc: number } {
  const w = new ValueWriter(dfs, path, 0, 4 * width, false, undefined, magic);
  for (const r of rows) w.push(Uint32Array.from(r), 0);
  const f = w.finish();
  return { bytes: f.bytes, crc: f.crc };
}

/** A value's two words made from a number (so every value is told apart). */
const valueOf = (n: number): number[] => [n >>> 0, (n * 7 + 1) >>> 0];

/**
 * Builds a chain in `dir`: a base of `base` values, then one delta per round,
 * each inserting round[k] new values at the (sorted, distinct) positions
 * chosen by `at` in the grown array. Returns the entry and the model.
 */
function buildChain(dfs: DrumFs, dir: string, base: number, rounds: number[][]): { e: BucketEntry; model: number[][] } {
  let next = 0;
  const model: number[][] = [];
  for (let i = 0; i < base; i++) model.push(valueOf(next++));
  const b = writeRows(dfs, join(dir, 'base.vals'), model, WORDS);
  const deltas: DeltaEntry[] = [];
  rounds.forEach((picks, k) => {
    const total = model.length + picks.length;
    // Distinct positions in the grown array, ascending: each pick indexes the positions not yet taken.
    const free = Array.from({ length: total }, (_, i) => i);
    const positions = picks.map((p) => free.splice(p % free.length, 1)[0]!).sort((x, y) => x - y);
    const entries: number[][] = [];
    for (const p of positions) {
      const v = valueOf(next++);
      model.splice(p, 0, v);
      entries.push([p, ...v]);
    }
    const file = `d${k}.vdel`;
    const d = writeRows(dfs, join(dir, file), entries, WORDS + DELTA_POSITION_BYTES / 4, DELTA_MAGIC);
    deltas.push({ file, ...d, count: entries.length });
  });
  const e: BucketEntry = { file: 'b.keys', keys: model.length, bytes: 0, crc: 0, values: { file: 'base.vals', ...b, ...(deltas.length > 0 ? { deltas } : {}) } };
  return { e, model };
}

/** Collects what a chain hands out. */
class Collect implements ValueSink {
  rows: number[][] = [];
  pushRange(vals: Uint32Array, from: number, to: number): void {
    for (let i = from; i < to; i++) this.rows.push([...vals.subarray(i * WORDS, (i + 1) * WORDS)]);
  }
  push(v: Uint32Array, at: number): void {
    this.rows.push([...v.subarray(at, at + WORDS)]);
  }
}

const sizeOf = (dfs: DrumFs, dir: string) => (f: string): number => dfs.size(join(dir, f));

describe('a values chain (base file and insert deltas)', () => {
  it('hands out the model array\'s values in order, read by any mix of copy, take and skip', () => {
    const dfs = new DrumFs();
    fc.assert(
      fc.property(
        fc.nat(3 * VALUE_BLOCK),
        fc.array(fc.array(fc.nat(1 << 20), { maxLength: 300 }), { maxLength: 5 }),
        fc.array(fc.tuple(fc.constantFrom('copy', 'take', 'skip'), fc.integer({ min: 1, max: 5000 })), { maxLength: 40 }),
        (base, rounds, reads) => {
          const dir = tempDir();
          const { e, model } = buildChain(dfs, dir, base, rounds);
          assert.equal(baseCount(e), base);
          const r = openValueChain(dfs, dir, 0, e, VALUE_BYTES, sizeOf(dfs, dir));
          const got = new Collect();
          const want: number[][] = [];
          let at = 0;
          try {
            for (const [how, n0] of reads) {
              const n = Math.min(n0, model.length - at);
              if (n === 0) break;
              if (how === 'take') {
                const v = new Uint32Array(WORDS);
                r.take(v, 0);
                got.push(v, 0);
                want.push(model[at]!);
                at++;
              } else {
                r.copy(n, how === 'copy' ? got : null);
                if (how === 'copy') want.push(...model.slice(at, at + n));
                at += n;
              }
              assert.equal(r.remaining, model.length - at);
            }
            // The rest, a block at a time.
            r.forEachBlock((vals, n) => got.pushRange(vals, 0, n));
            want.push(...model.slice(at));
          } finally {
            r.close();
          }
          assert.deepEqual(got.rows, want);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reads its deltas into the lent one-block chunks, allocating none, and a chain longer than the chunks lent reads right too', () => {
    const dfs = new DrumFs();
    const dir = tempDir();
    // Deltas of over two blocks each: a one-block chunk is filled again and again.
    const picks = (n: number, k: number): number[] => Array.from({ length: n }, (_, i) => (i * 7919 + k) % (1 << 20));
    const { e, model } = buildChain(dfs, dir, 3 * VALUE_BLOCK, [picks(2 * VALUE_BLOCK + 5, 1), picks(VALUE_BLOCK + 1, 2), picks(40, 3)]);
    // Two delta chunks for three deltas: the third reads into a chunk of its own.
    const buffers = newValueBuffers(VALUE_BYTES, undefined, 2);
    assert.equal(buffers.deltaChunks[0]!.length, deltaBlockBytes(VALUE_BYTES));
    const r = openValueChain(dfs, dir, 0, e, VALUE_BYTES, sizeOf(dfs, dir), buffers);
    const got = new Collect();
    try {
      r.forEachBlock((vals, n) => got.pushRange(vals, 0, n));
    } finally {
      r.close();
    }
    assert.deepEqual(got.rows, model);
    // Each lent chunk holds the last block its delta read (zeros before): the readers read into them.
    for (const c of buffers.deltaChunks) assert.ok(c.some((x) => x !== 0));
  });

  it('tells the fold rule its base, its deltas and their values', () => {
    const dfs = new DrumFs();
    const dir = tempDir();
    const { e } = buildChain(dfs, dir, 10, [[1, 2, 3], [4]]);
    assert.deepEqual(chainShape(e), { baseValues: 10, deltas: 2, deltaValues: 4 });
    assert.equal(chainShape(null), null);
  });

  it('refuses a delta whose positions go backwards with DRUM_CORRUPT_FILE', () => {
    const dfs = new DrumFs();
    const dir = tempDir();
    const b = writeRows(dfs, join(dir, 'base.vals'), [valueOf(0), valueOf(1)], WORDS);
    const d = writeRows(dfs, join(dir, 'd.vdel'), [[2, ...valueOf(2)], [1, ...valueOf(3)]], WORDS + 1, DELTA_MAGIC);
    const e: BucketEntry = { file: 'b.keys', keys: 4, bytes: 0, crc: 0, values: { file: 'base.vals', ...b, deltas: [{ file: 'd.vdel', ...d, count: 2 }] } };
    assert.throws(() => {
      const r = openValueChain(dfs, dir, 0, e, VALUE_BYTES, sizeOf(dfs, dir));
      try {
        r.copy(4, null);
      } finally {
        r.close();
      }
    }, { code: 'DRUM_CORRUPT_FILE' });
  });

  it('refuses a chain whose manifest counts disagree with its files with DRUM_CORRUPT_FILE', () => {
    const dfs = new DrumFs();
    const dir = tempDir();
    const { e } = buildChain(dfs, dir, 100, [[5, 6, 7]]);
    const wrongDelta: BucketEntry = { ...e, values: { ...e.values!, deltas: [{ ...e.values!.deltas![0]!, count: 2 }] } };
    assert.throws(() => openValueChain(dfs, dir, 0, wrongDelta, VALUE_BYTES, sizeOf(dfs, dir)), { code: 'DRUM_CORRUPT_FILE' });
    const tooMany: BucketEntry = { ...e, keys: 2 };
    assert.throws(() => openValueChain(dfs, dir, 0, tooMany, VALUE_BYTES, sizeOf(dfs, dir)), { code: 'DRUM_CORRUPT_FILE' });
    // A values file named where a delta belongs: its magic says it is not one.
    const swapped: BucketEntry = { ...e, values: { ...e.values!, deltas: [{ ...e.values!.deltas![0]!, file: 'base.vals' }] } };
    assert.throws(() => openValueChain(dfs, dir, 0, swapped, VALUE_BYTES, sizeOf(dfs, dir)), { code: 'DRUM_CORRUPT_FILE' });
  });

  it('closes every file of the chain when a delta\'s first entry is refused', () => {
    const dfs = new DrumFs();
    const dir = tempDir();
    const b = writeRows(dfs, join(dir, 'base.vals'), [valueOf(0), valueOf(1)], WORDS);
    // Position 3 in a bucket of 3 values after the delta: past its end.
    const d = writeRows(dfs, join(dir, 'd.vdel'), [[3, ...valueOf(2)]], WORDS + 1, DELTA_MAGIC);
    const e: BucketEntry = { file: 'b.keys', keys: 3, bytes: 0, crc: 0, values: { file: 'base.vals', ...b, deltas: [{ file: 'd.vdel', ...d, count: 1 }] } };
    const openFds = (): number => fs.readdirSync('/proc/self/fd').length;
    const before = openFds();
    assert.throws(() => openValueChain(dfs, dir, 0, e, VALUE_BYTES, sizeOf(dfs, dir)), { code: 'DRUM_CORRUPT_FILE' });
    assert.equal(openFds(), before);
  });
});
