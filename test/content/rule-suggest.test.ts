// URL rules from exact duplicates: a parameter, index.html or trailing slash
// that two byte-identical documents of one host differ by becomes a rule
// with its support; a rule that would fold two URLs of the host whose
// documents differ is counted against and written commented out; rules
// never come from pairs of two hosts. A rules file the disk will not take
// is DRUM_IO naming it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { RuleMiner, writeSuggestedRules } from '../../src/content/rule-suggest.js';
import { parseRules } from '../../src/canonicalize/user-rules.js';
import { tempDir } from '../helpers/tmp.js';
import { isDrumError } from '../../src/errors.js';

describe('rule suggestion', () => {
  it('learns parameters and path variants with support and counter-examples', () => {
    const m = new RuleMiner();
    const docs: [string, string][] = [
      ['http://a.example/x?id=1', 'k1'], ['http://a.example/x?id=1&ref=rss', 'k1'],
      ['http://a.example/y?id=2', 'k2'], ['http://a.example/y?id=2&ref=mail', 'k2'],
      ['http://a.example/d/', 'k3'], ['http://a.example/d/index.html', 'k3'], ['http://a.example/d', 'k3'],
      ['http://a.example/p?page=1', 'k4'], ['http://a.example/p?page=1&v=2', 'k4'], ['http://a.example/p?page=2&v=2', 'k5'],
      ['http://b.example/x?ref=1', 'k1'],
    ];
    for (const [u, k] of docs) m.doc(u, k);
    m.pair('http://a.example/x?id=1&ref=rss', 'http://a.example/x?id=1');
    m.pair('http://a.example/y?id=2&ref=mail', 'http://a.example/y?id=2');
    m.pair('http://a.example/d/index.html', 'http://a.example/d/');
    m.pair('http://a.example/d', 'http://a.example/d/');
    m.pair('http://a.example/p?page=1&v=2', 'http://a.example/p?page=1');
    m.pair('http://b.example/x?ref=1', 'http://a.example/x?id=1');
    const got = m.suggest(1).map((r) => [r.rule, r.support, r.against]);
    assert.deepEqual(got, [
      ['host a.example strip-param ref', 2, 0],
      ['host a.example strip-param v', 1, 0],
      ['host a.example regex s|/index\\.html?(\\?.*)?$|/$1|', 1, 0],
      ['host a.example regex s|^(https?://[^/?#]+/[^?#]*[^/?#])/(\\?.*)?$|$1$2|', 1, 0],
    ]);
    // page=1&v=2 and page=2&v=2 differ: stripping page would fold them, but page never separated an exact pair.
    m.pair('http://a.example/p?page=2&v=2', 'http://a.example/p?page=1&v=2'); // a wrong pair (say, a hash collision) proposes page
    const page = m.suggest(1).find((r) => r.rule.endsWith('strip-param page'))!;
    assert.equal(page.against, 1); // p?page=1&v=2 and p?page=2&v=2 would fold, their documents differ
    const file = join(tempDir('drum-rules-'), 'rules.txt');
    const active = writeSuggestedRules(file, m.suggest(1));
    assert.equal(active, 4);
    const text = fs.readFileSync(file, 'utf8');
    assert.match(text, /^# host a\.example strip-param page$/m);
    assert.equal(parseRules(text).length, 4);
  });

  it('needs the minimum support', () => {
    const m = new RuleMiner();
    m.pair('http://a.example/x?ref=1', 'http://a.example/x');
    assert.equal(m.suggest(2).length, 0);
    assert.equal(m.suggest(1).length, 1);
  });

  it('refuses with DRUM_IO naming the rules file when the disk will not take it', (t) => {
    if (!fs.existsSync('/dev/full')) return t.skip('needs /dev/full (Linux)');
    // /dev/full refuses every write with ENOSPC, as a full disk does.
    assert.throws(() => writeSuggestedRules('/dev/full', []), (e) => isDrumError(e, 'DRUM_IO') && (e as { file?: string }).file === '/dev/full');
  });
});
