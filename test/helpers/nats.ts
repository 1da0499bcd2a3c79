// Test helper: the nats-server clusters of nats-server.ts (re-exported here)
// with node:test hooks: clusterPerSuite starts one under a temp dir before a
// describe block's tests and kills it after them, with every long-running
// `drum` process (serve, follow) spawnDrum started.
// Test-only: importing it registers hooks (a script imports nats-server.ts).
// REQUIRES: nats-server on the PATH (haveNats says whether it is).

import { spawn, type ChildProcess } from 'node:child_process';
import { after, before } from 'node:test';
import { bin, distRoot } from './cli.js';
import { NatsCluster } from './nats-server.js';
import { tempDir } from './tmp.js';

export { freePort, haveNats, INSTALL_HINT, NatsCluster, type NatsNode } from './nats-server.js';

/** A long-running bin/drum (serve, follow); collects its output. */
export interface DrumProc {
  proc: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

const spawned = new Set<ChildProcess>();

/** SIGKILLs every drum process spawnDrum started that is still running (a failed test leaves them). */
export function killDrums(): void {
  for (const p of spawned) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  spawned.clear();
}

export function spawnDrum(args: string[], cwd: string): DrumProc {
  const proc = spawn(process.execPath, [bin, ...args], {
    cwd, env: { ...process.env, DRUM_DIST_DIR: distRoot, DRUM_STATE: '' }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  proc.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
  proc.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
  const exited = new Promise<number | null>((done) => proc.on('close', (code) => done(code)));
  spawned.add(proc);
  return { proc, stdout: () => out, stderr: () => err, exited };
}

/**
 * A cluster of `size` nodes for the tests of one describe block: started
 * before them (handed to `set`), and killed after them with every drum
 * process the tests spawned.
 */
export function clusterPerSuite(size: number, set: (c: NatsCluster) => void): void {
  let c: NatsCluster | null = null;
  before(async () => set((c = await NatsCluster.start(size, tempDir()))));
  after(() => {
    killDrums();
    c?.kill();
  });
}
