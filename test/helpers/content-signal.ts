// Test helper: runs the real `drum content` and sends it a signal once its
// content store has committed at least a given number of documents (the
// manifest polled every 2 ms). Test-only; nothing in src/ uses it.
// REQUIRES: a build (DRUM_DIST_DIR, helpers/cli.ts); args that run a content
// job into `state`.

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { bin, distRoot } from './cli.js';
import { readContentManifest } from '../../src/content/content-manifest.js';

/** How the signalled run ended, and the documents its store holds afterwards. */
export interface Signalled {
  code: number | null;
  stderr: string;
  docs: number;
}

/** Committed documents in `state`'s content store (0 while the manifest is missing or being replaced). */
function committedDocs(state: string): number {
  try {
    return readContentManifest(join(state, 'content'))?.docs ?? 0;
  } catch {
    return 0;
  }
}

/** Starts drum content with `args` and sends `signal` once `state` holds at least `docs` committed documents. */
export async function signalAfterDocs(args: string[], state: string, docs: number, signal: NodeJS.Signals): Promise<Signalled> {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, DRUM_DIST_DIR: distRoot, DRUM_STATE: '' }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
  let alive = true;
  void exited.then(() => (alive = false));
  while (alive) {
    if (committedDocs(state) >= docs) {
      child.kill(signal);
      break;
    }
    await new Promise((r) => setTimeout(r, 2));
  }
  const code = await exited;
  return { code, stderr, docs: readContentManifest(join(state, 'content'))?.docs ?? 0 };
}
