// SURT keys (src/canonicalize/surt.ts): the form Heritrix and the Wayback
// Machine write, and the host range the host fingerprint is taken from; a
// host whose characters SURT uses as separators is refused, under every profile.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { canonicalizeString, resolvePolicy } from '../../src/canonicalize/index.js';
import { hostToSurt, surtOf } from '../../src/canonicalize/surt.js';

describe('SURT form', () => {
  it('reverses host labels, keeps the port, drops the scheme and writes ) before the path', () => {
    const url = 'http://www.example.com:8080/a/b?c=d';
    const s = surtOf(url, 7, 27);
    assert.deepEqual(s, { url: 'com,example,www:8080)/a/b?c=d', hostStart: 0, hostEnd: 20 });
  });

  it('reverses IPv4 addresses and unbrackets IPv6 literals, as the Wayback key maker does', () => {
    assert.equal(hostToSurt('34.203.211.192'), '192,211,203,34');
    assert.equal(hostToSurt('[2600:1f18::150a]'), '2600:1f18::150a');
  });

  it('keys the drum profile by SURT with --surt, the same host range for the same host', () => {
    const p = resolvePolicy({ surt: true });
    const a = canonicalizeString('HTTP://Example.com/x?b=1&a=2', null, p);
    const b = canonicalizeString('https://example.com/y', null, p);
    assert.ok(typeof a !== 'string' && typeof b !== 'string');
    assert.equal(a.url, 'com,example)/x?a=2&b=1');
    assert.equal(a.url.slice(a.hostStart, a.hostEnd), b.url.slice(b.hostStart, b.hostEnd));
  });

  it('never gives two URLs of different hosts or paths the same SURT key, under any profile (property)', () => {
    // A small space of hosts, some labels holding SURT's separators, so that hosts like a,b.com and b.a.com meet in a draw.
    const label = fc.constantFrom('a', 'b', 'a,b', 'b,a', 'a)');
    const url = fc.tuple(fc.array(label, { minLength: 1, maxLength: 2 }), fc.constantFrom('/', '/x')).map(([ls, path]) => `http://${ls.join('.')}.com${path}`);
    for (const profile of ['drum', 'heritrix', 'nutch', 'w3lib', 'safebrowsing', 'ia'] as const) {
      const surt = resolvePolicy({ profile, surt: true });
      const plain = resolvePolicy(profile === 'ia' ? { profile: 'heritrix' } : { profile });
      fc.assert(
        fc.property(fc.uniqueArray(url, { minLength: 2, maxLength: 8 }), (urls) => {
          const byKey = new Map<string, string>();
          for (const u of urls) {
            const k = canonicalizeString(u, null, surt);
            const p = canonicalizeString(u, null, plain);
            if (typeof k === 'string' || typeof p === 'string') continue;
            // The key's preimage: the canonical URL without its scheme (SURT drops it by design).
            const pre = p.url.slice(p.url.indexOf('://') + 3).replace(/^www\./, '');
            const seen = byKey.get(k.url);
            assert.ok(seen === undefined || seen === pre, `${profile}: ${seen} and ${pre} share ${k.url}`);
            byKey.set(k.url, pre);
          }
        }),
        { seed: 77, numRuns: 300 },
      );
    }
  });

  it('rejects a host holding , or ) under --surt as invalid-host (the drum profile already does)', () => {
    for (const profile of ['nutch', 'heritrix', 'w3lib', 'safebrowsing', 'ia'] as const) {
      const p = resolvePolicy({ profile, surt: true });
      assert.equal(canonicalizeString('http://a,b.com/', null, p), 'invalid-host', profile);
      assert.equal(canonicalizeString('http://a)b.com/x', null, p), 'invalid-host', profile);
      assert.ok(typeof canonicalizeString('http://b.a.com/', null, p) !== 'string', profile);
    }
  });
});
