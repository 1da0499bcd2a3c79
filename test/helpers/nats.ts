// Test helper: real nats-server processes with JetStream on 127.0.0.1 (one
// node, or a 3-node cluster with routes), free ports, store dirs under a temp
// dir, a config file per node; kill() stops them all. Also: whether the
// binary exists (the cluster tests skip without it, and fail when CI is set),
// and spawning long-running `drum` processes (serve) that tests kill.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { bin, distRoot } from './cli.js';
import { tempDir } from './tmp.js';

export const INSTALL_HINT = 'nats-server not found: install it (Debian/Ubuntu: apt-get install -y nats-server) to run the cluster tests';

/** True when nats-server runs; throws when it is missing and CI is set (CI must run these tests). */
export function haveNats(): boolean {
  const ok = spawnSync('nats-server', ['--version'], { encoding: 'utf8' }).status === 0;
  if (!ok && process.env.CI) throw new Error(`${INSTALL_HINT} (CI is set: not skipping)`);
  return ok;
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => done(p));
    });
  });
}

export interface NatsNode {
  name: string;
  port: number;
  clusterPort: number;
  config: string;
  proc: ChildProcess | null;
}

export class NatsCluster {
  private constructor(readonly nodes: NatsNode[]) {}

  get urls(): string {
    return this.nodes.map((n) => `nats://127.0.0.1:${n.port}`).join(',');
  }

  /** Starts `size` nodes (a cluster with routes when size > 1) and waits until JetStream answers on each. */
  static async start(size: number): Promise<NatsCluster> {
    const dir = tempDir();
    const nodes: NatsNode[] = [];
    for (let i = 0; i < size; i++) nodes.push({ name: `n${i}`, port: await freePort(), clusterPort: await freePort(), config: '', proc: null });
    for (const n of nodes) {
      const store = join(dir, n.name);
      mkdirSync(store, { recursive: true });
      const routes = nodes.filter((m) => m !== n).map((m) => `nats-route://127.0.0.1:${m.clusterPort}`);
      const cluster = size > 1 ? `cluster { name: drumtest, listen: 127.0.0.1:${n.clusterPort}, routes: [${routes.join(', ')}] }\n` : '';
      n.config = join(dir, `${n.name}.conf`);
      writeFileSync(n.config, `server_name: ${n.name}\nlisten: 127.0.0.1:${n.port}\njetstream { store_dir: "${store}" }\n${cluster}`);
    }
    const c = new NatsCluster(nodes);
    for (const n of nodes) c.startNode(n);
    await c.ready();
    return c;
  }

  startNode(n: NatsNode): void {
    n.proc = spawn('nats-server', ['-c', n.config], { stdio: 'ignore' });
  }

  killNode(n: NatsNode): void {
    n.proc?.kill('SIGKILL');
    n.proc = null;
  }

  /** Freezes a node (SIGSTOP): its peers lose it as if it had died, and resumeNode gives it back with its state, sooner than a restart. */
  pauseNode(n: NatsNode): void {
    n.proc?.kill('SIGSTOP');
  }

  resumeNode(n: NatsNode): void {
    n.proc?.kill('SIGCONT');
  }

  /** Waits until `drum follow`-style JetStream calls work: a meta leader exists. */
  async ready(timeoutMs = 20_000): Promise<void> {
    const { connect } = await import('@nats-io/transport-node');
    const { jetstreamManager } = await import('@nats-io/jetstream');
    const until = Date.now() + timeoutMs;
    for (;;) {
      try {
        const nc = await connect({ servers: this.urls.split(','), timeout: 1000 });
        try {
          const jsm = await jetstreamManager(nc, { timeout: 2000 });
          await jsm.getAccountInfo();
          return;
        } finally {
          await nc.close();
        }
      } catch (e) {
        if (Date.now() > until) throw e;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  kill(): void {
    for (const n of this.nodes) this.killNode(n);
  }
}

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
  before(async () => set((c = await NatsCluster.start(size))));
  after(() => {
    killDrums();
    c?.kill();
  });
}
