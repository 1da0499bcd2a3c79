// Every named rule of docs/canonicalization.md with before -> after examples,
// run through the full path (canonicalizeString), plus the RFC 3986 §5.4
// resolution examples. Fast-path equivalence lives in fast.test.ts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalizeString, resolvePolicy, type CanonicalPolicyOptions } from '../../src/canonicalize/index.js';

function canon(input: string, opts: CanonicalPolicyOptions = {}, base: string | null = null): string {
  const r = canonicalizeString(input, base, resolvePolicy(opts));
  return typeof r === 'string' ? `!${r}` : r.url;
}

function cases(list: [string, string][], opts: CanonicalPolicyOptions = {}): void {
  for (const [input, want] of list) assert.equal(canon(input, opts), want, input);
}

describe('canonicalization rules', () => {
  it('rule http-only: keeps http and https and rejects other schemes as unsupported-scheme', () => {
    cases([
      ['http://a.com/', 'http://a.com/'],
      ['https://a.com/', 'https://a.com/'],
      ['mailto:x@a.com', '!unsupported-scheme'],
      ['javascript:void(0)', '!unsupported-scheme'],
      ['ftp://a.com/f', '!unsupported-scheme'],
      ['data:text/plain,x', '!unsupported-scheme'],
      ['tel:+123', '!unsupported-scheme'],
    ]);
  });

  it('rule lowercase-scheme-host: lowercases the scheme and the host but not the path', () => {
    cases([['HTTP://WWW.Example.COM/Path/File.HTML', 'http://www.example.com/Path/File.HTML']]);
  });

  it('rule idn-punycode: converts internationalized host names to punycode', () => {
    cases([
      ['http://münchen.de/', 'http://xn--mnchen-3ya.de/'],
      ['http://español.smokefree.gov/', 'http://xn--espaol-zwa.smokefree.gov/'],
      ['http://MÜNCHEN.de/', 'http://xn--mnchen-3ya.de/'],
    ]);
  });

  it('rule trailing-dot: removes trailing dots from the host', () => {
    cases([
      ['http://example.com./a', 'http://example.com/a'],
      ['http://example.com.:8080/', 'http://example.com:8080/'],
    ]);
  });

  it('rule default-port: drops :80 for http and :443 for https, keeps others', () => {
    cases([
      ['http://a.com:80/', 'http://a.com/'],
      ['https://a.com:443/', 'https://a.com/'],
      ['http://a.com:443/', 'http://a.com:443/'],
      ['http://a.com:8080/', 'http://a.com:8080/'],
      ['http://a.com:0080/', 'http://a.com/'],
    ]);
  });

  it('rule empty-path: an empty path becomes /', () => {
    cases([
      ['http://a.com', 'http://a.com/'],
      ['http://a.com?x=1', 'http://a.com/?x=1'],
    ]);
  });

  it('rule dot-segments: resolves . and .. segments, including escaped ones', () => {
    cases([
      ['http://a.com/a/./b/../c', 'http://a.com/a/c'],
      ['http://a.com/../../x', 'http://a.com/x'],
      ['http://a.com/a/%2e%2E/b', 'http://a.com/b'],
    ]);
  });

  it('rule fragment: removes the fragment', () => {
    cases([
      ['http://a.com/p#top', 'http://a.com/p'],
      ['http://a.com/p?q=1#', 'http://a.com/p?q=1'],
    ]);
  });

  it('rule percent-encoding: uppercases hex, decodes unreserved escapes, escapes what must be escaped', () => {
    cases([
      ['http://a.com/%7euser/%41b', 'http://a.com/~user/Ab'],
      ['http://a.com/a%2fb%3f', 'http://a.com/a%2Fb%3F'],
      ['http://a.com/%c3%a9', 'http://a.com/%C3%A9'],
      ['http://a.com/é', 'http://a.com/%C3%A9'],
      ['http://a.com/a b|c^d[e]{f}', 'http://a.com/a%20b%7Cc%5Ed%5Be%5D%7Bf%7D'],
      ['http://a.com/100%', 'http://a.com/100%25'],
      ['http://a.com/%zz', 'http://a.com/%25zz'],
      ['http://a.com/?q=a%7eb%2b+c|d', 'http://a.com/?q=a~b%2B+c%7Cd'],
    ]);
  });

  it('rule tracking-params: removes the documented tracking parameters, case-insensitively', () => {
    cases([
      ['http://a.com/?utm_source=x&utm_medium=y&id=3', 'http://a.com/?id=3'],
      ['http://a.com/?id=3&gclid=1&fbclid=2&msclkid=3&_ga=4&igshid=5&mc_cid=6&mc_eid=7', 'http://a.com/?id=3'],
      ['http://a.com/?UTM_Campaign=spring', 'http://a.com/'],
      ['http://a.com/?utm%5Fsource=x&b=1', 'http://a.com/?b=1'],
    ]);
  });

  it('rule tracking-params: uses a configured list instead of the default one', () => {
    cases([['http://a.com/?utm_source=x&ref=y&keep=1', 'http://a.com/?keep=1&utm_source=x']], { trackingParams: ['ref'] });
    cases([['http://a.com/?xa=1&xb=2&y=3', 'http://a.com/?y=3']], { trackingParams: ['x*'] });
  });

  it('rule session-params: removes session id query parameters, and sid only when it looks like a token', () => {
    cases([
      ['http://a.com/p?PHPSESSID=abc&id=1', 'http://a.com/p?id=1'],
      ['http://a.com/p?sessionid=abc&jsessionid=x&id=1', 'http://a.com/p?id=1'],
      ['http://a.com/p?ASPSESSIONIDQQGGQGPD=abc&id=1', 'http://a.com/p?id=1'],
      ['http://a.com/p?CFID=1&CFTOKEN=2&id=1', 'http://a.com/p?id=1'],
      ['http://a.com/p?sid=0123456789abcdefABCD&id=1', 'http://a.com/p?id=1'],
      ['http://a.com/p?sid=12&id=1', 'http://a.com/p?id=1&sid=12'],
    ]);
  });

  it('rule session-path-params: removes ;jsessionid= and other session path parameters', () => {
    cases([
      ['http://a.com/shop;jsessionid=0A1B2C3D?item=1', 'http://a.com/shop?item=1'],
      ['http://a.com/a;JSESSIONID=x/b', 'http://a.com/a/b'],
      ['http://a.com/a;v=2/b', 'http://a.com/a;v=2/b'],
      ['http://a.com/x/..;jsessionid=1/b', 'http://a.com/b'],
    ]);
  });

  it('rule sort-query: sorts parameters by name, keeping equal names in their order', () => {
    cases([
      ['http://a.com/?b=2&a=1&c=3', 'http://a.com/?a=1&b=2&c=3'],
      ['http://a.com/?b=1&a=9&b=0&a=1', 'http://a.com/?a=9&a=1&b=1&b=0'],
      ['http://a.com/?B=1&a=1', 'http://a.com/?B=1&a=1'],
    ]);
  });

  it('rule empty-query: drops an empty ? and empty & pairs', () => {
    cases([
      ['http://a.com/p?', 'http://a.com/p'],
      ['http://a.com/p?&&', 'http://a.com/p'],
      ['http://a.com/p?a=1&&b=2&', 'http://a.com/p?a=1&b=2'],
      ['http://a.com/p?utm_source=x', 'http://a.com/p'],
      ['http://a.com/p?a=&b', 'http://a.com/p?a=&b'],
    ]);
  });

  it('rule ip-literal: normalizes IPv4 and IPv6 hosts as WHATWG does', () => {
    cases([
      ['http://0x7f.1/', 'http://127.0.0.1/'],
      ['http://192.168.000.001:8080/', 'http://192.168.0.1:8080/'],
      ['http://[0:0:0:0:0:0:0:1]/', 'http://[::1]/'],
      ['http://999.1.1.1/', '!invalid-host'],
    ]);
  });

  it('rule userinfo: keeps user:password@ with normalized escapes, outside the host range', () => {
    const r = canonicalizeString('http://User:p%40ss@Host.com/', null, resolvePolicy());
    assert.deepEqual(r, { url: 'http://User:p%40ss@host.com/', hostStart: 19, hostEnd: 27 });
  });

  it('rule whatwg-lenience: trims spaces and reads backslashes as slashes in http(s) URLs', () => {
    cases([
      ['  http://a.com/x  ', 'http://a.com/x'],
      ['http:\\\\a.com\\b\\c', 'http://a.com/b/c'],
    ]);
  });

  it('reports the host[:port] range of the canonical URL', () => {
    const r = canonicalizeString('https://Www.A.com:8443/x?y', null, resolvePolicy());
    assert.deepEqual(r, { url: 'https://www.a.com:8443/x?y', hostStart: 8, hostEnd: 22 });
  });
});

describe('optional rules', () => {
  it('strip-www removes a leading www. but keeps a bare www.tld', () => {
    cases([
      ['http://www.example.com/', 'http://example.com/'],
      ['http://www.com/', 'http://www.com/'],
      ['http://www2.example.com/', 'http://www2.example.com/'],
    ], { stripWww: true });
    assert.equal(canon('http://www.example.com/'), 'http://www.example.com/');
  });

  it('fold-https turns http into https and drops the then-default port 443', () => {
    cases([
      ['http://a.com/x', 'https://a.com/x'],
      ['http://a.com:443/x', 'https://a.com/x'],
      ['http://a.com:8080/x', 'https://a.com:8080/x'],
    ], { foldHttps: true });
  });

  it('strip-index drops a default index file name from the last segment', () => {
    cases([
      ['http://a.com/dir/index.html', 'http://a.com/dir/'],
      ['http://a.com/Index.PHP?x=1', 'http://a.com/?x=1'],
      ['http://a.com/default.aspx', 'http://a.com/'],
      ['http://a.com/index.html/x', 'http://a.com/index.html/x'],
      ['http://a.com/myindex.html', 'http://a.com/myindex.html'],
    ], { stripIndex: true });
  });

  it('lowercase-path lowercases the path but keeps escapes uppercase and the query as is', () => {
    cases([['http://a.com/Dir/%c3%89/F.HTML?Q=A', 'http://a.com/dir/%C3%89/f.html?Q=A']], { lowercasePath: true });
  });
});

describe('RFC 3986 §5.4 reference resolution against http://a/b/c/d;p?q', () => {
  const base = 'http://a/b/c/d;p?q';
  const normal: [string, string][] = [
    ['g:h', '!unsupported-scheme'],
    ['g', 'http://a/b/c/g'],
    ['./g', 'http://a/b/c/g'],
    ['g/', 'http://a/b/c/g/'],
    ['/g', 'http://a/g'],
    ['//g', 'http://g/'],
    ['?y', 'http://a/b/c/d;p?y'],
    ['g?y', 'http://a/b/c/g?y'],
    ['#s', 'http://a/b/c/d;p?q'],
    ['g#s', 'http://a/b/c/g'],
    ['g?y#s', 'http://a/b/c/g?y'],
    [';x', 'http://a/b/c/;x'],
    ['g;x', 'http://a/b/c/g;x'],
    ['g;x?y#s', 'http://a/b/c/g;x?y'],
    ['', '!empty'], // RFC: the base itself; drum rejects an empty URL field
    ['.', 'http://a/b/c/'],
    ['./', 'http://a/b/c/'],
    ['..', 'http://a/b/'],
    ['../', 'http://a/b/'],
    ['../g', 'http://a/b/g'],
    ['../..', 'http://a/'],
    ['../../', 'http://a/'],
    ['../../g', 'http://a/g'],
  ];
  const abnormal: [string, string][] = [
    ['../../../g', 'http://a/g'],
    ['../../../../g', 'http://a/g'],
    ['/./g', 'http://a/g'],
    ['/../g', 'http://a/g'],
    ['g.', 'http://a/b/c/g.'],
    ['.g', 'http://a/b/c/.g'],
    ['g..', 'http://a/b/c/g..'],
    ['..g', 'http://a/b/c/..g'],
    ['./../g', 'http://a/b/g'],
    ['./g/.', 'http://a/b/c/g/'],
    ['g/./h', 'http://a/b/c/g/h'],
    ['g/../h', 'http://a/b/c/h'],
    ['g;x=1/./y', 'http://a/b/c/g;x=1/y'],
    ['g;x=1/../y', 'http://a/b/c/y'],
    ['g?y/./x', 'http://a/b/c/g?y/./x'],
    ['g?y/../x', 'http://a/b/c/g?y/../x'],
    ['g#s/./x', 'http://a/b/c/g'],
    ['g#s/../x', 'http://a/b/c/g'],
    ['http:g', 'http://a/b/c/g'], // the RFC's "for backward compatibility" result, as WHATWG parses it
  ];
  for (const [name, list] of [['normal (§5.4.1)', normal], ['abnormal (§5.4.2)', abnormal]] as const) {
    it(`resolves every ${name} example to its canonical http URL`, () => {
      for (const [ref, want] of list) assert.equal(canon(ref, {}, base), want, ref);
    });
  }

  it('rejects a relative reference without a base as relative-without-base', () => {
    assert.equal(canon('g/h'), '!relative-without-base');
    assert.equal(canon('/g', {}, 'not a url'), '!relative-without-base');
  });

  it('resolves an absolute target without looking at a broken base', () => {
    assert.equal(canon('http://x.com/a', {}, '::junk::'), 'http://x.com/a');
  });
});
