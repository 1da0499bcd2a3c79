// The host-table fold's child process (started by fold-child.ts's
// foldInChild, which has the why): folds the catalog of argv[2] keeping the
// round markers of argv[4...], fsyncing when argv[3] is "sync", and prints
// one JSON line, {"folded": n} or {"error": {"code", "message", "file"}}.
// Stops at once, as a crash would, when the process that started it dies.
// Nothing imports this file; it runs only as a script.
// REQUIRES: started by foldInChild with an IPC channel; the parent holds the
// writer lock and has the catalog closed.

import { Catalog } from '../catalog.js';
import { DrumError } from '../../errors.js';
import type { ChildAnswer } from './fold-child.js';

/** The child: fold, close, print the answer. */
async function childMain(stateDir: string, sync: boolean, keepRuns: readonly string[]): Promise<void> {
  let answer: ChildAnswer;
  try {
    const c = await Catalog.open(stateDir, { sync });
    try {
      answer = { folded: await c.compactHosts(keepRuns) };
    } finally {
      await c.close();
    }
  } catch (e) {
    const d = e instanceof DrumError ? e : null;
    answer = { error: { code: d?.code ?? 'DRUM_INTERNAL', message: (e as Error).message ?? String(e), ...(d?.file !== undefined ? { file: d.file } : {}) } };
    process.exitCode = 1;
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
}

// The writer that started the fold is gone (kill -9): stop as a crash would, leaving the old table and its deltas,
// so that no orphan keeps the catalog's lock from the next writer (DRUM_LOCKED with no drum command running).
// A parent killed before this process set up its channel sends no 'disconnect': it reads as not connected.
process.on('disconnect', () => process.exit(1));
if (process.connected !== true) process.exit(1);
// The channel alone must not keep the child alive once it has answered.
process.channel?.unref();
void childMain(process.argv[2]!, process.argv[3] === 'sync', process.argv.slice(4));
