// Test helper: fast-check arbitraries of URL-ish strings aimed at the
// canonicalization fast path's branches (schemes, hosts with xn-- and
// IPv4-ish labels, ports, dot segments, %XX, session and tracking params,
// unsorted queries, fragments, bad bytes) and of the four policy flags. Not
// a test itself; shared by fast.test.ts and wasm.test.ts, with sameBatch,
// the assertion that two canonical batches are identical.

import assert from 'node:assert/strict';
import fc from 'fast-check';
import { resolvePolicy, type CanonicalBatch } from '../../src/canonicalize/index.js';

export const pick = (xs: string[]) => fc.constantFrom(...xs);
const label = pick(['a', 'example', 'www', 'WWW', 'Ex-Am', 'xn--mnchen-3ya', 'xn--zz', 'münchen', '1', '0x7f', '123', 'com', 'ORG', 'a_b', '-x-', 'x'.repeat(64)]);
const host = fc.oneof(
  { weight: 6, arbitrary: fc.tuple(fc.array(label, { minLength: 1, maxLength: 4 }), fc.boolean()).map(([ls, dot]) => ls.join('.') + (dot ? '.' : '')) },
  { weight: 1, arbitrary: pick(['127.0.0.1', '10.0.0.010', '[::1]', '[::1', '[0:0::1]', '999.1.1.1', '', 'a b', 'a..b', 'a%2eb', 'A.B.C.']) },
);
export const urlArb = fc.record({
  scheme: fc.oneof({ weight: 8, arbitrary: pick(['http', 'https']) }, { weight: 1, arbitrary: pick(['HTTP', 'Https', 'ftp', 'mailto']) }),
  sep: fc.oneof({ weight: 8, arbitrary: fc.constant('://') }, { weight: 1, arbitrary: pick([':/', ':', ':\\\\', ':///']) }),
  user: fc.oneof({ weight: 8, arbitrary: fc.constant('') }, { weight: 1, arbitrary: pick(['u@', 'u:p@', '@']) }),
  host,
  port: fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: pick([':80', ':443', ':8080', ':0', ':065535', ':65536', ':', ':x', ':099']) }),
  path: fc.option(fc.array(pick(['', '.', '..', 'a', 'B', 'Dir', '%2e', '%2E%2e', '%7e', '%41', '%zz', '%', ';jsessionid=ABC', 'x;y=1',
    'index.html', 'Index.PHP', "it's", 'a b', 'é', '|', '~', '!$&()*+,=:@', 'a\\b']), { maxLength: 5 }).map((s) => '/' + s.join('/'))),
  query: fc.option(fc.array(fc.tuple(pick(['a', 'b', 'B', 'utm_source', 'UTM_x', 'gclid', 'sid', 'PHPSESSID', 'aspsessionidX', 'q', 'z', 'ab', 'a_b', '', "x'", 'a%5Fb']),
    pick(['', '=', '=1', '=x%20y', '=0123456789abcdef0123', '=a?b/c', "='", '=é'])).map(([n, v]) => n + v), { maxLength: 4 }).map((ps) => '?' + ps.join('&'))),
  frag: pick(['', '', '#', '#x', '#a b', '#é', '#%']),
}).map((u) => u.scheme + u.sep + u.user + u.host + u.port + (u.path ?? '') + (u.query ?? '') + u.frag);

/** Mostly plain links, the fast path's target: sorted or unsorted plain queries, plain paths, mixed-case hosts. */
export const plainArb = fc.record({
  scheme: pick(['http', 'https']),
  host: fc.array(pick(['www', 'WWW', 'a', 'Ex-Am', 'example', 'com', 'org', 'x9']), { minLength: 1, maxLength: 4 }).map((l) => l.join('.')),
  port: pick(['', '', '', ':80', ':443', ':8080']),
  path: fc.array(pick(['a', 'B', 'index.html', 'Default.aspx', 'x-y_z~', "it's", 'p(1)', '..', 'e=mc2', 'a:b@c', '%2f', '%C3%a9', 'Up%5bX%5D']), { maxLength: 4 }).map((s) => '/' + s.join('/')),
  query: fc.option(fc.array(pick(['a=1', 'b=2', 'B=3', 'ab', 'a=', 'q=x/y?z', 'utm_id=1', 'sid=1', 'z;z=1', 'q=%3d%20', '%2A=1', '%2a', 'b%20c=%7C', 'A=9']), { maxLength: 5 }).map((ps) => '?' + ps.join('&'))),
  frag: pick(['', '#', '#top', '#a/b?c']),
}).map((u) => u.scheme + '://' + u.host + u.port + u.path + (u.query ?? '') + u.frag);

export const anyUrlArb = fc.oneof(urlArb, plainArb);

export const policyArb = fc.record({ stripWww: fc.boolean(), foldHttps: fc.boolean(), stripIndex: fc.boolean(), lowercasePath: fc.boolean() })
  .map((o) => resolvePolicy(o));

export function sameBatch(a: CanonicalBatch, b: CanonicalBatch): void {
  assert.equal(a.count, b.count);
  assert.ok(a.bytes.equals(b.bytes), `${a.bytes.toString('latin1')} != ${b.bytes.toString('latin1')}`);
  assert.deepEqual([...a.ends], [...b.ends]);
  assert.deepEqual([...a.hostStarts], [...b.hostStarts]);
  assert.deepEqual([...a.hostEnds], [...b.hostEnds]);
  assert.deepEqual(a.rejects.map((r) => [r.line, r.reason]), b.rejects.map((r) => [r.line, r.reason]));
}
