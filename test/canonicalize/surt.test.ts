// SURT keys (src/canonicalize/surt.ts): the form Heritrix and the Wayback
// Machine write, and the host range the host fingerprint is taken from.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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
});
