// A real full disk, not an injected one: the state and output directories on
// a small tmpfs (mounted as root on Linux; skipped elsewhere), a filler file
// leaving a few bytes to megabytes free before a command, so the OS refuses
// some write of it with ENOSPC wherever it falls: drum's own files, the
// catalog's LevelDB, the host-count fold's child, the warm-start caches. After
// each refusal the filler goes (space freed) and the same command runs again.
// Checked against runs on a disk with room: exit 12 with DRUM_IO and ENOSPC
// when the disk filled, the same new URLs, a sound store of the same size,
// host counts that add up to it.

import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { EXIT_STATUS } from '../../../src/errors.js';
import { drum, repoRoot, uniques } from '../../helpers/cli.js';
import { tempDir } from '../../helpers/tmp.js';

const MOUNT_BYTES = 48 << 20;

/** Mounts a tmpfs of `bytes` at `dir`; returns the undo, or null when mounts are not allowed. */
function mountTmpfs(dir: string, bytes: number): (() => void) | null {
  fs.mkdirSync(dir, { recursive: true });
  if (process.platform !== 'linux' || spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes}`, 'tmpfs', dir]).status !== 0) return null;
  return () => void spawnSync('umount', [dir]);
}

/** Leaves about `free` bytes free on the file system of `dir` (tmpfs counts in pages) with a file of zeros. */
function fill(dir: string, free: number): string {
  const filler = join(dir, 'filler');
  const st = fs.statfsSync(dir);
  let left = st.bavail * st.bsize - free;
  const zeros = Buffer.alloc(1 << 20);
  const fd = fs.openSync(filler, 'w');
  try {
    for (; left > 0; left -= zeros.length) fs.writeSync(fd, zeros, 0, Math.min(left, zeros.length));
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

/** Three inputs: the real archive.org outlinks, then two generated lists sharing hosts and URLs with each other. */
function inputs(dir: string): string[] {
  const gen = (name: string, from: number): string => {
    const lines: string[] = [];
    for (let i = from; i < from + 30_000; i++) lines.push(`http://h${i % 211}.example/p/${(i * 7) % 40_000}?q=${i % 13}`);
    const p = join(dir, name);
    fs.writeFileSync(p, lines.join('\n') + '\n');
    return p;
  };
  return [join(repoRoot, 'data', 'archive-org-2008-outlinks.tsv.gz'), gen('b.txt', 0), gen('c.txt', 20_000)];
}

interface Outcome {
  outs: string[][];
  storeUrls: number;
}

/** Runs `args` and, if the disk was full, checks the refusal, frees the space and runs them again. Returns whether the disk filled. */
async function runFreeing(args: string[], filler: string | null): Promise<boolean> {
  const r = await drum(args);
  if (filler !== null) fs.rmSync(filler, { force: true });
  if (r.status === 0) return false;
  assert.equal(r.status, EXIT_STATUS.DRUM_IO, r.stderr);
  assert.match(r.stderr, /DRUM_IO/);
  assert.match(r.stderr, /ENOSPC|No space left on device/);
  const again = await drum(args);
  assert.equal(again.status, 0, again.stderr);
  return true;
}

/** Ingests the inputs one by one into `<root>/st` (outputs beside it), then compacts; with `free`, the disk fills before input `at` or before the compact. */
async function ingestAll(root: string, files: string[], free: number | null, at: number, compactFull: boolean): Promise<{ filled: number } & Outcome> {
  let filled = 0;
  const state = join(root, 'st');
  const outs: string[][] = [];
  for (const [i, f] of files.entries()) {
    const out = join(root, `out-${i}`);
    const filler = free !== null && i === at ? fill(root, free) : null;
    if (await runFreeing(['ingest', '--quiet', '--no-progress', '--state', state, '--out', out, f], filler)) filled++;
    outs.push(uniques(out));
  }
  if (await runFreeing(['compact', '--state', state], compactFull && free !== null ? fill(root, free) : null)) filled++;
  const v = await drum(['verify', '--state', state]);
  assert.equal(v.status, 0, v.stdout + v.stderr);
  const stats = await drum(['stats', '--json', '--state', state]);
  const storeUrls = (JSON.parse(stats.stdout) as { storeUrls: number }).storeUrls;
  const hosts = await drum(['hosts', '--json', '--top', '100000', '--state', state]);
  assert.equal((JSON.parse(hosts.stdout) as { uniqueUrls: number }[]).reduce((a, h) => a + h.uniqueUrls, 0), storeUrls);
  return { filled, outs, storeUrls };
}

describe('a store on a disk that fills up', () => {
  it('refuses with DRUM_IO (ENOSPC) wherever the disk fills and, once space is freed, ends as a run with room did', async (t: TestContext) => {
    const dir = tempDir();
    const files = inputs(dir);
    const want = await ingestAll(join(dir, 'room'), files, null, -1, false);
    const mnt = join(dir, 'mnt');
    const undo = mountTmpfs(mnt, MOUNT_BYTES);
    if (undo === null) return t.skip('a tmpfs mount needs root on Linux');
    let filled = 0;
    try {
      // Free bytes before the second or third input (none to about what it writes), or before the compact that folds the key journal.
      const trials: [number, number, boolean][] = [[0, 1, false], [64 << 10, 1, false], [1 << 20, 2, false], [512 << 10, 2, false], [16 << 10, 9, true], [256 << 10, 9, true]];
      for (const [free, at, compactFull] of trials) {
        const root = join(mnt, `t${free}-${at}`);
        const got = await ingestAll(root, files, free, at, compactFull);
        assert.deepEqual(got.outs, want.outs, `free ${free} before input ${at}`);
        assert.equal(got.storeUrls, want.storeUrls);
        filled += got.filled;
        fs.rmSync(root, { recursive: true, force: true });
      }
    } finally {
      undo();
    }
    assert.ok(filled >= 4, `the disk filled in ${filled} commands`);
  });
});
