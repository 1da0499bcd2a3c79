// resolveOptions (src/options.ts): every option of the wrong type is
// DRUM_BAD_OPTION with the option's name, never a TypeError later in a run,
// and never silently taken for its default.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { resolveOptions, type DrumOptions } from '../src/options.js';

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
