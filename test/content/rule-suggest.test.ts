// URL rules from exact duplicates: a parameter, index.html or trailing slash
// that two byte-identical documents of one host differ by becomes a rule
// with its support; a rule that would fold two URLs of the host whose
// documents differ is counted against and written commented out; rules
// never come from pairs of two hosts. A rules file the disk will not take
// is DRUM_IO and leaves the earlier one whole; a power loss just after the
// file was written keeps it (power-loss.ts's kindest rebuild: only what an
// fsync made durable), in a directory made for it too.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { RuleMiner, writeSuggestedRules } from '../../src/content/rule-suggest.js';
import { parseRules } from '../../src/canonicalize/user-rules.js';
import { tempDir } from '../helpers/tmp.js';
import { isDrumError } from '../../src/errors.js';
import { DrumFs, type FsOp } from '../../src/io/fs.js';
import { PowerLossModel } from '../torture/power-loss/power-loss.js';

const someRules = (): ReturnType<RuleMiner['suggest']> => {
  const m = new RuleMiner();
  m.doc('http://a.example/x?id=1', 'k1');
  m.doc('http://a.example/x?id=1&ref=rss', 'k1');
  m.pair('http://a.example/x?id=1&ref=rss', 'http://a.example/x?id=1');
  return m.suggest(1);
};

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
    const active = writeSuggestedRules(file, m.suggest(1), { fsync: false });
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

  it('refuses with DRUM_IO when the disk will not take the rules file, and keeps the earlier one whole', () => {
    const file = join(tempDir('drum-rules-full-'), 'rules.txt');
    writeSuggestedRules(file, someRules(), { fsync: true });
    const before = fs.readFileSync(file, 'utf8');
    const full = (op: FsOp): void => {
      if (op === 'write') throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    };
    assert.throws(() => writeSuggestedRules(file, [], { fsync: true, dfs: new DrumFs(undefined, full) }), (e) => isDrumError(e, 'DRUM_IO'));
    assert.equal(fs.readFileSync(file, 'utf8'), before);
    assert.deepEqual(fs.readdirSync(join(file, '..')), ['rules.txt']);
  });

  it('keeps the rules file, and the new directories that hold it, when power is lost just after it was written', () => {
    const world = tempDir('drum-rules-power-');
    const file = join(world, 'new', 'deeper', 'rules.txt');
    const model = new PowerLossModel(world);
    writeSuggestedRules(file, someRules(), { fsync: true, dfs: new DrumFs(undefined, (op, path) => model.observe(op, path)) });
    const want = fs.readFileSync(file, 'utf8');
    const image = `${world}-image`;
    model.build(image, world);
    try {
      assert.equal(fs.readFileSync(join(image, 'new', 'deeper', 'rules.txt'), 'utf8'), want);
    } finally {
      fs.rmSync(image, { recursive: true, force: true });
    }
  });
});
