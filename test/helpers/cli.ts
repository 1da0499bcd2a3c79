// Test helper: spawn the real bin/drum on the build these tests were compiled
// with (DRUM_DIST_DIR = the outDir two levels above test/helpers/), read a
// run's unique-*.txt files, and the two calls the Bloom tests make of it
// (an ingest's report.json, a store's stats). Test-only.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StoreStats } from '../../src/engine/api.js';
import type { RunReport } from '../../src/stats/report.js';
import { tempDir } from './tmp.js';

export const repoRoot = process.cwd();
export const distRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const bin = join(repoRoot, 'bin', 'drum');

export interface Result {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export function drum(args: string[], opts: { cwd?: string; input?: string | Buffer; env?: Record<string, string> } = {}): Promise<Result> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [bin, ...args], {
      cwd: opts.cwd ?? tempDir(),
      env: { ...process.env, DRUM_DIST_DIR: distRoot, DRUM_STATE: '', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
    child.on('error', fail);
    child.on('close', (status, signal) => done({ status, signal, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

/** The run's new URLs: its unique-*.txt files concatenated in name order. */
export function uniques(outDir: string): string[] {
  const files = readdirSync(outDir).filter((f) => /^unique-\d+\.txt$/.test(f)).sort();
  return files.flatMap((f) => readFileSync(join(outDir, f), 'utf8').split('\n').filter((l) => l !== ''));
}

/** `drum ingest --quiet` into `state`, outputs in `out`, without fsync and parse threads; asserts exit 0 and returns the run's report.json. */
export async function ingestReport(state: string, out: string, args: string[]): Promise<RunReport> {
  const r = await drum(['ingest', '--quiet', '--no-fsync', '--workers', '0', '--state', state, '--out', out, ...args]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as RunReport;
}

/** `drum stats --json` of `state`; asserts exit 0. */
export async function storeStats(state: string): Promise<StoreStats> {
  const r = await drum(['stats', '--json', '--state', state]);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout) as StoreStats;
}
