// The bench-only scripts' flags (scripts/lib/script-args.ts), run as an
// operator runs them: `--help` prints the script's header comment and exits
// 0 without doing its work; an unknown flag is one line on stderr and exit 2,
// never a stack trace; the header is read from the compiled file as tsc keeps it.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { scriptHeader } from '../../../scripts/lib/script-args.js';

const SCRIPTS = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'scripts');

function run(script: string, ...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [join(SCRIPTS, script), ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('bench script flags', () => {
  it('prints the script header, usage line included, for --help and exits 0', () => {
    for (const script of ['scale-run.js', 'small-batches.js', 'bench.js']) {
      const r = run(script, '--help');
      assert.equal(r.status, 0, script);
      assert.equal(r.stdout, `${scriptHeader(join(SCRIPTS, script))}\n`, script);
      assert.match(r.stdout, /node dist\/scripts\//, script);
    }
  });

  it('refuses an unknown flag with one line and exit status 2, no stack trace', () => {
    for (const script of ['scale-run.js', 'bench.js', 'profile-shares.js']) {
      const r = run(script, '--no-such-flag');
      assert.equal(r.status, 2, script);
      assert.equal(r.stdout, '', script);
      assert.equal(r.stderr.trim().split('\n').length, 1, `${script}: ${r.stderr}`);
      assert.match(r.stderr, /no-such-flag/);
      assert.doesNotMatch(r.stderr, /\n\s+at /);
    }
  });

  it('reads only the leading comment lines, without their slashes', () => {
    const h = scriptHeader(join(SCRIPTS, 'lib', 'script-args.js'));
    assert.match(h, /^Flags of the bench-only scripts/);
    assert.doesNotMatch(h, /^\/\//m);
    assert.doesNotMatch(h, /^import /m);
  });
});
