// User rules (src/canonicalize/user-rules.ts and their use in post.ts): the
// line format and its errors, strip-param and regex per host or global, and
// that a policy with rules is deterministic and idempotent.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalizeString, resolvePolicy } from '../../src/canonicalize/index.js';
import { applyRules, parseRules } from '../../src/canonicalize/user-rules.js';
import { isDrumError } from '../../src/errors.js';

const RULES = [
  '# tracking on the shop only',
  'host shop.example strip-param ref',
  'global strip-param utm2_*',
  '',
  'host example.org regex s|/print/(.*)$|/$1|',
  'global regex s/\\/index\\.php$/\\//i',
].join('\n');

function canon(s: string, rules = RULES, profile: 'drum' | 'nutch' = 'drum'): string {
  const r = canonicalizeString(s, null, resolvePolicy({ profile, rules }));
  return typeof r === 'string' ? r : r.url;
}

describe('user rules', () => {
  it('strips a parameter on the named host and its subdomains only', () => {
    assert.equal(canon('http://shop.example/p?ref=1&id=2'), 'http://shop.example/p?id=2');
    assert.equal(canon('http://m.shop.example/p?REF=1'), 'http://m.shop.example/p');
    assert.equal(canon('http://notshop.example/p?ref=1'), 'http://notshop.example/p?ref=1');
  });

  it('strips a parameter prefix everywhere with a global rule', () => {
    assert.equal(canon('http://a.com/?utm2_x=1&utm2_y=2&k=3'), 'http://a.com/?k=3');
  });

  it('rewrites with a regex (any delimiter, $1, the i flag) and canonicalizes the result again', () => {
    assert.equal(canon('http://example.org/print/A%7eB'), 'http://example.org/A~B');
    assert.equal(canon('http://a.com/x/INDEX.PHP'), 'http://a.com/x/');
  });

  it('applies after the profile, so rules see the profile\'s key', () => {
    assert.equal(canon('http://shop.example//a?ref=1', 'host shop.example strip-param ref', 'nutch'), 'http://shop.example/a');
  });

  it('refuses a bad rule with DRUM_BAD_OPTION naming the line', () => {
    for (const bad of ['global frob x', 'host strip-param x', 'global strip-param a=b', 'global regex s/(/x/', 'global regex s/a/b/q', 'world strip-param x', 'global regex s/a/b']) {
      assert.throws(() => parseRules('# ok\n' + bad), (e: unknown) => isDrumError(e, 'DRUM_BAD_OPTION') && /line 2/.test((e as Error).message), bad);
    }
  });

  it('rejects a URL the rules keep rewriting instead of looping', () => {
    assert.equal(canon('http://a.com/x', 'global regex s/x$/xx/'), 'invalid-url');
  });

  it('is deterministic and idempotent: the same rules give the same key, and a key canonicalizes to itself', () => {
    const policy = resolvePolicy({ rules: RULES });
    const urlArb = fc.tuple(
      fc.constantFrom('http://shop.example', 'http://example.org', 'http://A.com', 'https://m.shop.example:8080'),
      fc.array(fc.constantFrom('print', 'index.php', 'INDEX.PHP', 'a', '%7e', ''), { maxLength: 4 }),
      fc.array(fc.constantFrom('ref=1', 'utm2_a=2', 'k=3', 'b', 'REF'), { maxLength: 4 }),
    ).map(([h, p, q]) => h + '/' + p.join('/') + (q.length ? '?' + q.join('&') : ''));
    fc.assert(fc.property(urlArb, (s) => {
      const a = canonicalizeString(s, null, policy);
      assert.deepEqual(canonicalizeString(s, null, resolvePolicy({ rules: RULES })), a);
      if (typeof a !== 'string') assert.deepEqual(canonicalizeString(a.url, null, policy), a);
    }), { seed: 99, numRuns: 500 });
  });

  it('applyRules leaves a URL untouched when no rule matches its host', () => {
    assert.equal(applyRules(parseRules('host b.com strip-param x'), 'http://a.com/?x=1', 'a.com'), 'http://a.com/?x=1');
  });
});
