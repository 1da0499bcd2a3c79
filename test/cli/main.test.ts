// In-process tests of the command line (src/cli/main.ts `run`) with fake
// stdout/stderr: help on every command, usage errors and bad options exit 2
// without touching the state directory, error lines name the code, and
// `runs` / `hosts` print the catalog (also while a writer holds it).
// Commands that need the engine are covered by e2e.test.ts.

import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run, reportError } from '../../src/cli/main.js';
import { inputErrorStatus, verifyStatus, type CliIo } from '../../src/cli/command-io.js';
import { Catalog } from '../../src/catalog/catalog.js';
import { DrumError, EXIT_STATUS } from '../../src/errors.js';
import { bin, distRoot } from '../helpers/cli.js';

const temps: string[] = [];
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'drum-cli-test-'));
  temps.push(d);
  return d;
}
after(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

interface Result {
  status: number;
  stdout: string;
  stderr: string;
}

async function drum(args: string[], env: Record<string, string> = {}, cwd = tempDir()): Promise<Result> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s), isTTY: false },
    env,
    cwd,
  };
  const status = await run(args, io);
  return { status, stdout, stderr };
}

const COMMANDS = ['ingest', 'check', 'canonicalize', 'forget', 'stats', 'verify', 'runs', 'hosts', 'content'];

describe('help', () => {
  for (const cmd of COMMANDS) {
    it(`prints help with examples for ${cmd} --help and exits 0`, async () => {
      const r = await drum([cmd, '--help']);
      assert.equal(r.status, 0);
      assert.match(r.stdout, new RegExp(`^Usage: drum ${cmd}`));
      assert.match(r.stdout, /Examples:\n {2}drum /);
    });
  }

  it('prints the command list for --help and for `help`', async () => {
    for (const args of [['--help'], ['help']]) {
      const r = await drum(args);
      assert.equal(r.status, 0, `${args.join(' ')}: ${r.stderr}`);
      for (const cmd of COMMANDS) assert.match(r.stdout, new RegExp(`\\n {2}${cmd} `));
    }
  });
});

describe('usage errors', () => {
  it('exits 2 for an unknown option, an unknown command, a missing input and no command at all', async () => {
    for (const args of [['ingest', '--bogus', 'x'], ['frobnicate'], ['ingest'], []]) {
      const r = await drum(args);
      assert.equal(r.status, 2, args.join(' '));
      assert.notEqual(r.stderr, '');
    }
  });

  for (const args of [
    ['ingest', '--memory', '12zz', 'x.txt'],
    ['ingest', '--bloom', 'maybe', 'x.txt'],
    ['ingest', '--buckets', '3', 'x.txt'],
    ['ingest', '--format', 'csv', 'x.txt'],
    ['check', '--canonical', 'none', '--strip-www', 'x.txt'],
    ['hosts', '--top', 'ten'],
    ['runs', '--limit', '0'],
  ]) {
    it(`exits 2 with DRUM_BAD_OPTION and creates no state for: ${args.join(' ')}`, async () => {
      const cwd = tempDir();
      const r = await drum(args, {}, cwd);
      assert.equal(r.status, 2);
      assert.match(r.stderr, /^drum: DRUM_BAD_OPTION: /);
      assert.equal(existsSync(join(cwd, 'drum-state')), false);
    });
  }
});

describe('errors', () => {
  it('prints `drum: <CODE>: <message>` with the file and returns the code status', () => {
    let err = '';
    const io: CliIo = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) }, env: {}, cwd: '/' };
    const status = reportError(new DrumError('DRUM_CORRUPT_FILE', 'bad checksum', { file: '/s/b00.keys' }), io);
    assert.equal(status, EXIT_STATUS.DRUM_CORRUPT_FILE);
    assert.equal(err, 'drum: DRUM_CORRUPT_FILE: bad checksum (file: /s/b00.keys)\n');
    assert.equal(reportError(new Error('boom'), io), 1);
  });

  it('reports a missing state directory as DRUM_NOT_FOUND with its exit status', async () => {
    const r = await drum(['runs', '--state', join(tempDir(), 'absent')]);
    assert.equal(r.status, EXIT_STATUS.DRUM_NOT_FOUND);
    assert.match(r.stderr, /^drum: DRUM_NOT_FOUND: /);
  });

  it('reports a state path that is a file as DRUM_NOT_FOUND for every reader, naming no file inside it', async () => {
    const file = join(tempDir(), 'afile');
    writeFileSync(file, 'x\n');
    for (const cmd of ['stats', 'runs', 'hosts', 'verify']) {
      const r = await drum([cmd, '--state', file]);
      assert.equal(r.status, EXIT_STATUS.DRUM_NOT_FOUND, `${cmd}: ${r.stderr}`);
      assert.doesNotMatch(r.stderr, /afile\//, cmd);
    }
  });

  it('refuses a missing input with DRUM_INPUT before it creates a store for it', async () => {
    const state = join(tempDir(), 'fresh');
    const r = await drum(['ingest', '--state', state, join(tempDir(), 'nosuch.txt')]);
    assert.equal(r.status, EXIT_STATUS.DRUM_INPUT, r.stderr);
    assert.match(r.stderr, /^drum: DRUM_INPUT: .*nosuch\.txt/);
    assert.doesNotMatch(r.stderr, /created a new store/);
    assert.equal(existsSync(state), false);
  });

  it('refuses an input inside the state directory\'s work/ or store/, which opening the store would delete, and leaves it there', async () => {
    const state = join(tempDir(), 'st');
    const seed = join(tempDir(), 'seed.txt');
    writeFileSync(seed, 'http://a.example/\n');
    assert.equal((await drum(['ingest', '--state', state, '--quiet', seed])).status, 0);
    for (const dir of ['work', 'store']) {
      const inside = join(state, dir, 'links.txt');
      writeFileSync(inside, 'http://b.example/\n');
      const r = await drum(['ingest', '--state', state, inside]);
      assert.equal(r.status, EXIT_STATUS.DRUM_BAD_OPTION, r.stderr);
      assert.match(r.stderr, /^drum: DRUM_BAD_OPTION: /);
      assert.equal(existsSync(inside), true, `${dir}/links.txt was deleted`);
      rmSync(inside);
    }
    // Through a symlink to the state directory, too.
    const alias = join(tempDir(), 'alias');
    symlinkSync(state, alias);
    const viaLink = join(alias, 'work', 'links.txt');
    writeFileSync(viaLink, 'http://c.example/\n');
    assert.equal((await drum(['ingest', '--state', state, viaLink])).status, EXIT_STATUS.DRUM_BAD_OPTION);
    assert.equal(existsSync(viaLink), true);
  });

  it('refuses a directory on stdin with DRUM_INPUT before it creates a store for it', async () => {
    const state = join(tempDir(), 'fresh');
    const dirFd = openSync('/', 'r');
    const r = spawnSync(process.execPath, [bin, 'ingest', '--state', state, '-'], { stdio: [dirFd, 'pipe', 'pipe'], encoding: 'utf8', env: { ...process.env, DRUM_DIST_DIR: distRoot } });
    closeSync(dirFd);
    assert.equal(r.status, EXIT_STATUS.DRUM_INPUT, r.stderr);
    assert.match(r.stderr, /DRUM_INPUT: .*EISDIR/);
    assert.equal(existsSync(state), false);
  });

  it('names each unreadable input on stderr and returns the status of the first one', () => {
    let err = '';
    const io: CliIo = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) }, env: {}, cwd: '/' };
    assert.equal(inputErrorStatus([], io), 0);
    assert.equal(inputErrorStatus([{ path: '/in/a.gz', code: 'DRUM_INPUT', message: 'cannot decompress' }], io), EXIT_STATUS.DRUM_INPUT);
    assert.equal(err, 'drum: DRUM_INPUT: cannot decompress (file: /in/a.gz)\n');
  });

  it('says a damaged input is recorded as damaged only for a command that records its inputs, not for a check', () => {
    let err = '';
    const io: CliIo = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) }, env: {}, cwd: '/' };
    const e = [{ path: '/in/a.gz', code: 'DRUM_INPUT', message: 'cannot decompress /in/a.gz', line: 7 }];
    inputErrorStatus(e, io);
    assert.match(err, /first 7 lines .* kept, and it is recorded as damaged, not ingested\n$/);
    err = '';
    assert.equal(inputErrorStatus(e, io, false), EXIT_STATUS.DRUM_INPUT);
    assert.match(err, /first 7 lines .* answered, and nothing is recorded\n$/);
  });

  it('maps a verify result to 0 when sound, else to the status of the first problem', () => {
    assert.equal(verifyStatus([], true), 0);
    assert.equal(verifyStatus([{ code: 'DRUM_CORRUPT_FILE' }, { code: 'DRUM_IO' }], false), EXIT_STATUS.DRUM_CORRUPT_FILE);
    assert.equal(verifyStatus([{ code: 'SOMETHING_ELSE' }], false), 1);
    assert.equal(verifyStatus([], false), 1);
  });
});

describe('runs and hosts', () => {
  async function seeded(): Promise<string> {
    const state = tempDir();
    const c = await Catalog.open(state, { sync: false });
    await c.putRun({
      runId: 'run-a', startedAt: '2025-01-01T00:00:00.000Z', finishedAt: '2025-01-01T00:00:01.000Z', status: 'complete',
      inputs: [{ path: '/in/a.txt', bytes: 10, sha256: 'a'.repeat(64) }],
      counts: { linksRead: 10, uniqueUrls: 6, duplicateUrls: 3, rejectedLines: 1 }, outDir: '/o', outputFiles: ['unique-00000.txt'], options: {},
    });
    await c.applyHostCounts('run-a', 0, new Map([['a.example', 4], ['b.example', 2]]));
    await c.close();
    return state;
  }

  it('lists runs as a table and as JSON, reading the state from $DRUM_STATE', async () => {
    const state = await seeded();
    const t = await drum(['runs'], { DRUM_STATE: state });
    assert.equal(t.status, 0);
    assert.match(t.stdout, /run-a\s+complete/);
    const j = await drum(['runs', '--json', '--state', state]);
    assert.deepEqual(JSON.parse(j.stdout).map((r: { runId: string }) => r.runId), ['run-a']);
  });

  it('lists the top hosts, most URLs first', async () => {
    const state = await seeded();
    const j = await drum(['hosts', '--json', '--top', '1', '--state', state]);
    assert.equal(j.status, 0);
    assert.deepEqual(JSON.parse(j.stdout), [{ host: 'a.example', uniqueUrls: 4 }]);
    assert.match((await drum(['hosts', '--state', state])).stdout, /1\s+4\s+a\.example\n\s+2\s+2\s+b\.example/);
  });

  it('still lists runs while another process holds the catalog for writing', async () => {
    const state = await seeded();
    const writer = await Catalog.open(state);
    try {
      const r = await drum(['runs', '--json', '--state', state]);
      assert.equal(r.status, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).length, 1);
    } finally {
      await writer.close();
    }
  });

  it('prints "no runs yet" for a state directory without a catalog', async () => {
    const r = await drum(['runs', '--state', tempDir()]);
    assert.equal(r.status, 0);
    assert.equal(r.stdout, 'no runs yet\n');
  });
});
