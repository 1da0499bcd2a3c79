// End-to-end input handling of bin/drum: /dev/stdin (a pipe) as a named
// input, a .gz with trailing garbage keeps all its URLs, and a run that
// rejects every line warns on stderr even with --quiet.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { totalmem } from 'node:os';
import { gzipSync } from 'node:zlib';
import { EXIT_STATUS } from '../../src/errors.js';
import { minimumMemoryBytes } from '../../src/options.js';
import { bin, distRoot, drum, uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const FAST = ['--no-fsync', '--no-progress', '--workers', '0'];

describe('drum on unusual inputs', () => {
  it('ingests /dev/stdin given by name when it is a pipe', { skip: !fs.existsSync('/dev/stdin') }, async () => {
    const dir = tempDir();
    const out = join(dir, 'out');
    // A shell pipe (a FIFO); the test runner's own stdin pipes are sockets, which /dev/stdin cannot reopen.
    const cmd = `printf 'http://a.example/1\\nhttp://b.example/2\\n' | "${process.execPath}" "${bin}" ingest ${FAST.join(' ')} --state s --out out /dev/stdin`;
    const r = spawnSync('sh', ['-c', cmd], { cwd: dir, env: { ...process.env, DRUM_DIST_DIR: distRoot, DRUM_STATE: '' }, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(uniques(out), ['http://a.example/1', 'http://b.example/2']);
  });

  it('keeps every URL of a .gz followed by trailing garbage, records it as damaged and exits 14', async () => {
    const dir = tempDir();
    const file = join(dir, 'links.gz');
    const urls = Array.from({ length: 30_000 }, (_, i) => `http://h.example/${i}`);
    fs.writeFileSync(file, Buffer.concat([gzipSync(urls.join('\n') + '\n'), Buffer.from('garbage')]));
    const r = await drum(['ingest', ...FAST, '--state', join(dir, 's'), '--out', join(dir, 'out'), file]);
    assert.equal(r.status, EXIT_STATUS.DRUM_INPUT, r.stderr);
    assert.match(r.stderr, /DRUM_INPUT: .*links\.gz/);
    assert.deepEqual(uniques(join(dir, 'out')), urls);
    // The summary says so too, as drum runs does, not a bare `complete`.
    assert.match(r.stdout, /^drum run \S+: complete \(1 damaged input\)\n/);
    assert.match(r.stdout, new RegExp(`inputs\\s+${file.replace(/[.]/g, '\\.')} \\([^)]*, damaged after line 30,000\\)\n`));
  });

  it('warns, even with --quiet, when every line of the run was rejected', async () => {
    const dir = tempDir();
    const file = join(dir, 'mail.txt');
    fs.writeFileSync(file, 'mailto:a@x\nmailto:b@x\n');
    const r = await drum(['ingest', ...FAST, '--quiet', '--state', join(dir, 's'), '--out', join(dir, 'out'), file]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /warning: all 2 link lines were rejected \(2 unsupported-scheme\)/);
  });
});

describe('drum --memory', () => {
  it('refuses a budget over the machine\'s memory with DRUM_BAD_OPTION, before touching the state', async () => {
    const dir = tempDir();
    const file = join(dir, 'l.txt');
    fs.writeFileSync(file, 'http://a.example/\n');
    const tooMuch = `${Math.ceil(totalmem() / 2 ** 30) + 1}GiB`;
    const r = await drum(['ingest', ...FAST, '--memory', tooMuch, '--state', join(dir, 's'), '--out', join(dir, 'out'), file]);
    assert.equal(r.status, EXIT_STATUS.DRUM_BAD_OPTION, r.stderr);
    assert.match(r.stderr, /more than this machine has/);
    assert.equal(fs.existsSync(join(dir, 's')), false);
  });

  it('refuses a budget under the process floor with DRUM_BAD_OPTION and the minimum in MiB, counting the workers', async () => {
    const dir = tempDir();
    const file = join(dir, 'l.txt');
    fs.writeFileSync(file, 'http://a.example/\n');
    for (const workers of [0, 1]) {
      const min = minimumMemoryBytes({ workers }) / 2 ** 20;
      const r = await drum(['ingest', '--no-fsync', '--no-progress', '--workers', String(workers), '--memory', `${min - 1}MiB`,
        '--state', join(dir, 's'), '--out', join(dir, 'out'), file]);
      assert.equal(r.status, EXIT_STATUS.DRUM_BAD_OPTION, r.stderr);
      assert.match(r.stderr, new RegExp(`DRUM_BAD_OPTION: .*at least ${min} MiB with ${workers} worker`));
      assert.equal(fs.existsSync(join(dir, 's')), false, 'nothing was created');
      const c = await drum(['check', '--workers', String(workers), '--memory', '32MiB', '--state', join(dir, 's'), file]);
      assert.equal(c.status, EXIT_STATUS.DRUM_BAD_OPTION, c.stderr);
    }
    assert.ok(minimumMemoryBytes({ workers: 1 }) > minimumMemoryBytes({ workers: 0 }), 'a worker raises the minimum');
    const ok = await drum(['ingest', '--quiet', '--no-fsync', '--no-progress', '--workers', '0', '--memory', `${minimumMemoryBytes({ workers: 0 }) / 2 ** 20}MiB`,
      '--state', join(dir, 's'), '--out', join(dir, 'out'), file]);
    assert.equal(ok.status, 0, ok.stderr);
  });
});
