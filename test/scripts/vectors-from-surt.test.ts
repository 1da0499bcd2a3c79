// scripts/vectors-from-surt.ts reads `surt.surt(url) == key` assertions with
// default options out of a Python test file (written here, not copied).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pyString, surtCases } from '../../scripts/vectors-from-surt.js';

describe('vectors from the Python surt tests', () => {
  it('takes default-option assertions, joins continued lines and skips calls with keyword arguments', () => {
    const text = [
      "    assert surt.surt('http://a.example/x/') == 'example,a)/x'",
      '    assert surt.surt("http://b.example/?q=1") \\',
      "        == 'example,b)/?q=1'",
      "    assert surt.surt('http://c.example/', with_scheme=True) == 'http://(example,c)/'",
      "    assert surt.surt(b'http://d.example/\\xc3\\xa9') == 'example,d)/%c3%a9'",
    ].join('\n');
    assert.deepEqual(surtCases(text), [
      { in: 'http://a.example/x/', out: 'example,a)/x', form: 'surt' },
      { in: 'http://b.example/?q=1', out: 'example,b)/?q=1', form: 'surt' },
      { in: 'http://d.example/é', out: 'example,d)/%c3%a9', form: 'surt' },
    ]);
  });

  it('reads Python escapes in string literals', () => {
    assert.equal(pyString('', "'a\\tb\\'c'"), "a\tb'c");
    assert.equal(pyString('u', '"\\u00e9"'), 'é');
  });
});
