// Tests src/cli/format.ts: the CLI's number formats. fmtInt is held to
// Node's own en-US formatting (the model) on random numbers.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fmtBytes, fmtInt, fmtPct } from '../../src/cli/format.js';

describe('the CLI number formats', () => {
  it('writes a count with thousands separators exactly as en-US toLocaleString does', () => {
    fc.assert(fc.property(
      fc.oneof(fc.integer(), fc.double({ noNaN: true, min: -1e22, max: 1e22 }), fc.constantFrom(0, -0, 0.5, -0.5, 999.5, 1e21, -1e21, 2 ** 53)),
      (n) => assert.equal(fmtInt(n), Math.round(n).toLocaleString('en-US')),
    ), { numRuns: 2000 });
    assert.equal(fmtInt(1234567), '1,234,567');
    assert.equal(fmtInt(Infinity), 'Infinity');
    assert.equal(fmtInt(NaN), 'NaN');
  });

  it('writes sizes in binary units and fractions as percentages', () => {
    assert.deepEqual([512, 1536, 19.0 * 2 ** 20].map(fmtBytes), ['512 B', '1.50 KiB', '19.0 MiB']);
    assert.equal(fmtPct(0.236), '23.6%');
    assert.equal(fmtPct(NaN), '-');
  });
});
