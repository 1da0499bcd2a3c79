import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isDue, RevisitRound, revisitHook } from '../../../src/engine/url-seen/revisit.js';
import { V_LAST_EMITTED } from '../../../src/engine/url-seen/url-values.js';

describe('revisit rule', () => {
  it('calls a URL due when it was last emitted before the run and at least the interval before it', () => {
    const rule = { afterSec: 100, fromSec: 1000 };
    assert.deepEqual([0, 899, 900, 901, 999, 1000, 1500].map((t) => isDue(t, rule)), [true, true, true, false, false, false, false]);
    // 0s: everything emitted before the run, nothing emitted during it (once per run).
    assert.deepEqual([0, 999, 1000, 1001].map((t) => isDue(t, { afterSec: 0, fromSec: 1000 })), [true, true, false, false]);
  });

  it('marks a due hit, moves its lastEmitted to the round clock and leaves other hits as they are', () => {
    const round = new RevisitRound(20);
    const hook = revisitHook({ afterSec: 10, fromSec: 100 }, round, 123);
    const v = new Uint32Array(12);
    v[V_LAST_EMITTED] = 50;
    v[6 + V_LAST_EMITTED] = 95;
    assert.equal(hook(17, v, 0), true);
    assert.equal(hook(3, v, 6), false);
    assert.deepEqual([v[V_LAST_EMITTED], v[6 + V_LAST_EMITTED], round.count], [123, 95, 1]);
    assert.deepEqual([...round.bits], [0, 0, 2]);
  });
});
