// Runs a host-table fold (Catalog.compactHosts) in a short-lived child
// process, so that what a fold takes — the deltas' pages of LevelDB's
// mapped table files (RSS counts them), the V8 heap and the malloc arenas
// it grew — goes back to the system when the child exits instead of
// staying under the ingest that opened the store: measured on a catalog of
// 5 M hosts and 63 pending deltas, a fold in the process left it 100 MiB
// larger (80 MiB anonymous, 40 MiB of mapped catalog files), in a worker
// thread 40 MiB larger, in a child nothing. The fold also drops the round
// markers of every run but `keepRuns` (host-table.ts). The child is
// fold-child-main.js beside this file (or beside the bundled CLI's chunk
// that holds this code, in dist/cli/), run by the same Node binary; it
// prints one JSON line, {"folded": n} or {"error": {"code", "message",
// "file"}}, and a failure comes back as the DrumError it was (a crash or a
// signal as DRUM_INTERNAL). The fold is crash-safe on its own
// (host-fold.ts), so a child killed midway leaves the old table and its
// deltas; a child whose parent dies (its IPC channel closes) stops at once
// the same way, instead of folding on as an orphan
// that holds the catalog's lock. Does not decide when to fold (session.ts does).
// REQUIRES: the caller holds the state directory's writer lock and has the
// catalog closed (LevelDB admits one opener); `stateDir` exists.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { DrumError, ERROR_CODES, type DrumErrorCode } from '../../errors.js';

/** What the child prints as its last line. */
export interface ChildAnswer {
  folded?: number;
  error?: { code: string; message: string; file?: string };
}

/** The child's script: an entry of its own, so that the bundled CLI has it too (scripts/bundle-cli.ts). */
const CHILD_MAIN = new URL('./fold-child-main.js', import.meta.url);

/** Folds the catalog of `stateDir` in a child process, keeping the round markers of `keepRuns` only; resolves with the number of deltas folded. */
export function foldInChild(stateDir: string, sync: boolean, keepRuns: readonly string[]): Promise<number> {
  const args = [fileURLToPath(CHILD_MAIN), stateDir, sync ? 'sync' : 'nosync', ...keepRuns];
  // The IPC channel is only there to close when this process dies: the child then stops (fold-child-main.ts).
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (s: string) => void (out += s));
  child.stderr!.setEncoding('utf8').on('data', (s: string) => void (err += s));
  return new Promise((resolve, reject) => {
    child.on('error', (e) => reject(new DrumError('DRUM_INTERNAL', `cannot start the host-table fold: ${e.message}`, { cause: e })));
    child.on('close', (code, signal) => {
      let a: ChildAnswer = {};
      try {
        a = JSON.parse(out.trim().split('\n').at(-1) ?? '{}') as ChildAnswer;
      } catch {
        // no answer: a crash, told below
      }
      if (code === 0 && typeof a.folded === 'number') return resolve(a.folded);
      if (a.error !== undefined) {
        const c = (ERROR_CODES as readonly string[]).includes(a.error.code) ? (a.error.code as DrumErrorCode) : 'DRUM_INTERNAL';
        return reject(new DrumError(c, a.error.message, a.error.file === undefined ? {} : { file: a.error.file }));
      }
      reject(new DrumError('DRUM_INTERNAL', `the host-table fold ended ${signal !== null ? `by ${signal}` : `with status ${code}`}: ${err.trim().slice(-500)}`));
    });
  });
}
