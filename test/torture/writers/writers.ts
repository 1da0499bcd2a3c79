// Shared machinery of the many-writer race (writers.test.ts beside it and
// scripts/torture.ts): child processes that take a state directory's writer
// lock together (released on a "go" line so they really start at once), and
// one trial that kill -9s a `drum ingest`, then starts several identical
// `drum ingest`s and library opens of the store together against what the
// killed writer left. Records what each did; asserts nothing itself.
// REQUIRES: the build at `distRoot` holds src/store/lock.js and src/index.js.

import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { distRoot, drum, manifestOf, startDrum, writeLinks, type Result } from '../harness.js';
import { runAndKill } from '../kill/kill.js';

/** What one contender did: took the lock (and held it alone) or was refused with a code. */
export interface Contender {
  got: boolean;
  code?: string;
  /** A holder found another holder's marker, or saw the manifest change while it held the lock. */
  overlap?: boolean;
}

// Runs in a child: `lock` takes the lock with acquireLock, `open` with Drum.open (a writer open of
// the whole store). While it holds the lock it keeps an O_EXCL marker file and watches the
// MANIFEST's inode (a commit renames a new one in): a second holder shows as EEXIST or a new inode.
const CHILD = `
import * as fs from 'node:fs';
const [mode, dist, state, holdMs, marker] = process.argv.slice(1);
const lockMod = await import(dist + '/src/store/lock.js');
const engine = mode === 'open' ? await import(dist + '/src/index.js') : null;
const commit = () => { try { return fs.statSync(state + '/MANIFEST').ino; } catch { return -1; } };
process.stdout.write('ready\\n');
await new Promise((go) => process.stdin.once('data', go));
let release;
try {
  if (mode === 'open') {
    const d = await engine.Drum.open(state, { workers: 0, fsync: false });
    release = () => d.close();
  } else {
    const r = await lockMod.acquireLock(state);
    release = typeof r === 'function' ? r : () => r.release();
  }
} catch (e) {
  process.stdout.write(JSON.stringify({ got: false, code: e.code ?? String(e) }) + '\\n');
  process.exit(0);
}
let overlap = false;
try { fs.writeFileSync(marker, String(process.pid), { flag: 'wx' }); } catch { overlap = true; }
const c0 = commit();
await new Promise((r) => setTimeout(r, Number(holdMs)));
if (commit() !== c0) overlap = true;
if (!overlap) fs.unlinkSync(marker);
await release();
process.stdout.write(JSON.stringify({ got: true, overlap }) + '\\n');
`;

interface Child {
  go(): void;
  ready: Promise<void>;
  done: Promise<Contender>;
}

function contender(mode: 'lock' | 'open', state: string, holdMs: number, marker: string): Child {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, mode, pathToFileURL(distRoot).href, state, String(holdMs), marker], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let readyFn: () => void = () => undefined;
  const ready = new Promise<void>((r) => (readyFn = r));
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    out += s;
    if (out.startsWith('ready\n')) readyFn();
  });
  child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  const done = new Promise<Contender>((ok) => {
    child.on('close', (status) => {
      readyFn();
      const last = out.trim().split('\n').pop() ?? '';
      try {
        ok(JSON.parse(last) as Contender);
      } catch {
        ok({ got: false, code: `exit ${status}: ${err.trim().split('\n').slice(-3).join(' | ')}` });
      }
    });
  });
  return { go: () => child.stdin.end('go\n'), ready, done };
}

/** Starts `n` contenders, waits until all are loaded, then lets them go at once. */
export async function lockRace(mode: 'lock' | 'open', state: string, n: number, holdMs: number): Promise<Contender[]> {
  const marker = join(state, '..', `holder-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const cs = Array.from({ length: n }, () => contender(mode, state, holdMs, marker));
  await Promise.all(cs.map((c) => c.ready));
  for (const c of cs) c.go();
  return Promise.all(cs.map((c) => c.done));
}

export interface RaceTrial {
  killed: boolean;
  /** Exit statuses of the racing `drum ingest`s. */
  writers: (number | null)[];
  /** What the racing library opens did. */
  opens: Contender[];
  /** The status of a lone rerun when no racing writer finished the run (else null). */
  rerun: number | null;
  verify: Result;
  stderr: string[];
}

/**
 * One trial on `state`: a fresh seeded input, a `drum ingest` kill -9ed at
 * a merge (even trials) or a commit (odd), or after 5 s, then `writers` identical ingests
 * (resuming the killed run, same --out) and `opens` library opens started
 * together; a lone rerun if none of them finished the run; then `drum verify`.
 */
export async function writerRace(root: string, state: string, t: number, o: { links: number; seed: number; writers: number; opens: number; flags: string[] }): Promise<RaceTrial> {
  const input = join(root, `race-${t}.txt`);
  writeLinks(input, o.links, o.seed + t);
  const args = ['ingest', '--no-progress', '--quiet', '--no-fsync', ...o.flags, '--state', state, '--out', join(root, `race-out-${t}`), input];
  const k = await runAndKill(args, { cwd: root, state, aim: t % 2 === 0 ? 'merge' : 'commit', delayMs: 5000 });
  const openers = o.opens > 0 && fs.existsSync(join(state, 'MANIFEST')) ? lockRace('open', state, o.opens, 150) : Promise.resolve([]);
  const ws = Array.from({ length: o.writers }, () => startDrum(args, { cwd: root }).done);
  const results = await Promise.all(ws);
  const opens = await openers;
  let rerun: number | null = null;
  if (manifestOf(state)?.run?.status !== 'complete' || !results.some((r) => r.status === 0)) {
    rerun = (await drum(args, { cwd: root })).status;
  }
  const verify = await drum(['verify', '--state', state], { cwd: root });
  return {
    killed: k.killed, writers: results.map((r) => r.status), opens, rerun, verify,
    stderr: results.filter((r) => r.status !== 0).map((r) => r.stderr.trim()),
  };
}

/** Every line of every unique-*.txt under the race's output directories, and how many appear more than once. */
export function repeatedUrls(root: string): { urls: number; repeats: string[] } {
  const seen = new Set<string>();
  const repeats: string[] = [];
  for (const d of fs.readdirSync(root).filter((f) => f.startsWith('race-out-')).sort()) {
    for (const f of fs.readdirSync(join(root, d)).filter((x) => /^unique-\d+\.txt$/.test(x)).sort()) {
      for (const line of fs.readFileSync(join(root, d, f), 'utf8').split('\n')) {
        if (line === '') continue;
        if (seen.has(line)) repeats.push(`${d}/${f}: ${line}`);
        else seen.add(line);
      }
    }
  }
  return { urls: seen.size, repeats };
}
