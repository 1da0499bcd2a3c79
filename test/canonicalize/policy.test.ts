// resolvePolicy: defaults, validation (DRUM_BAD_OPTION) and the stable
// policy id the store records. No URL canonicalization here.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_TRACKING_PARAMS, resolvePolicy } from '../../src/canonicalize/index.js';
import { isDrumError } from '../../src/errors.js';

function throwsBadOption(f: () => unknown): void {
  assert.throws(f, (e: unknown) => isDrumError(e, 'DRUM_BAD_OPTION'));
}

describe('resolvePolicy', () => {
  it('resolves no options to the default policy default/v1 with every optional rule off', () => {
    const p = resolvePolicy();
    assert.equal(p.id, 'default/v1');
    assert.equal(p.mode, 'default');
    assert.deepEqual([p.stripWww, p.foldHttps, p.stripIndex, p.lowercasePath], [false, false, false, false]);
    assert.equal(p.maxLineBytes, 2048);
    assert.ok(p.trackingParams.includes('utm_*') && p.trackingParams.includes('gclid'));
  });

  it('names each optional rule in the id in a fixed order', () => {
    assert.equal(resolvePolicy({ stripWww: true }).id, 'default/v1+www');
    assert.equal(resolvePolicy({ foldHttps: true, stripWww: true }).id, 'default/v1+www+https');
    assert.equal(
      resolvePolicy({ lowercasePath: true, stripIndex: true, foldHttps: true, stripWww: true }).id,
      'default/v1+www+https+index+lowerpath',
    );
  });

  it('changes the id when the tracking list differs from the default, and only then', () => {
    assert.equal(resolvePolicy({ trackingParams: [...DEFAULT_TRACKING_PARAMS].reverse() }).id, 'default/v1');
    assert.equal(resolvePolicy({ trackingParams: DEFAULT_TRACKING_PARAMS.map((s) => s.toUpperCase()) }).id, 'default/v1');
    const a = resolvePolicy({ trackingParams: ['ref'] }).id;
    const b = resolvePolicy({ trackingParams: ['ref', 'src'] }).id;
    assert.match(a, /^default\/v1\+tp-[0-9a-f]{8}$/);
    assert.notEqual(a, b);
    assert.equal(resolvePolicy({ trackingParams: ['src', 'REF'] }).id, resolvePolicy({ trackingParams: ['ref', 'src'] }).id);
    assert.match(resolvePolicy({ trackingParams: [] }).id, /\+tp-/);
  });

  it('gives raw mode the id none/v1', () => {
    assert.equal(resolvePolicy({ mode: 'none' }).id, 'none/v1');
  });

  it('rejects bad values with DRUM_BAD_OPTION', () => {
    throwsBadOption(() => resolvePolicy({ mode: 'strict' as never }));
    throwsBadOption(() => resolvePolicy({ stripWww: 'yes' as never }));
    throwsBadOption(() => resolvePolicy({ maxLineBytes: 0 }));
    throwsBadOption(() => resolvePolicy({ maxLineBytes: 1.5 }));
    throwsBadOption(() => resolvePolicy({ trackingParams: 'utm_*' as never }));
    throwsBadOption(() => resolvePolicy({ trackingParams: ['a=b'] }));
    throwsBadOption(() => resolvePolicy({ trackingParams: ['a*b'] }));
    throwsBadOption(() => resolvePolicy({ trackingParams: [''] }));
    throwsBadOption(() => resolvePolicy(null as never));
  });

  it('refuses rule flags in raw mode, where they would have no effect', () => {
    throwsBadOption(() => resolvePolicy({ mode: 'none', stripWww: true }));
    throwsBadOption(() => resolvePolicy({ mode: 'none', trackingParams: ['x'] }));
  });
});
