// Bench-only process measurement: runs one command to completion and reports
// its wall time, CPU time (user+sys, so CPU% > 100 means more than one core)
// and peak RSS. Peak RSS comes from GNU time (`/usr/bin/time -f %M`, the
// kernel's ru_maxrss of the largest process in the tree — threads included)
// when installed, else from polling /proc/<pid>/status VmHWM of the child and
// its descendants every 50 ms (summed; may miss short spikes). Also sizes of
// files/directories and line counts. Not a profiler; Linux only.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync, lstatSync, mkdtempSync, createReadStream } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

export const GNU_TIME = '/usr/bin/time';

export interface Measured {
  exitCode: number;
  signal: string | null;
  wallMs: number;
  cpuMs: number | null;
  peakRssBytes: number | null;
  rssSource: 'gnu-time' | 'proc-poll';
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Kill the run (SIGKILL to the whole process group) after this many ms. */
  timeoutMs?: number;
}

export function hasGnuTime(): boolean {
  return existsSync(GNU_TIME);
}

export async function runMeasured(cmd: string, args: string[], o: RunOptions = {}): Promise<Measured> {
  const gnu = hasGnuTime();
  const scratch = mkdtempSync(join(tmpdir(), 'drum-bench-time-'));
  const timeFile = join(scratch, 'time.txt');
  const argv = gnu ? ['-f', '%e %U %S %M', '-o', timeFile, cmd, ...args] : args;
  const t0 = performance.now();
  const child = spawn(gnu ? GNU_TIME : cmd, argv, { env: o.env ?? process.env, cwd: o.cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const out: Buffer[] = [], err: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => err.push(d));
  let polledPeak = 0;
  const poll = gnu ? null : setInterval(() => { polledPeak = Math.max(polledPeak, treeHwm(child.pid!)); }, 50);
  let timedOut = false;
  const timer = o.timeoutMs ? setTimeout(() => { timedOut = true; try { process.kill(-child.pid!, 'SIGKILL'); } catch { /* gone */ } }, o.timeoutMs) : null;
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c, s) => resolve([c, s]));
  });
  const wallMs = performance.now() - t0;
  if (poll) clearInterval(poll);
  if (timer) clearTimeout(timer);
  let cpuMs: number | null = null;
  let peak: number | null = gnu ? null : polledPeak || null;
  if (gnu && existsSync(timeFile)) {
    // GNU time may prepend "Command exited with non-zero status N".
    const last = readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '';
    const [, u, s, m] = last.split(' ').map(Number);
    if (Number.isFinite(u) && Number.isFinite(s)) cpuMs = Math.round((u! + s!) * 1000);
    if (Number.isFinite(m)) peak = m! * 1024;
  }
  rmSync(scratch, { recursive: true, force: true });
  return {
    exitCode: code ?? -1,
    signal,
    wallMs: Math.round(wallMs),
    cpuMs,
    peakRssBytes: peak,
    rssSource: gnu ? 'gnu-time' : 'proc-poll',
    stdout: Buffer.concat(out).toString('utf8'),
    stderr: Buffer.concat(err).toString('utf8'),
    timedOut,
  };
}

/** Sum of VmHWM over pid and its descendants (bytes); 0 if gone. */
function treeHwm(pid: number): number {
  let total = 0;
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (m) total += Number(m[1]) * 1024;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const kids = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      for (const k of kids ? kids.split(' ') : []) total += treeHwm(Number(k));
    }
  } catch { /* process exited between reads */ }
  return total;
}

/** Bytes in a file, or in all files under a directory; 0 if absent. */
export function pathBytes(p: string): number {
  if (!existsSync(p)) return 0;
  const st = lstatSync(p);
  if (!st.isDirectory()) return st.size;
  let n = 0;
  for (const e of readdirSync(p)) n += pathBytes(join(p, e));
  return n;
}

export function fileSize(p: string): number {
  return existsSync(p) ? statSync(p).size : 0;
}

/** Number of newline bytes in a file. */
export async function countLines(p: string): Promise<number> {
  let n = 0;
  for await (const chunk of createReadStream(p, { highWaterMark: 1 << 20 }) as AsyncIterable<Buffer>) {
    for (let i = chunk.indexOf(10); i >= 0; i = chunk.indexOf(10, i + 1)) n++;
  }
  return n;
}

/** The median of `xs` (the upper one of an even count), as the bench reports runs. REQUIRES: xs not empty. */
export function median(xs: readonly number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}
