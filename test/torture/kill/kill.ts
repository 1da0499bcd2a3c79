// kill -9 of a running `drum` at a random or targeted moment (a merge
// writing, a commit), and the after-the-fact classification of where the
// kill landed, judged from the files it left in the state directory. Not a
// test itself; asserts nothing. Precondition: as ../harness.ts.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { manifestOf, startDrum, type Result, type SpawnOptions } from '../harness.js';

export type KillPhase =
  | 'before-store' // no MANIFEST yet
  | 'before-run' // store exists, this run not recorded yet
  | 'reading' // between commits: reading, parsing, filling buckets
  | 'merge-write' // a key file or bloom file being written (*.tmp present)
  | 'merge-renamed' // new key files renamed in, manifest not yet
  | 'manifest-write' // MANIFEST.tmp present
  | 'post-commit' // new manifest durable, old files not yet deleted
  | 'after-final'; // the run's final commit is durable

/** Where a kill landed, judged from what it left in the state directory. */
export function classifyKill(state: string): KillPhase {
  const m = manifestOf(state);
  if (m === null) return 'before-store';
  if (fs.existsSync(join(state, 'MANIFEST.tmp'))) return 'manifest-write';
  const store = safeList(join(state, 'store'));
  const top = safeList(state);
  if (store.some((f) => f.endsWith('.tmp')) || top.some((f) => f.endsWith('.bloom.tmp'))) return 'merge-write';
  const named = new Set(m.buckets.filter((e) => e !== null).map((e) => e!.file));
  let newer = false;
  let older = false;
  for (const f of store) {
    if (named.has(`store/${f}`)) continue;
    const g = /-g(\d+)\.keys$/.exec(f);
    if (g && Number(g[1]) > m.commit) newer = true;
    else older = true;
  }
  if (newer) return 'merge-renamed';
  if (older) return 'post-commit';
  if (m.run === null) return 'before-run';
  if (m.run.status === 'complete') return 'after-final';
  return 'reading';
}

function safeList(d: string): string[] {
  try {
    return fs.readdirSync(d);
  } catch {
    return [];
  }
}

/** True while a merge writes its files: a *.tmp key or bloom file, or a key file newer than the committed manifest. */
function merging(state: string): boolean {
  const store = safeList(join(state, 'store'));
  if (store.some((f) => f.endsWith('.tmp')) || safeList(state).some((f) => f.endsWith('.bloom.tmp'))) return true;
  const m = manifestOf(state);
  if (m === null) return false;
  const next = `-g${String(m.commit + 1).padStart(6, '0')}.keys`;
  return store.some((f) => f.endsWith(next));
}

export type KillAim = 'time' | 'merge' | 'commit';

export interface KillOutcome {
  /** True when the kill landed before the process exited on its own. */
  killed: boolean;
  phase: KillPhase | 'exited';
  /** Manifest commit number and run rounds right after the kill. */
  commit: number;
  rounds: number;
  result: Result;
}

/**
 * Runs `drum args` and kill -9s it: 'time' after delayMs; 'merge' as soon as
 * a merge is seen writing (a *.tmp file, or a key file of the next commit; polling every ms) or after delayMs,
 * whichever is first; 'commit' as soon as MANIFEST.tmp appears or the commit
 * number moves past its value at start. Resolves once the process is gone.
 */
export async function runAndKill(args: string[], o: SpawnOptions & { state: string; aim: KillAim; delayMs: number }): Promise<KillOutcome> {
  const startCommit = manifestOf(o.state)?.commit ?? -1;
  const { child, done } = startDrum(args, o);
  let exited = false;
  void done.then(() => (exited = true));
  const t0 = Date.now();
  await new Promise<void>((fire) => {
    const tick = (): void => {
      if (exited) return fire();
      if (Date.now() - t0 >= o.delayMs) return fire();
      if (o.aim === 'merge') {
        if (merging(o.state)) return fire();
      } else if (o.aim === 'commit') {
        if (fs.existsSync(join(o.state, 'MANIFEST.tmp'))) return fire();
        const c = manifestOf(o.state)?.commit ?? -1;
        if (c > startCommit && startCommit >= 0) return fire();
      }
      setTimeout(tick, o.aim === 'time' ? Math.max(1, Math.min(20, o.delayMs - (Date.now() - t0))) : 1);
    };
    tick();
  });
  const wasRunning = !exited;
  if (wasRunning) child.kill('SIGKILL');
  const result = await done;
  const killed = wasRunning && result.signal === 'SIGKILL';
  const m = manifestOf(o.state);
  return { killed, phase: killed ? classifyKill(o.state) : 'exited', commit: m?.commit ?? -1, rounds: m?.run?.rounds ?? 0, result };
}
