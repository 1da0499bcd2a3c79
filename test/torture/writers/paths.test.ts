// Paths through the real bin/drum: `--out` and `--state` refuse to clobber
// unrelated non-empty directories (DRUM_CLOBBER's status, the directory
// byte-for-byte unchanged), and no command ever writes outside its state and
// output directories: every file under a temp root, and the private TMPDIR the
// commands are given, hash the same before and after except inside those two.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { EXIT_STATUS } from '../../../src/errors.js';
import { drum, hashTree, haveEngine, writeLinks } from '../harness.js';
import { tempDir } from '../../helpers/tmp.js';

const FAST = ['--no-progress', '--quiet', '--no-fsync', '--workers', '0'];

/** A directory that belongs to someone else: files, and subfolders named like drum's own. */
function foreignDir(p: string): void {
  fs.mkdirSync(join(p, 'work'), { recursive: true });
  fs.mkdirSync(join(p, 'store'), { recursive: true });
  fs.writeFileSync(join(p, 'notes.txt'), 'mine\n');
  fs.writeFileSync(join(p, 'work', 'thesis.tex'), 'precious\n');
  fs.writeFileSync(join(p, 'store', 'inventory.csv'), 'a,b\n');
  fs.writeFileSync(join(p, 'old.bloom'), 'not drum\n');
}

function except(tree: Record<string, string>, ...prefixes: string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(tree).filter(([k]) => !prefixes.some((p) => k === p || k.startsWith(`${p}/`))));
}

describe('paths: no clobbering, no stray writes', { skip: !haveEngine && 'engine not compiled' }, () => {
  it('refuses an --out directory that is a file or an unrelated non-empty directory, leaving it unchanged', async () => {
    const root = tempDir('drum-torture-');
    writeLinks(join(root, 'a.txt'), 500, 1);
    foreignDir(join(root, 'mine'));
    fs.writeFileSync(join(root, 'file'), 'x');
    const before = hashTree(root);
    for (const out of ['mine', 'file']) {
      const r = await drum(['ingest', ...FAST, '--state', 'st', '--out', out, 'a.txt'], { cwd: root });
      assert.equal(r.status, EXIT_STATUS.DRUM_CLOBBER, `--out ${out}: ${r.stderr}`);
    }
    assert.deepEqual(except(hashTree(root), 'st'), before);
  });

  it('refuses a --state directory that holds unrelated files, leaving it unchanged', async () => {
    const root = tempDir('drum-torture-');
    writeLinks(join(root, 'a.txt'), 500, 1);
    foreignDir(join(root, 'mine'));
    const before = hashTree(root);
    const r = await drum(['ingest', ...FAST, '--state', 'mine', '--out', 'out', 'a.txt'], { cwd: root });
    assert.equal(r.status, EXIT_STATUS.DRUM_CLOBBER, r.stderr);
    assert.deepEqual(hashTree(root), before);
  });

  it('refuses an --out directory inside the state directory, whose work/ and store/ drum empties', async () => {
    const root = tempDir('drum-torture-');
    writeLinks(join(root, 'a.txt'), 500, 1);
    writeLinks(join(root, 'b.txt'), 500, 2);
    assert.equal((await drum(['ingest', ...FAST, '--state', 'st', 'a.txt'], { cwd: root })).status, 0);
    for (const sub of ['work', 'store', 'catalog', '.']) {
      const r = await drum(['ingest', ...FAST, '--state', 'st', '--out', join('st', sub), 'b.txt'], { cwd: root });
      assert.equal(r.status, EXIT_STATUS.DRUM_CLOBBER, `--out st/${sub}: ${r.stderr}`);
    }
  });

  it('writes nothing outside the state and output directories, and leaves its temp directory empty', async () => {
    const root = tempDir('drum-torture-');
    const tmp = join(root, 'tmp');
    fs.mkdirSync(tmp);
    writeLinks(join(root, 'a.txt'), 3000, 1);
    writeLinks(join(root, 'b.txt'), 3000, 2);
    const env = { TMPDIR: tmp };
    const before = hashTree(root);
    const cmds = [
      ['ingest', ...FAST, '--bloom', 'gate', '--state', 'st', '--out', 'out1', 'a.txt'],
      ['ingest', ...FAST, '--state', 'st', '--out', 'out2', 'b.txt'],
      ['ingest', ...FAST, '--state', 'st', '--out', 'out3', 'b.txt'],
      ['check', '--quiet', '--state', 'st', 'a.txt', 'b.txt'],
      ['stats', '--state', 'st'],
      ['verify', '--state', 'st'],
      ['runs', '--state', 'st'],
      ['hosts', '--state', 'st'],
      ['canonicalize', 'a.txt'],
    ];
    for (const c of cmds) {
      const r = await drum(c, { cwd: root, env });
      assert.equal(r.status, 0, `${c.join(' ')}: ${r.stderr}`);
    }
    assert.deepEqual(except(hashTree(root), 'st', 'out1', 'out2', 'out3'), before);
    assert.deepEqual(fs.readdirSync(tmp), []);
  });
});
