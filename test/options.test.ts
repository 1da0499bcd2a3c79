// resolveOptions (src/options.ts): every option of the wrong type is
// DRUM_BAD_OPTION with the option's name, never a TypeError later in a run,
// and never silently taken for its default.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveOptions, type DrumOptions } from '../src/options.js';
import { defaultWorkers, planBudget, SMALLEST_SORT_AREA_BYTES } from '../src/engine/session/budget.js';

describe('resolveOptions', () => {
  const wrong: [string, DrumOptions][] = [
    ['fsync', { fsync: 'yes' as unknown as boolean }],
    ['readOnly', { readOnly: 1 as unknown as boolean }],
    ['forcePolicy', { forcePolicy: 'true' as unknown as boolean }],
    ['values', { values: 'no' as unknown as boolean }],
    ['now', { now: 'x' as unknown as () => number }],
    ['onNotice', { onNotice: 42 as unknown as (m: string) => void }],
    ['faultHook', { faultHook: 'x' as unknown as undefined }],
  ];
  for (const [name, o] of wrong) {
    it(`refuses a ${name} of the wrong type with DRUM_BAD_OPTION naming it`, () => {
      assert.throws(() => resolveOptions(o), (e: unknown) => (e as { code?: string }).code === 'DRUM_BAD_OPTION' && (e as Error).message.includes(name));
    });
  }

  it('keeps the defaults for absent options and takes booleans and functions as given', () => {
    const now = (): number => 7;
    const r = resolveOptions({ fsync: false, values: false, now });
    assert.equal(r.fsync, false);
    assert.equal(r.values, false);
    assert.equal(r.now(), 7);
    assert.equal(resolveOptions({}).fsync, true);
    assert.equal(resolveOptions({}).values, null);
    assert.equal(resolveOptions({}).faultHook, null);
  });
});

describe('defaultWorkers', () => {
  it('takes one worker per core beyond the first, at most 3, and no more than the budget leaves a sort area for', () => {
    assert.equal(defaultWorkers(1, 256 << 20), 0);
    assert.equal(defaultWorkers(2, 256 << 20), 1);
    assert.equal(defaultWorkers(8, 256 << 20), 2);
    assert.equal(defaultWorkers(8, 288 << 20), 3);
    assert.equal(defaultWorkers(8, 1 << 30), 3);
    assert.equal(defaultWorkers(8, 160 << 20), 0);
    assert.equal(defaultWorkers(2, 226 << 20), 1);
    assert.equal(defaultWorkers(2, 225 << 20), 0);
    assert.equal(defaultWorkers(2, 176 << 20), 0);
    assert.equal(defaultWorkers(8, 286 << 20), 3);
    assert.equal(defaultWorkers(8, 285 << 20), 2);
    // The plan at the default budget on a big machine keeps a real sort area (a third worker leaves it only the smallest).
    const o = resolveOptions({}, 8, 64 * 2 ** 30);
    assert.equal(o.workers, 2);
    assert.ok(planBudget(o, 1 << 16, true).sortEntries > 80_000);
    assert.equal(planBudget(resolveOptions({ workers: 3 }, 8, 64 * 2 ** 30), 1 << 16, true).sortArea, SMALLEST_SORT_AREA_BYTES);
  });
});
