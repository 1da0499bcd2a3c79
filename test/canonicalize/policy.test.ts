// resolvePolicy: defaults, validation (DRUM_BAD_OPTION) and the stable
// policy id the store records. No URL canonicalization here.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalizeString, DEFAULT_TRACKING_PARAMS, resolvePolicy } from '../../src/canonicalize/index.js';
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

describe('profiles in the policy', () => {
  it('keeps the id default/v1 for the drum profile, named or not', () => {
    assert.equal(resolvePolicy({ profile: 'drum' }).id, 'default/v1');
    assert.equal(resolvePolicy({ profile: 'drum', stripWww: true }).id, 'default/v1+www');
    assert.equal(resolvePolicy().profile, 'drum');
  });

  it('names every other profile with its own version', () => {
    for (const p of ['heritrix', 'nutch', 'w3lib', 'safebrowsing'] as const) assert.equal(resolvePolicy({ profile: p }).id, `${p}/v1`);
  });

  it('keys the ia profile by SURT without saying so twice in the id', () => {
    const p = resolvePolicy({ profile: 'ia' });
    assert.equal(p.id, 'ia/v2');
    assert.equal(p.surt, true);
  });

  it('adds +surt and the hash of the rules text to the id', () => {
    assert.equal(resolvePolicy({ surt: true }).id, 'default/v1+surt');
    const a = resolvePolicy({ profile: 'nutch', rules: 'global strip-param ref\n' }).id;
    assert.match(a, /^nutch\/v1\+rules-[0-9a-f]{8}$/);
    assert.notEqual(resolvePolicy({ profile: 'nutch', rules: 'global strip-param src\n' }).id, a);
    assert.equal(resolvePolicy({ profile: 'nutch', rules: 'global strip-param ref\n' }).id, a);
  });

  it('refuses an unknown profile, drum-only flags on another profile and profiles in raw mode', () => {
    throwsBadOption(() => resolvePolicy({ profile: 'wget' as never }));
    throwsBadOption(() => resolvePolicy({ profile: 'nutch', stripWww: true }));
    throwsBadOption(() => resolvePolicy({ profile: 'w3lib', trackingParams: ['x'] }));
    throwsBadOption(() => resolvePolicy({ mode: 'none', profile: 'nutch' }));
    throwsBadOption(() => resolvePolicy({ mode: 'none', surt: true }));
    throwsBadOption(() => resolvePolicy({ rules: 'global frobnicate x\n' }));
  });

  it('canonicalizes under the drum profile exactly as without one', () => {
    const a = resolvePolicy();
    const b = resolvePolicy({ profile: 'drum' });
    for (const u of ['HTTP://Www.A.com:80/x/../y?b=2&a=1#f', 'http://a.com/?utm_source=x&id=1', 'mailto:x@a.com']) {
      assert.deepEqual(canonicalizeString(u, null, b), canonicalizeString(u, null, a));
    }
  });
});
