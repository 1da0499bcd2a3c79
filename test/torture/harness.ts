// Shared machinery of the torture suite (test/torture/*/*.test.ts and
// scripts/torture.ts): spawning the real bin/drum on a given build, a seeded
// link-file generator with rejects mixed in, content hashes of a state
// directory, a content dump of the LevelDB catalog (read from a copy, because
// opening LevelDB rewrites its logs), and the run outputs that must be
// byte-identical. kill -9 at a chosen moment is kill/kill.ts. Not a test
// itself; asserts nothing. Precondition: the build at `distRoot` holds
// src/cli/main.js.

import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Level } from 'level';
import { decodeManifest, type ManifestBody } from '../../src/store/manifest.js';

/** The build these files were compiled into (dist/ or a private outDir). */
export const distRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** bin/drum of the repository (tests and scripts run from the repo root). */
export const bin = join(process.cwd(), 'bin', 'drum');
export const haveEngine = fs.existsSync(join(distRoot, 'src', 'cli', 'main.js')) && fs.existsSync(bin);

/**
 * Internal limits of the old smallest budget, now asked for directly (a budget
 * under the process floor is refused): bucket buffers of 2,048 entries spill
 * often, the sort area holds 32,768 keys.
 */
export const SMALL_TUNING = ['--line-memo-entries', '0', '--tuning', JSON.stringify({ bufferEntries: 2048, sortEntries: 32768 })];

/**
 * CLI flags for many rounds on small inputs: 8 buckets, tiers and line memo
 * off so every key reaches a bucket, small bucket buffers and sort area, a
 * round every 8,000 keys, and a key journal of 20,000 keys: rounds are
 * journal rounds, with a fold into the bucket files every few of them.
 */
export const MANY_ROUNDS = [
  '--buckets', '8', '--cache-entries', '0', '--recent-entries', '0', ...SMALL_TUNING, '--merge-every', '8000', '--journal-keys', '20000',
];

/** mulberry32: a tiny seeded PRNG, deterministic everywhere. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Result {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface SpawnOptions {
  cwd: string;
  env?: Record<string, string>;
  input?: string;
  /** Leave stdin open after `input` (the caller writes more and ends it). */
  stdinOpen?: boolean;
}

/** Starts bin/drum with args; the promise settles when it exits. */
export function startDrum(args: string[], o: SpawnOptions): { child: ChildProcess; done: Promise<Result> } {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: o.cwd,
    env: { ...process.env, DRUM_DIST_DIR: distRoot, DRUM_STATE: '', ...(o.env ?? {}) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => (stdout += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const done = new Promise<Result>((ok, fail) => {
    child.on('error', fail);
    child.on('close', (status, signal) => ok({ status, signal, stdout, stderr }));
  });
  if (o.stdinOpen) child.stdin!.write(o.input ?? '');
  else child.stdin!.end(o.input ?? '');
  return { child, done };
}

export function drum(args: string[], o: SpawnOptions): Promise<Result> {
  return startDrum(args, o).done;
}

/**
 * Writes a seeded link file (`lines` format): `n` links over `hosts` hosts,
 * ~`dupShare` repeats of earlier links, and every ~`rejectEvery` lines an
 * unusable one (mailto:, a bare scheme, a space in the host, a NUL, a line
 * over 2048 bytes), plus blank and comment lines. Same arguments, same bytes.
 */
export function writeLinks(path: string, n: number, seed: number, o: { hosts?: number; dupShare?: number; rejectEvery?: number } = {}): void {
  const r = rng(seed);
  const hosts = o.hosts ?? Math.max(10, Math.floor(n / 50));
  const dupShare = o.dupShare ?? 0.5;
  const rejectEvery = o.rejectEvery ?? 97;
  const bad = [
    (i: number) => `mailto:user${i}@example.org`,
    () => 'http://',
    (i: number) => `http://bad host${i}.example/`,
    (i: number) => `http://nul${i}.example/\u0000x`,
    (i: number) => `http://long${i}.example/${'x'.repeat(2100)}`,
    () => '',
    (i: number) => `# comment ${i}`,
  ];
  const fd = fs.openSync(path, 'w');
  const parts: string[] = [];
  let made = 0;
  const flush = (): void => {
    fs.writeSync(fd, parts.join(''));
    parts.length = 0;
  };
  for (let i = 0; i < n; i++) {
    let line: string;
    if (i % rejectEvery === rejectEvery - 1) line = bad[Math.floor(r() * bad.length)]!(i);
    else {
      const fresh = made === 0 || r() >= dupShare;
      const id = fresh ? made++ : Math.floor(r() * made);
      // A deterministic URL per id; hosts skewed (id * id) so a few hosts are big.
      const h = Math.floor(((id * 2654435761) >>> 0) % hosts);
      const variant = r() < 0.05 ? '#frag' : '';
      line = `http://h${h}.example${r() < 0.02 ? ':80' : ''}/p/${id}${variant}`;
    }
    parts.push(line, '\n');
    if (parts.length > 8192) flush();
  }
  flush();
  fs.closeSync(fd);
}

/** The run outputs that must be byte-identical after any crash: unique-*.txt and rejects.tsv (report.json holds timings). */
export function outputs(outDir: string): Record<string, string> {
  const o: Record<string, string> = {};
  for (const f of fs.readdirSync(outDir).sort()) {
    if (/^unique-\d+\.txt$/.test(f) || f === 'rejects.tsv') o[f] = sha256(fs.readFileSync(join(outDir, f)));
  }
  return o;
}

export function sha256(b: Uint8Array | string): string {
  return createHash('sha256').update(b).digest('hex');
}

/**
 * Every file and directory under `dir` (recursively) with the SHA-256 of its
 * bytes. `catalog/` is left out when excludeCatalog: LevelDB rewrites its own
 * log files when merely opened, so the catalog is compared by content instead.
 * `writer-lock/` (a LevelDB holding no data, opened by every writer) is always left out.
 */
export function hashTree(dir: string, excludeCatalog = true): Record<string, string> {
  const out: Record<string, string> = {};
  if (!fs.existsSync(dir)) return out;
  for (const f of (fs.readdirSync(dir, { recursive: true, encoding: 'utf8' }) as string[]).sort()) {
    if (excludeCatalog && (f === 'catalog' || f.startsWith(`catalog/`))) continue;
    if (f === 'writer-lock' || f.startsWith('writer-lock/')) continue;
    const p = join(dir, f);
    const st = fs.lstatSync(p);
    out[f] = st.isDirectory() ? 'dir' : sha256(fs.readFileSync(p));
  }
  return out;
}

/**
 * Every key and value of the catalog, read from a copy of catalog/ (so the
 * original's files are not touched), as "key\tvalue" lines in key order.
 * Empty when there is no catalog; "unreadable: CODE" when LevelDB refuses it.
 */
export async function catalogContent(state: string): Promise<string[]> {
  const src = join(state, 'catalog');
  if (!fs.existsSync(src)) return [];
  const copy = fs.mkdtempSync(join(tmpdir(), 'drum-torture-cat-'));
  try {
    for (const f of fs.readdirSync(src)) if (f !== 'LOCK') fs.copyFileSync(join(src, f), join(copy, f));
    const db = new Level<string, string>(copy, { createIfMissing: false, valueEncoding: 'utf8' });
    try {
      await db.open();
      const rows: string[] = [];
      for await (const [k, v] of db.iterator()) rows.push(`${k}\t${v}`);
      return rows;
    } catch (e) {
      return [`unreadable: ${(e as { code?: string }).code ?? String(e)}`];
    } finally {
      await db.close().catch(() => undefined);
    }
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** The committed manifest, or null if absent or unreadable (a test helper: never throws). */
export function manifestOf(state: string): ManifestBody | null {
  try {
    const file = join(state, 'MANIFEST');
    return decodeManifest(fs.readFileSync(file), file);
  } catch {
    return null;
  }
}

/** A fresh temp directory (the caller removes it, or the OS temp cleaner does). */
export function tempRoot(prefix = 'drum-torture-'): string {
  return fs.mkdtempSync(join(tmpdir(), prefix));
}
