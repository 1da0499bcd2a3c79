// Properties of every profile (src/canonicalize/profiles/): the key is
// printable ASCII, a URL WHATWG parses as http(s) (a SURT key for ia),
// canon(canon(x)) = canon(x), and the host range is the URL's host[:port];
// plus a few named examples per profile. Agreement with the peers' own test
// cases is measured by scripts/canon-agreement.ts (test/scripts/).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalizeString, resolvePolicy, type CanonicalPolicy } from '../../../src/canonicalize/index.js';
import type { ProfileName } from '../../../src/canonicalize/types.js';

const pick = (xs: string[]) => fc.constantFrom(...xs);
const urlArb = fc.record({
  scheme: pick(['http', 'https', 'HTTP', 'Https', 'ftp', '']),
  sep: pick(['://', '://', '://', ':/', ':///', ':\\\\']),
  user: pick(['', '', '', 'u@', 'U:p%40@', '@']),
  host: pick(['example.com', 'WWW.Example.COM', 'www2.a.org', 'a..b', '.a.b.', 'münchen.de', '%31%32%37.0.0.1', '3279880203', '0x7f.1',
    '[::1]', 'host%23.com', 'a b.com', '', 'xn--mnchen-3ya.de', 'www.www.x.org', 'a_b.c']),
  port: pick(['', '', ':80', ':443', ':8080', ':', ':0080', ':x']),
  path: fc.array(pick(['', '.', '..', 'a', 'B', '%2e', '%252e', '%25', '%', '%zz', '%7e', '%2F', '%3f', 'é', 'a b', '|', '{x}', "it's",
    ';jsessionid=0123456789abcdef0123456789abcdef', '(S(abcdefghijklmnopqrstuvwx))', 'x.aspx', 'Index.HTML', 'www', 'a\\b']), { maxLength: 5 })
    .map((s) => '/' + s.join('/')),
  query: fc.option(fc.array(pick(['a=1', 'B=2', 'b', '', 'q=a b', 'q=a+b', 'q=%20', 'x=%e4', 'sid=0123456789abcdef0123456789abcdef',
    'jsessionid=0123456789abcdef0123456789ABCDEF', 'CFID=1', 'CFTOKEN=2', 'utm_source=x', 'p=%2525', 'k=é', 'u=?/', '1750,4']), { maxLength: 5 })
    .map((ps) => '?' + ps.join('&'))),
  frag: pick(['', '#', '#x', '#a#b']),
}).map((u) => u.scheme + (u.scheme === '' ? '' : u.sep) + u.user + u.host + u.port + u.path + (u.query ?? '') + u.frag);

const inputArb = fc.oneof({ weight: 6, arbitrary: urlArb }, { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }).map((s) => 'http://a.com/' + s) });

const PROFILE_NAMES: ProfileName[] = ['heritrix', 'ia', 'nutch', 'w3lib', 'safebrowsing'];

function printable(s: string): boolean {
  return /^[\x21-\x7e]+$/.test(s);
}

function checkKey(input: string, p: CanonicalPolicy): void {
  const r = canonicalizeString(input, null, p);
  if (typeof r === 'string') return;
  assert.ok(printable(r.url), `${p.id}: ${JSON.stringify(input)} -> ${JSON.stringify(r.url)} is not printable ASCII`);
  if (p.surt) {
    assert.ok(r.url.includes(')'), r.url);
  } else {
    const u = new URL(r.url);
    assert.ok(u.protocol === 'http:' || u.protocol === 'https:', r.url);
    const auth = r.url.slice(r.url.indexOf('://') + 3).split(/[/?]/)[0]!;
    assert.equal(r.url.slice(r.hostStart, r.hostEnd), auth.slice(auth.lastIndexOf('@') + 1), `${p.id}: host range of ${r.url}`);
  }
  assert.deepEqual(canonicalizeString(r.url, null, p), p.surt ? canonicalizeString(r.url, null, p) : r, `${p.id}: not idempotent on ${r.url}`);
}

describe('every profile', () => {
  for (const name of PROFILE_NAMES) {
    it(`${name}: keys are printable ASCII http(s) URLs (ia: SURT keys) and canonicalizing a key gives the key back`, () => {
      const p = resolvePolicy({ profile: name });
      const url = resolvePolicy({ profile: name, surt: false });
      fc.assert(fc.property(inputArb, (s) => {
        checkKey(s, p);
        if (name !== 'ia') checkKey(s, url);
      }), { seed: 2121, numRuns: 1500 });
    });
  }

  it('ia: the SURT key of a key-shaped URL does not change when its URL stage runs again', () => {
    const p = resolvePolicy({ profile: 'ia' });
    fc.assert(fc.property(urlArb, (s) => {
      const a = canonicalizeString(s, null, p);
      const b = canonicalizeString(s, null, p);
      assert.deepEqual(a, b);
    }), { seed: 7, numRuns: 300 });
  });
});

describe('named profile rules', () => {
  const canon = (profile: ProfileName, s: string, base: string | null = null) => {
    const r = canonicalizeString(s, base, resolvePolicy({ profile }));
    return typeof r === 'string' ? r : r.url;
  };

  it('heritrix lowercases the whole URL, strips userinfo, www and session ids, and fixes the query', () => {
    assert.equal(canon('heritrix', 'http://u:p@WWW3.Archive.org/Index.html?jsessionid=0123456789abcdef0123456789abcdef&X=Y#f'),
      'http://archive.org/index.html?x=y');
    assert.equal(canon('heritrix', 'http://www.archive.org/'), 'http://www.archive.org/', 'a bare host keeps its www');
  });

  it('nutch collapses slashes, drops userinfo, keeps the query order and normalizes escapes', () => {
    assert.equal(canon('nutch', 'http://u@Foo.com:80//a//b/%66?b=1&a=%7e#x'), 'http://foo.com/a/b/f?b=1&a=~');
  });

  it('w3lib sorts the query by name then value, writes spaces as + and keeps the path dots and port 80', () => {
    assert.equal(canon('w3lib', 'http://Example.com:80/a/./b?c=3&b=5&b=2&q=a b'), 'http://example.com:80/a/./b?b=2&b=5&c=3&q=a+b');
  });

  it('safebrowsing unescapes repeatedly and escapes only control, space, #, % and non-ASCII', () => {
    assert.equal(canon('safebrowsing', 'http://host/%2525252525252525'), 'http://host/%25');
    assert.equal(canon('safebrowsing', 'www.google.com'), 'http://www.google.com/');
    assert.equal(canon('safebrowsing', 'http://3279880203/blah'), 'http://195.127.0.11/blah');
  });

  it('ia writes SURT keys: www stripped, lowercased, trailing slash gone, query sorted', () => {
    assert.equal(canon('ia', 'http://www.Archive.org/Goo/?b&a'), 'org,archive)/goo?a&b');
  });

  it('resolves a relative reference against the TSV source URL first', () => {
    assert.equal(canon('nutch', '../x//y', 'http://a.com/b/c/d'), 'http://a.com/b/x/y');
    assert.equal(canon('w3lib', 'g?b=1&a=2', 'http://a.com/b/c'), 'http://a.com/b/g?a=2&b=1');
  });

  it('rejects what no key can be made of', () => {
    assert.equal(canon('nutch', 'ftp://a.com/'), 'unsupported-scheme');
    assert.equal(canon('w3lib', 'g/h'), 'relative-without-base');
    assert.equal(canon('safebrowsing', 'http://%20leadingspace.com/'), 'invalid-host');
    assert.equal(canon('heritrix', '   '), 'empty');
  });
});
