// End-to-end tests of canonicalization profiles, user rules and SURT keys
// with the real bin/drum: a store remembers its profile and rules (a later
// run without flags uses them, another profile is DRUM_POLICY_MISMATCH),
// and `drum canonicalize --surt` prints SURT keys. Skips when the compiled
// engine is absent. Each test uses its own temp state directory.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_STATUS } from '../../src/errors.js';
import type { RunReport } from '../../src/stats/report.js';
import { bin, distRoot, drum, uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const noEngine = !existsSync(join(distRoot, 'src', 'engine', 'drum.js')) || !existsSync(bin);
const FAST = ['--no-fsync', '--no-progress', '--workers', '0'];

function write(dir: string, name: string, lines: string[]): string {
  const p = join(dir, name);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
}

describe('profiles with the real binary', { skip: noEngine && 'engine not compiled' }, () => {
  it('keeps the nutch profile of a store for a run without flags and refuses w3lib on it', async () => {
    const dir = tempDir();
    const a = write(dir, 'a.txt', ['http://a.example//x//y', 'http://a.example/x/y', 'http://a.example/p?b=1&a=2']);
    const first = await drum(['ingest', ...FAST, '--profile', 'nutch', '--json', '--out', 'o1', a], { cwd: dir });
    assert.equal(first.status, 0, first.stderr);
    assert.equal((JSON.parse(first.stdout) as { policy: string }).policy, 'nutch/v1');
    assert.deepEqual(uniques(join(dir, 'o1')), ['http://a.example/x/y', 'http://a.example/p?b=1&a=2']);
    // No flag: the store's profile applies (drum's default would sort the query and keep `//`).
    const b = write(dir, 'b.txt', ['http://a.example/p?a=2&b=1', 'http://a.example/x//y', 'http://a.example/p?b=1&a=2']);
    const second = await drum(['ingest', ...FAST, '--json', '--out', 'o2', b], { cwd: dir });
    assert.equal(second.status, 0, second.stderr);
    const rep = JSON.parse(second.stdout) as RunReport;
    assert.equal(rep.policy, 'nutch/v1');
    assert.deepEqual(uniques(join(dir, 'o2')), ['http://a.example/p?a=2&b=1']);
    const refused = await drum(['ingest', ...FAST, '--profile', 'w3lib', write(dir, 'c.txt', ['http://c.example/'])], { cwd: dir });
    assert.equal(refused.status, EXIT_STATUS.DRUM_POLICY_MISMATCH, refused.stderr);
    assert.match(refused.stderr, /DRUM_POLICY_MISMATCH/);
  });

  it('keys an ia store by SURT form and remembers a rules file by its hash', async () => {
    const dir = tempDir();
    const rules = write(dir, 'rules.txt', ['# drop the referrer tag on example sites', 'host example.org strip-param ref']);
    const a = write(dir, 'a.txt', ['http://www.Example.org/A/?ref=x&b=1', 'https://example.org/a?b=1', 'http://other.example/?ref=1']);
    const first = await drum(['ingest', ...FAST, '--profile', 'ia', '--rules', rules, '--json', '--out', 'o1', a], { cwd: dir });
    assert.equal(first.status, 0, first.stderr);
    assert.match((JSON.parse(first.stdout) as { policy: string }).policy, /^ia\/v2\+rules-[0-9a-f]{8}$/);
    assert.deepEqual(uniques(join(dir, 'o1')), ['org,example)/a?b=1', 'example,other)/?ref=1']);
    const hosts = JSON.parse((await drum(['hosts', '--json'], { cwd: dir })).stdout) as { host: string; uniqueUrls: number }[];
    assert.deepEqual(hosts.map((h) => h.host).sort(), ['example,other', 'org,example']);
    const again = await drum(['ingest', ...FAST, '--json', '--out', 'o2', write(dir, 'b.txt', ['http://example.org/a?ref=2&b=1'])], { cwd: dir });
    assert.equal(again.status, 0, again.stderr);
    assert.equal((JSON.parse(again.stdout) as RunReport).uniqueUrls, 0);
    writeFileSync(rules, 'host example.org strip-param src\n');
    const changed = await drum(['ingest', ...FAST, '--profile', 'ia', '--rules', rules, a], { cwd: dir });
    assert.equal(changed.status, EXIT_STATUS.DRUM_POLICY_MISMATCH, changed.stderr);
  });

  it('prints SURT keys with canonicalize --surt, and rejects lines as before', async () => {
    const r = await drum(['canonicalize', '--surt'], {
      input: 'HTTP://www.Example.COM:8080/a/../b?b=2&a=1\nhttp://[::1]/x\nhttp://10.0.0.1/\nmailto:x@y\n',
    });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, 'com,example,www:8080)/b?a=1&b=2\n::1)/x\n1,0,0,10)/\n!reject\tunsupported-scheme\n');
  });
});
