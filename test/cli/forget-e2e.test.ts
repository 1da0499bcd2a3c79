// End-to-end tests of `drum forget` with the real bin/drum: URLs forgotten
// from a file or stdin are new again to the next ingest, drum runs lists the
// forget with its counts, verify passes; --host on a keys-only store exits
// with DRUM_NEEDS_UPGRADE's status and deletes nothing; a forget never
// creates a store; kill -9 at any moment of a forget leaves a store verify
// accepts, in the old or the new state.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { EXIT_STATUS } from '../../src/errors.js';
import type { RunRecord } from '../../src/catalog/catalog.js';
import { drum, manifestOf, startDrum } from '../torture/harness.js';
import { uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const urls = (from: number, n: number): string[] => Array.from({ length: n }, (_, i) => `http://h${(from + i) % 7}.example/p/${from + i}`);
const lines = (us: string[]): string => us.map((u) => `${u}\n`).join('');
const FLAGS = ['--no-fsync', '--workers', '0'];

describe('drum forget', () => {
  it('makes forgotten URLs new again to the next ingest, and drum runs lists the forget', async () => {
    const cwd = tempDir();
    const all = urls(0, 50);
    fs.writeFileSync(join(cwd, 'all.txt'), lines(all));
    fs.writeFileSync(join(cwd, 'gone.txt'), `${all[3]}\nnot a url\n${all[9]}\nhttp://nowhere.example/\n`);
    assert.equal((await drum(['ingest', '--quiet', ...FLAGS, '--out', 'o1', 'all.txt'], { cwd })).status, 0);
    const f = await drum(['forget', '--json', ...FLAGS, 'gone.txt'], { cwd });
    assert.equal(f.status, 0, f.stderr);
    const r = JSON.parse(f.stdout) as { asked: number; forgotten: number; notStored: number; rejects: { line: number }[] };
    assert.deepEqual([r.asked, r.forgotten, r.notStored, r.rejects.map((x) => x.line)], [3, 2, 1, [2]]);
    const s = await drum(['forget', ...FLAGS, '-'], { cwd, input: `${all[20]}\n` });
    assert.equal(s.status, 0, s.stderr);
    assert.match(s.stdout, /forgot 1 of 1 URLs asked/);
    // The same input again: read again (a forget made some of its URLs new), and only those are new.
    assert.equal((await drum(['ingest', '--quiet', ...FLAGS, '--out', 'o2', 'all.txt'], { cwd })).status, 0);
    assert.deepEqual(uniques(join(cwd, 'o2')), [all[3], all[9], all[20]]);
    const runs = JSON.parse((await drum(['runs', '--json'], { cwd })).stdout) as RunRecord[];
    assert.deepEqual(runs.map((x) => x.kind ?? 'ingest'), ['ingest', 'forget', 'forget', 'ingest']);
    assert.equal(runs[2]!.forget!.forgotten, 2);
    assert.match((await drum(['runs'], { cwd })).stdout, /forget/);
    assert.equal((await drum(['verify', '--quiet'], { cwd })).status, 0);
  });

  it('refuses --host on a keys-only store with DRUM_NEEDS_UPGRADE and deletes nothing; never creates a store', async () => {
    const cwd = tempDir();
    fs.writeFileSync(join(cwd, 'a.txt'), lines(urls(0, 10)));
    assert.equal((await drum(['ingest', '--quiet', '--no-values', ...FLAGS, 'a.txt'], { cwd })).status, 0);
    const r = await drum(['forget', ...FLAGS, '--host', 'h1.example'], { cwd });
    assert.equal(r.status, EXIT_STATUS.DRUM_NEEDS_UPGRADE);
    assert.match(r.stderr, /DRUM_NEEDS_UPGRADE.*drum upgrade/);
    assert.equal(manifestOf(join(cwd, 'drum-state'))!.storeUrls, 10);
    const none = await drum(['forget', '--state', 'absent', 'a.txt'], { cwd });
    assert.equal(none.status, EXIT_STATUS.DRUM_NOT_FOUND);
    assert.equal(fs.existsSync(join(cwd, 'absent')), false);
  });

  it('forgets every URL of exact hosts with --host on a store with values', async () => {
    const cwd = tempDir();
    const all = urls(0, 70);
    fs.writeFileSync(join(cwd, 'a.txt'), lines(all));
    assert.equal((await drum(['ingest', '--quiet', ...FLAGS, '--out', 'o1', 'a.txt'], { cwd })).status, 0);
    // With --host and no list, stdin is not read: a line waiting there is not forgotten.
    const r = await drum(['forget', ...FLAGS, '--host', 'H1.example', '--host', 'h2.example:80'], { cwd, input: `${all[3]}\n` });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /forgot 20 URLs: 20 by host, 0 of 0 URLs asked/);
    assert.match(r.stdout, /h1\.example: 10 forgotten/);
    assert.equal((await drum(['ingest', '--quiet', ...FLAGS, '--out', 'o2', 'a.txt'], { cwd })).status, 0);
    assert.deepEqual(uniques(join(cwd, 'o2')), all.filter((u) => /\/\/h[12]\./.test(u)));
    assert.match((await drum(['runs'], { cwd })).stdout, /forget --host h1\.example --host h2\.example/);
  });

  it('fails before it starts when a listed file is missing: no forget run, the store unchanged', async () => {
    const cwd = tempDir();
    fs.writeFileSync(join(cwd, 'a.txt'), lines(urls(0, 10)));
    assert.equal((await drum(['ingest', '--quiet', ...FLAGS, 'a.txt'], { cwd })).status, 0);
    const manifest = fs.readFileSync(join(cwd, 'drum-state', 'MANIFEST'));
    const r = await drum(['forget', ...FLAGS, 'a.txt', 'missing.txt'], { cwd });
    assert.equal(r.status, EXIT_STATUS.DRUM_INPUT, r.stderr);
    assert.match(r.stderr, /DRUM_INPUT.*missing\.txt/);
    assert.deepEqual(fs.readFileSync(join(cwd, 'drum-state', 'MANIFEST')), manifest);
    const runs = JSON.parse((await drum(['runs', '--json'], { cwd })).stdout) as RunRecord[];
    assert.deepEqual(runs.map((x) => x.kind ?? 'ingest'), ['ingest']);
  });

  it('refuses --out - (stdout is ingest\'s) with DRUM_BAD_OPTION, making no directory named -', async () => {
    const cwd = tempDir();
    fs.writeFileSync(join(cwd, 'a.txt'), lines(urls(0, 10)));
    assert.equal((await drum(['ingest', '--quiet', ...FLAGS, 'a.txt'], { cwd })).status, 0);
    const manifest = fs.readFileSync(join(cwd, 'drum-state', 'MANIFEST'));
    const r = await drum(['forget', ...FLAGS, '--out', '-', 'a.txt'], { cwd });
    assert.equal(r.status, EXIT_STATUS.DRUM_BAD_OPTION, r.stderr);
    assert.ok(!fs.existsSync(join(cwd, '-')));
    assert.deepEqual(fs.readFileSync(join(cwd, 'drum-state', 'MANIFEST')), manifest);
  });

  it('refuses a host with a space, a user@ part or a backslash and leaves no output directory behind: no run, so no outputs', async () => {
    const cwd = tempDir();
    fs.writeFileSync(join(cwd, 'a.txt'), lines(urls(0, 10)));
    assert.equal((await drum(['ingest', '--quiet', ...FLAGS, 'a.txt'], { cwd })).status, 0);
    const before = fs.readdirSync(join(cwd, 'drum-state', 'runs'));
    // user@h0.example would read as userinfo, h0.example\x as a path: each would forget every URL of h0.example.
    for (const host of ['a b', 'user@h0.example', 'h0.example\\x']) {
      const r = await drum(['forget', ...FLAGS, '--host', host], { cwd });
      assert.equal(r.status, EXIT_STATUS.DRUM_BAD_OPTION, `${host}: ${r.stderr}`);
    }
    assert.deepEqual(fs.readdirSync(join(cwd, 'drum-state', 'runs')), before);
  });

  it('leaves a sound store in the old or the new state when killed (SIGKILL) during a forget', async () => {
    const cwd = tempDir();
    const all = urls(0, 60_000);
    fs.writeFileSync(join(cwd, 'all.txt'), lines(all));
    fs.writeFileSync(join(cwd, 'gone.txt'), lines(all.filter((_, i) => i % 3 === 0)));
    assert.equal((await drum(['ingest', '--quiet', '--no-fsync', 'all.txt'], { cwd })).status, 0);
    const state = join(cwd, 'drum-state');
    // A whole forget's wall time on this machine now, to aim the kills across it.
    const t0 = Date.now();
    assert.equal((await drum(['forget', '--quiet', 'gone.txt'], { cwd })).status, 0);
    const whole = Date.now() - t0;
    assert.equal((await drum(['ingest', '--quiet', '--no-fsync', '--force', 'all.txt'], { cwd })).status, 0);
    for (const share of [0.5, 0.8, 1.1, 1.5]) {
      const ms = Math.round(whole * share);
      const { child, done } = startDrum(['forget', '--quiet', 'gone.txt'], { cwd });
      await new Promise((r) => setTimeout(r, ms));
      child.kill('SIGKILL');
      await done;
      const v = await drum(['verify', '--quiet'], { cwd });
      assert.equal(v.status, 0, v.stdout + v.stderr);
      const n = manifestOf(state)!.storeUrls;
      assert.ok(n === 60_000 || n === 40_000, `old or new state after a kill at ${ms} ms: ${n}`);
      if (n === 40_000) {
        // Back to the old state for the next kill.
        assert.equal((await drum(['ingest', '--quiet', '--no-fsync', '--force', 'all.txt'], { cwd })).status, 0);
      }
    }
  });
});
