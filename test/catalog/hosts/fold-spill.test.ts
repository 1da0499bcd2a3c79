// Tests of a fold's spill files: every entry of every delta lands in the
// file of the name range it belongs to, and a range's sums equal a Map
// model of that range, listed in name order, whether the RAM that sums
// names before the spill holds them all, some or none; remove() leaves no
// file behind; and however many ranges, at most MAX_OPEN_SPILLS files are
// open at once.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import fc from 'fast-check';
import { FoldSpill, MAX_OPEN_SPILLS, spillFileName } from '../../../src/catalog/hosts/fold-spill.js';
import { encodeHostMap, forEachEntry } from '../../../src/catalog/hosts/host-delta.js';
import { DrumFs } from '../../../src/io/fs.js';
import { tempDir } from '../../helpers/tmp.js';
import { openUnder } from '../../helpers/fds.js';

const hostName = fc.stringMatching(/^[a-z0-9.\-\u00e0-\u00ff]{0,24}$/);
const delta = fc.array(fc.tuple(hostName, fc.integer({ min: -5, max: 1000 })), { maxLength: 40 });

/** The RAM that sums names before the spill: from none (every entry spilled at once) to room for all. */
const combineRam = fc.oneof(
  fc.record({ names: fc.integer({ min: 0, max: 8 }), bytes: fc.integer({ min: 0, max: 120 }) }),
  fc.constant({ names: 1 << 10, bytes: 1 << 16 }),
);

const byName = (a: [string, number], b: [string, number]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** Range r's sums as the fold reads them, in their order (which must be name order). */
function listed(spill: FoldSpill, r: number): [string, number][] {
  const s = spill.sortedSums(r);
  const out: [string, number][] = [];
  for (let i = 0; i < s.size; i++) out.push([s.name(i), s.count(i)]);
  return out;
}

describe('FoldSpill', () => {
  it('sums each name range exactly as a Map model of the deltas does, in name order (property)', () => {
    fc.assert(
      fc.property(fc.array(delta, { maxLength: 8 }), fc.uniqueArray(hostName, { maxLength: 6 }), combineRam, (deltas, rawBounds, combine) => {
        const bounds = [...rawBounds].sort();
        const dir = tempDir();
        const spill = new FoldSpill(new DrumFs(), dir, 3, bounds, combine);
        const model: Map<string, number>[] = bounds.map(() => new Map()).concat([new Map()]);
        for (const d of deltas) {
          const m = new Map<string, number>();
          for (const [h, c] of d) m.set(h, (m.get(h) ?? 0) + c);
          for (const [h, c] of m) {
            const r = bounds.filter((b) => b <= h).length;
            model[r]!.set(h, (model[r]!.get(h) ?? 0) + c);
          }
          forEachEntry(encodeHostMap(m), (v, s, e, c) => spill.add(v, s, e, c));
        }
        spill.finishWriting();
        assert.equal(spill.ranges, bounds.length + 1);
        for (let r = 0; r < spill.ranges; r++) assert.deepEqual(listed(spill, r), [...model[r]!].sort(byName));
        spill.remove();
        assert.deepEqual(readdirSync(dir), []);
      }),
      { numRuns: 150 },
    );
  });

  it('names its files by table sequence and range, which the next fold recognises as leftovers', () => {
    assert.equal(spillFileName(12, 3), 'fold-000012-0003.tmp');
    assert.match(spillFileName(1, 511), /^fold-\d{6}-\d{4,}\.tmp$/);
  });

  it('keeps a name longer than a write buffer intact', () => {
    const dir = tempDir();
    const spill = new FoldSpill(new DrumFs(), dir, 1, []);
    const long = 'x'.repeat(40_000); // past a 16 KiB buffer, under MAX_NAME_BYTES
    forEachEntry(encodeHostMap(new Map([[long, 2], ['a', 1]])), (v, s, e, c) => spill.add(v, s, e, c));
    spill.finishWriting();
    assert.deepEqual(listed(spill, 0), [['a', 1], [long, 2]]);
    spill.remove();
  });

  it('keeps at most MAX_OPEN_SPILLS files open while it writes 300 ranges, and sums each range exactly', { skip: process.platform !== 'linux' && 'reads /proc/self/fd' }, () => {
    const dir = tempDir();
    const bounds = Array.from({ length: 299 }, (_, i) => `h${String(i + 1).padStart(3, '0')}`);
    // No summing RAM: every entry goes to its range's buffer, which each fill more than once (16 KiB a range).
    const spill = new FoldSpill(new DrumFs(), dir, 1, bounds, { names: 0, bytes: 0 });
    const model = new Map<string, number>();
    let most = 0;
    for (let round = 0; round < 60; round++) {
      const m = new Map<string, number>();
      for (let i = 0; i < 3000; i++) m.set(`h${String(i % 300).padStart(3, '0')}.n${(i * 7 + round) % 97}.some-longer-name-of-a-host.example`, 1 + (i % 3));
      for (const [h, c] of m) model.set(h, (model.get(h) ?? 0) + c);
      forEachEntry(encodeHostMap(m), (v, s, e, c) => spill.add(v, s, e, c));
      most = Math.max(most, openUnder(dir).length);
    }
    spill.finishWriting();
    assert.ok(most > 0, 'some ranges were flushed while writing');
    assert.ok(most <= MAX_OPEN_SPILLS, `${most} spill files open at once`);
    assert.deepEqual(openUnder(dir), []);
    const got: [string, number][] = [];
    for (let r = 0; r < spill.ranges; r++) got.push(...listed(spill, r));
    assert.deepEqual(got, [...model].sort(byName));
    spill.remove();
    assert.deepEqual(readdirSync(dir), []);
  });
});
