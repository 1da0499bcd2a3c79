// Benchmark of drum on NATS JetStream (docs/cluster.md, figures in
// docs/scale.md): on one machine, with one local nats-server (R1),
// (1) a local `drum ingest` of the same links as the baseline, (2) publish +
// 1, 2 and 4 shards answering them: wall time until every link is acked,
// links/s, CPU per link of the shards, of the publisher and of nats-server,
// (3) publish-to-new-URL latency at light load (one new URL every 50 ms to
// one shard). Fresh streams and shard states per configuration.
// Usage: node dist/scripts/cluster-bench.js [--links N] [--samples N]
// Needs nats-server; run it under `nice` on a shared machine.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptArgs } from './lib/script-args.js';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { generateLinks } from './gen-links.js';
import { NatsCluster } from '../test/helpers/nats-server.js';

const BIN = join(process.cwd(), 'bin', 'drum');
const TICK_MS = 10; // /proc/<pid>/stat times are in clock ticks of 1/100 s on Linux

/** CPU seconds (user + system) a live process has used so far. */
function cpuOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
  return ((Number(rest[11]) + Number(rest[12])) * TICK_MS) / 1000; // fields 14 and 15 (utime, stime)
}

function drumSync(args: string[]): { wall: number; cpu: number; out: string } {
  const t0 = performance.now();
  const r = spawnSync('bash', ['-c', `TIMEFORMAT='%U %S'; time node ${BIN} ${args.join(' ')} >/tmp/drum-bench-out 2>/dev/null`], { encoding: 'utf8' });
  const wall = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`drum ${args.join(' ')} failed: ${r.stderr}`);
  const [u, s] = r.stderr.trim().split('\n').pop()!.split(' ').map(Number);
  return { wall, cpu: u! + s!, out: readFileSync('/tmp/drum-bench-out', 'utf8') };
}

async function resetStreams(nc: NatsConnection): Promise<void> {
  const jsm = await jetstreamManager(nc);
  for (const s of ['DRUM_LINKS', 'DRUM_NEW']) await jsm.streams.delete(s).catch(() => false);
}

async function linksLeft(nc: NatsConnection): Promise<number> {
  return (await (await jetstreamManager(nc)).streams.info('DRUM_LINKS')).state.messages;
}

function serve(url: string, shard: number, shards: number, state: string, extra: string[] = []): ChildProcess {
  return spawn('node', [BIN, 'serve', '--nats', url, '--shard', String(shard), '--shards', String(shards), '--state', state, '--quiet', ...extra], { stdio: ['ignore', 'ignore', 'inherit'] });
}

async function stopAll(ps: ChildProcess[]): Promise<void> {
  await Promise.all(ps.map((p) => new Promise((done) => {
    p.once('close', done);
    p.kill('SIGTERM');
  })));
}

async function shardRun(url: string, nc: NatsConnection, nats: ChildProcess, file: string, links: number, shards: number, dir: string): Promise<Record<string, number>> {
  await resetStreams(nc);
  const ps = Array.from({ length: shards }, (_, i) => serve(url, i, shards, join(dir, `s${shards}-${i}`), ['--max-delay', '1']));
  await new Promise((r) => setTimeout(r, 2000)); // shards up, consumers made
  const cpu0 = ps.map((p) => cpuOf(p.pid!));
  const natsCpu0 = cpuOf(nats.pid!);
  const t0 = performance.now();
  const pub = drumSync(['publish', '--nats', url, '--shards', String(shards), '--json', file]);
  while ((await linksLeft(nc)) > 0) {
    if (ps.some((p) => p.exitCode !== null)) throw new Error('a shard exited during the run');
    await new Promise((r) => setTimeout(r, 100));
  }
  const wall = (performance.now() - t0) / 1000;
  const shardCpu = ps.reduce((a, p, i) => a + cpuOf(p.pid!) - cpu0[i]!, 0);
  const natsCpu = cpuOf(nats.pid!) - natsCpu0;
  await stopAll(ps);
  return {
    shards, wallS: wall, linksPerS: links / wall, publishS: pub.wall,
    shardCpuUsPerLink: (shardCpu / links) * 1e6, publishCpuUsPerLink: (pub.cpu / links) * 1e6, natsCpuUsPerLink: (natsCpu / links) * 1e6,
    totalCpuUsPerLink: ((shardCpu + pub.cpu + natsCpu) / links) * 1e6,
  };
}

async function latency(url: string, nc: NatsConnection, dir: string, samples: number): Promise<Record<string, number>> {
  await resetStreams(nc);
  const p = serve(url, 0, 1, join(dir, 'lat'), ['--max-delay', '0.01', '--no-fsync']);
  const { jetstream } = await import('@nats-io/jetstream');
  const { headers } = await import('@nats-io/transport-node');
  await new Promise((r) => setTimeout(r, 2000));
  const js = jetstream(nc);
  const got = new Map<string, number>();
  const sub = nc.subscribe('drum.new.>', { callback: (_e, m) => void got.set(m.string().trim(), performance.now()) });
  const ms: number[] = [];
  for (let i = 0; i < samples; i++) {
    const u = `http://lat${i}.example.com/page/${i}`;
    const h = headers();
    h.set('Drum-Count', '1');
    const t0 = performance.now();
    await js.publish('drum.links.0', `${u}\n`, { headers: h });
    while (!got.has(u)) await new Promise((r) => setTimeout(r, 1));
    ms.push(got.get(u)! - t0);
    await new Promise((r) => setTimeout(r, 50));
  }
  sub.unsubscribe();
  await stopAll([p]);
  ms.sort((a, b) => a - b);
  const q = (f: number): number => ms[Math.min(ms.length - 1, Math.floor(f * ms.length))]!;
  return { samples, p50Ms: q(0.5), p90Ms: q(0.9), p99Ms: q(0.99), maxMs: ms[ms.length - 1]! };
}

async function main(): Promise<void> {
  const { values } = scriptArgs(import.meta.url, { options: { links: { type: 'string', default: '1000000' }, samples: { type: 'string', default: '100' } } });
  const links = Number(values.links);
  const dir = mkdtempSync(join(tmpdir(), 'drum-cluster-bench-'));
  try {
    const file = join(dir, 'links.txt');
    await generateLinks({ links, seed: 42, out: file });
    // Streams are created by serve (R1); publish finds them.
    const ingest = drumSync(['ingest', '--state', join(dir, 'local'), '--json', '--quiet', file]);
    const uniq = JSON.parse(ingest.out).uniqueUrls as number;
    const local = { wallS: ingest.wall, linksPerS: links / ingest.wall, cpuUsPerLink: (ingest.cpu / links) * 1e6, uniqueUrls: uniq };
    const cluster = await NatsCluster.start(1, join(dir, 'nats'));
    const nats = cluster.nodes[0]!.proc!;
    const url = cluster.urls;
    const nc = await connect({ servers: url });
    try {
      const runs = [];
      for (const s of [1, 2, 4]) runs.push(await shardRun(url, nc, nats, file, links, s, dir));
      const lat = await latency(url, nc, dir, Number(values.samples));
      console.log(JSON.stringify({ links, local, runs, latency: lat }, null, 1));
    } finally {
      await nc.close();
      cluster.kill();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
