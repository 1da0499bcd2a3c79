// Tests of when the pending host deltas are folded (fold-policy.ts): the
// floor of parts, the size ratio to the table, the ceiling, catalogs whose
// parts have no recorded size, and a model of a long run showing that the
// folds' work stays within twice the bytes of deltas they fold.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DELTAS_BEFORE_FOLD, FOLD_TABLE_RATIO, MAX_PENDING_DELTAS, foldDue } from '../../../src/catalog/hosts/fold-policy.js';

describe('foldDue', () => {
  it('is never due below the caller\'s floor of parts, whatever their bytes', () => {
    assert.equal(foldDue({ parts: DELTAS_BEFORE_FOLD - 1, bytes: 1e12, tableBytes: 0 }, DELTAS_BEFORE_FOLD), false);
    assert.equal(foldDue({ parts: 0, bytes: 0, tableBytes: 0 }, 0), false);
  });

  it('is due at the floor when no table file exists yet, or the deltas hold as many bytes as the table', () => {
    assert.equal(foldDue({ parts: DELTAS_BEFORE_FOLD, bytes: 10, tableBytes: 0 }, DELTAS_BEFORE_FOLD), true);
    assert.equal(foldDue({ parts: DELTAS_BEFORE_FOLD, bytes: 1000 * FOLD_TABLE_RATIO, tableBytes: 1000 }, DELTAS_BEFORE_FOLD), true);
    assert.equal(foldDue({ parts: DELTAS_BEFORE_FOLD, bytes: 1000 * FOLD_TABLE_RATIO - 1, tableBytes: 1000 }, DELTAS_BEFORE_FOLD), false);
  });

  it('is due at the ceiling of parts however few bytes they hold', () => {
    assert.equal(foldDue({ parts: MAX_PENDING_DELTAS, bytes: 1, tableBytes: 1e12 }, DELTAS_BEFORE_FOLD), true);
    assert.equal(foldDue({ parts: MAX_PENDING_DELTAS - 1, bytes: 1, tableBytes: 1e12 }, DELTAS_BEFORE_FOLD), false);
  });

  it('folds parts of older catalogs, whose sizes are unknown, at the floor', () => {
    assert.equal(foldDue({ parts: DELTAS_BEFORE_FOLD, bytes: Infinity, tableBytes: 1e12 }, DELTAS_BEFORE_FOLD), true);
  });

  it('keeps the work of every fold the ceiling does not force within twice the delta bytes it folds', () => {
    // Rounds add parts of random sizes; a fold writes a table of at most the old table plus the deltas (hosts repeat).
    fc.assert(fc.property(
      fc.array(fc.integer({ min: 1, max: 100_000 }), { minLength: 1, maxLength: 2000 }),
      fc.double({ min: 0.05, max: 1, noNaN: true }),
      (parts, keep) => {
        let table = 0, pending = 0, count = 0, work = 0, folded = 0;
        for (const b of parts) {
          pending += b;
          count++;
          if (!foldDue({ parts: count, bytes: pending, tableBytes: table }, DELTAS_BEFORE_FOLD)) continue;
          work += table + pending;
          folded += pending;
          table = Math.ceil(table + keep * pending);
          pending = count = 0;
        }
        return work <= (1 + 1 / FOLD_TABLE_RATIO) * folded;
      },
    ));
  });
});
