// The user rules file docs/canonicalization.md shows ("User rules") is
// accepted as written and does what its comments say: a documented example
// that does not parse fails here.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join, resolve } from 'node:path';
import { canonicalizeString, resolvePolicy } from '../../src/canonicalize/index.js';

const ROOT = resolve(import.meta.dirname, '..', '..', '..');

/** The first fenced block after the "## User rules" heading. */
function rulesExample(): string {
  const md = fs.readFileSync(join(ROOT, 'docs', 'canonicalization.md'), 'utf8');
  const from = md.indexOf('\n## User rules\n');
  const open = md.indexOf('```\n', from);
  return md.slice(open + 4, md.indexOf('```', open + 4));
}

describe('docs/canonicalization.md user rules example', () => {
  it('parses as written and strips, rewrites and scopes as its comments say', () => {
    const p = resolvePolicy({ rules: rulesExample() });
    const url = (u: string): string => {
      const r = canonicalizeString(u, null, p);
      assert.ok(typeof r !== 'string', `${u}: ${String(r)}`);
      return r.url;
    };
    assert.equal(url('http://a.example.net/x?ref=1&b=2'), 'http://a.example.net/x?b=2');
    assert.equal(url('http://www.example.com/x?sid=9&b=2'), 'http://www.example.com/x?b=2');
    assert.equal(url('http://other.net/x?sid=9'), 'http://other.net/x?sid=9');
    assert.equal(url('http://other.net/x?utm2_source=a&k=1'), 'http://other.net/x?k=1');
    assert.equal(url('http://example.org/print/page'), 'http://example.org/page');
  });
});
