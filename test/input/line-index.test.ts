// Tests of LineIndex: entries survive growth, copies are independent, and a
// lease ends at reclaim() with the lent views empty while the index keeps
// working in the same memory.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LineIndex } from '../../src/input/line-index.js';

function fill(ix: LineIndex, n: number, salt: number): void {
  while (ix.capacity < n) ix.grow();
  for (let i = 0; i < n; i++) {
    ix.us[i] = i + salt;
    ix.ue[i] = 2 * i + salt;
    ix.bs[i] = 3 * i + salt;
    ix.be[i] = 4 * i + salt;
    ix.ln[i] = 0.5 + i + salt;
  }
}

describe('LineIndex', () => {
  it('keeps its entries when it grows', () => {
    const ix = new LineIndex(4);
    fill(ix, 4, 1);
    ix.grow();
    assert.equal(ix.capacity, 8);
    assert.deepEqual([...ix.copy(4).urlEnds], [1, 3, 5, 7]);
    assert.deepEqual([...ix.copy(4).lines], [1.5, 2.5, 3.5, 4.5]);
  });

  it('gives copies that later writes do not change', () => {
    const ix = new LineIndex(4);
    fill(ix, 3, 0);
    const c = ix.copy(3);
    ix.reclaim();
    fill(ix, 3, 100);
    assert.deepEqual([...c.urlStarts], [0, 1, 2]);
    assert.deepEqual([...c.baseEnds], [0, 4, 8]);
  });

  it('empties lent views at reclaim, so they never show the next entries', () => {
    const ix = new LineIndex(4);
    fill(ix, 3, 0);
    const lent = ix.lend(3);
    assert.deepEqual([...lent.urlEnds], [0, 2, 4]);
    ix.reclaim();
    for (const a of Object.values(lent)) assert.equal((a as Uint32Array).length, 0);
    fill(ix, 3, 7);
    assert.deepEqual([...ix.lend(3).urlStarts], [7, 8, 9]);
  });
});
