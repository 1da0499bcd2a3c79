// End-to-end tests of `drum ingest --out` on the real bin/drum: an --out the
// run could not use (a path the OS will not make, a regular file, the state
// directory or its store/, work/, catalog/) is refused with the same status
// whether there is work to do or every input was already ingested, before a
// run starts and before the store's open could touch what is there (or a
// new store is created for it); with nothing to do nothing is made, and a
// non-empty --out is fine.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXIT_STATUS } from '../../src/errors.js';
import { drum } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const FAST = ['--no-fsync', '--no-progress', '--workers', '0', '--quiet'];

/** A store that has ingested old.txt; new.txt is not ingested yet. */
async function store(): Promise<string> {
  const dir = tempDir();
  writeFileSync(join(dir, 'old.txt'), 'http://a.example/1\n');
  writeFileSync(join(dir, 'new.txt'), 'http://b.example/1\n');
  const r = await drum(['ingest', ...FAST, '--state', 'st', 'old.txt'], { cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  return dir;
}

async function runStatuses(dir: string): Promise<string[]> {
  const r = await drum(['runs', '--json', '--state', 'st'], { cwd: dir });
  assert.equal(r.status, 0, r.stderr);
  return (JSON.parse(r.stdout) as { status: string }[]).map((x) => x.status);
}

describe('drum ingest --out', () => {
  const refusals: [string, (dir: string) => string, keyof typeof EXIT_STATUS][] = [
    ['the state directory', () => 'st', 'DRUM_CLOBBER'],
    ['a folder in its store/', () => 'st/store/out', 'DRUM_CLOBBER'],
    ['a folder in its work/', () => 'st/work/out', 'DRUM_CLOBBER'],
    ['an existing regular file', (dir) => {
      writeFileSync(join(dir, 'file'), 'mine\n');
      return 'file';
    }, 'DRUM_CLOBBER'],
    ['a folder past a regular file', (dir) => {
      writeFileSync(join(dir, 'file'), 'mine\n');
      return 'file/out';
    }, 'DRUM_IO'],
  ];
  if (existsSync('/proc/self')) refusals.push(['a path under /proc', () => '/proc/drum-no-such/out', 'DRUM_IO']);

  for (const [what, out, code] of refusals) {
    it(`refuses ${what} with ${code}'s status whether every input was already ingested or not, leaving no run`, async () => {
      const dir = await store();
      const path = out(dir);
      const skipped = await drum(['ingest', ...FAST, '--state', 'st', '--out', path, 'old.txt'], { cwd: dir });
      assert.equal(skipped.status, EXIT_STATUS[code], `nothing to do: ${skipped.stderr}`);
      const work = await drum(['ingest', ...FAST, '--state', 'st', '--out', path, 'new.txt'], { cwd: dir });
      assert.equal(work.status, EXIT_STATUS[code], `work to do: ${work.stderr}`);
      assert.deepEqual(await runStatuses(dir), ['complete']);
    });
  }

  it('refuses an --out the OS will not make before it creates a new store for the run', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'links.txt'), 'http://a.example/1\n');
    writeFileSync(join(dir, 'file'), 'mine\n');
    const r = await drum(['ingest', ...FAST, '--state', 'st', '--out', 'file/out', 'links.txt'], { cwd: dir });
    assert.equal(r.status, EXIT_STATUS.DRUM_IO, r.stderr);
    assert.equal(existsSync(join(dir, 'st')), false, 'a store was created for a run that was refused');
  });

  it('refuses a folder in the state\'s work/ before the store\'s open empties it', async () => {
    const dir = await store();
    mkdirSync(join(dir, 'st', 'work', 'mine'));
    writeFileSync(join(dir, 'st', 'work', 'mine', 'keep'), 'mine\n');
    for (const input of ['old.txt', 'new.txt']) {
      const r = await drum(['ingest', ...FAST, '--state', 'st', '--out', 'st/work/mine', input], { cwd: dir });
      assert.equal(r.status, EXIT_STATUS.DRUM_CLOBBER, `${input}: ${r.stderr}`);
      assert.ok(existsSync(join(dir, 'st', 'work', 'mine', 'keep')), `${input}: the file in --out was deleted`);
    }
  });

  it('with every input already ingested makes no --out, and takes a non-empty one (the same command run again)', async () => {
    const dir = await store();
    const skipped = await drum(['ingest', ...FAST, '--state', 'st', '--out', 'a/b/c', 'old.txt'], { cwd: dir });
    assert.equal(skipped.status, 0, skipped.stderr);
    assert.equal(existsSync(join(dir, 'a')), false);
    const first = await drum(['ingest', ...FAST, '--state', 'st', '--out', 'o', 'new.txt'], { cwd: dir });
    assert.equal(first.status, 0, first.stderr);
    assert.ok(readdirSync(join(dir, 'o')).length > 0);
    const again = await drum(['ingest', ...FAST, '--state', 'st', '--out', 'o', 'new.txt'], { cwd: dir });
    assert.equal(again.status, 0, again.stderr);
  });
});
