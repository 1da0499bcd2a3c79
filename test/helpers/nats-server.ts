// Real nats-server processes with JetStream on 127.0.0.1, for tests and
// scripts alike: one node, or a 3-node cluster with routes, on free ports,
// with store dirs and a config file per node under a directory the caller
// gives; kill() stops them all. Also: whether the binary exists (the
// cluster tests skip without it, and fail when CI is set).
// Registers no node:test hooks, so scripts (scripts/torture.ts through
// test/torture/power-loss/power-loss-serve.ts, scripts/cluster-bench.ts)
// import it without printing TAP; test/helpers/nats.ts adds the hooks the
// tests use (a cluster per describe block, spawned drum processes killed).
// Does not remove the directory it is given.
// REQUIRES: nats-server on the PATH; `dir` given to start exists or can be
// made, and is used by one cluster.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

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

  /**
   * Starts `size` nodes (a cluster with routes when size > 1), their
   * configs and stores under `dir`, and waits until JetStream answers on
   * each.
   */
  static async start(size: number, dir: string): Promise<NatsCluster> {
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
    try {
      await c.ready();
    } catch (e) {
      c.kill();
      throw e;
    }
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
