// drum serve against a real nats-server: the output directory of a round a
// kill -9 cut short goes once the restarted shard has confirmed a round,
// while an ingest's run directory in the same state stays (skips without
// nats-server; fails instead when CI is set). Without NATS: only a run
// recorded as this shard's round is listed for removal, the list survives
// reopening, and a directory that cannot go stays listed.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Drum } from '../../src/engine/drum.js';
import { noteCrashedRound, removeLeftoverRounds, shardRunOptions } from '../../src/cluster/leftover-rounds.js';
import { ShardState } from '../../src/cluster/shard-state.js';
import { drum, uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { clusterPerSuite, haveNats, INSTALL_HINT, spawnDrum, type DrumProc, type NatsCluster } from '../helpers/nats.js';

const HAVE = haveNats();
const SERVE_FLAGS = ['--max-delay', '0.1', '--ack-wait', '1', '--no-fsync', '--workers', '0', '--quiet'];

/** `n` distinct links over many hosts named `host<i>.<domain>`. */
function links(domain: string, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(`http://host${i % 997}.${domain}/p/${i}`);
  return out.join('\n') + '\n';
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const runDirs = (state: string): string[] => (existsSync(join(state, 'runs')) ? readdirSync(join(state, 'runs')).sort() : []);

function serve(c: NatsCluster, state: string): DrumProc {
  return spawnDrum(['serve', '--nats', c.urls, '--shard', '0', '--shards', '1', '--state', state, ...SERVE_FLAGS], tempDir());
}

/** SIGTERM once the shard serves (a signal before its handler is installed would kill it uncleanly). */
async function stop(p: DrumProc): Promise<number | null> {
  while (!/serving/.test(p.stderr()) && p.proc.exitCode === null) await sleep(50);
  p.proc.kill('SIGTERM');
  return p.exited;
}

/** Waits until the shard's record says `want` new URLs are published and confirmed. */
async function confirmedUpTo(state: string, want: number, p: DrumProc): Promise<void> {
  const until = Date.now() + 60_000;
  for (;;) {
    const next = (JSON.parse(readFileSync(join(state, 'cluster', 'shard.json'), 'utf8')) as { next: number }).next;
    if (next === want) return;
    assert.ok(next < want && Date.now() < until && p.proc.exitCode === null, `shard.json next ${next}, want ${want}: ${p.stderr()}`);
    await sleep(100);
  }
}

/** Starts a shard, publishes `file`, and kills it -9 as soon as a round's directory appears beside `keep`. */
async function killInRound(c: NatsCluster, state: string, file: string, keep: string[]): Promise<void> {
  const p = serve(c, state);
  while (!/serving/.test(p.stderr())) await sleep(20);
  const pub = drum(['publish', '--nats', c.urls, '--shards', '1', '--quiet', file]);
  const until = Date.now() + 30_000;
  while (runDirs(state).length === keep.length && p.proc.exitCode === null && Date.now() < until) await sleep(1);
  p.proc.kill('SIGKILL');
  await p.exited;
  assert.equal((await pub).status, 0);
}

describe('drum serve after a crash', { skip: HAVE ? false : INSTALL_HINT, timeout: 180_000 }, () => {
  let c!: NatsCluster;
  clusterPerSuite(1, (x) => (c = x));

  it('removes the output directory of a round a crash cut short once the restart has published its URLs', async () => {
    const dir = tempDir();
    const state = join(dir, 'shard-0');
    const crawled = join(dir, 'links.txt');
    writeFileSync(crawled, links('example.com', 60_000));
    const seeds = join(dir, 'seeds.txt');
    writeFileSync(seeds, links('example.org', 500));
    assert.equal(await stop(serve(c, state)), 0); // the state is a shard's
    // An ingest into the shard's state: its run directory is not a round's and stays.
    const ing = await drum(['ingest', '--state', state, '--json', '--quiet', seeds]);
    assert.equal(ing.status, 0, ing.stderr);
    const kept = runDirs(state);
    assert.equal(kept.length, 1);
    const one = await drum(['ingest', '--state', join(dir, 'one'), '--json', '--quiet', crawled]);
    const want = uniques(JSON.parse(one.stdout).outDir).length;

    await killInRound(c, state, crawled, kept);
    const crashed = runDirs(state).filter((d) => !kept.includes(d));
    assert.equal(crashed.length, 1, 'the kill left a round directory');

    const p = serve(c, state);
    await confirmedUpTo(state, want, p);
    assert.equal(await stop(p), 0, p.stderr());
    assert.deepEqual(runDirs(state), kept, `the crashed round's directory ${crashed[0]} is gone, the ingest's stays`);
    assert.equal(JSON.parse(readFileSync(join(state, 'cluster', 'shard.json'), 'utf8')).leftover, undefined, 'nothing left to remove');
  });
});

describe('the leftover list of a shard', () => {
  /** A library run on the state, recorded with `runOptions`, whose directory stays as a crash would leave it. */
  async function runWith(state: string, runOptions?: Record<string, string>): Promise<string> {
    const d = await Drum.open(state, { workers: 0, fsync: false });
    try {
      const it = d.checkUpdate([`http://x${Math.random()}.example/\n`], { runOptions });
      let r = await it.next();
      while (!r.done) r = await it.next();
      return r.value!.runId;
    } finally {
      await d.close();
    }
  }

  /** An empty store with its shard record, as drum serve makes it. */
  async function shardStore(shard: number, shards: number): Promise<string> {
    const state = join(tempDir(), 'shard');
    await (await Drum.open(state, { workers: 0, fsync: false })).close();
    ShardState.open(state, shard, shards, 0);
    return state;
  }

  it('lists only the last run when it is a round of this shard, and keeps the list across reopening', async () => {
    const state = await shardStore(0, 2);
    const s = ShardState.open(state, 0, 2, 0);
    await runWith(state); // a library program's run
    noteCrashedRound(s, state);
    await runWith(state, shardRunOptions(1, 2)); // another shard's
    noteCrashedRound(s, state);
    assert.equal(s.meta.leftover, undefined);
    const mine = await runWith(state, shardRunOptions(0, 2));
    noteCrashedRound(s, state);
    noteCrashedRound(s, state);
    assert.deepEqual(ShardState.open(state, 0, 2, 3).meta.leftover, [mine]);
    s.confirm(7);
    assert.deepEqual(ShardState.open(state, 0, 2, 3).meta, { version: 1, shard: 0, shards: 2, next: 7, leftover: [mine] });
    const notices: string[] = [];
    removeLeftoverRounds(s, state, (m) => notices.push(m));
    assert.equal(existsSync(join(state, 'runs', mine)), false);
    assert.equal(runDirs(state).length, 2, 'the other runs stay');
    assert.equal(ShardState.open(state, 0, 2, 3).meta.leftover, undefined);
    assert.deepEqual(notices, []);
  });

  it('keeps a directory that cannot be removed on the list, with a notice', async () => {
    const state = await shardStore(0, 1);
    const s = ShardState.open(state, 0, 1, 0);
    const mine = await runWith(state, shardRunOptions(0, 1));
    noteCrashedRound(s, state);
    renameSync(join(state, 'runs'), join(state, 'runs.moved'));
    writeFileSync(join(state, 'runs'), 'not a directory\n');
    const notices: string[] = [];
    removeLeftoverRounds(s, state, (m) => notices.push(m));
    assert.deepEqual(ShardState.open(state, 0, 1, 1).meta.leftover, [mine]);
    assert.match(notices.join('\n'), /could not remove .*ENOTDIR/);
  });

  it('refuses a shard record whose leftover list names a path, not a run', async () => {
    const state = await shardStore(0, 1);
    writeFileSync(join(state, 'cluster', 'shard.json'), JSON.stringify({ version: 1, shard: 0, shards: 1, next: 0, leftover: ['../store'] }));
    assert.throws(() => ShardState.open(state, 0, 1, 0), { code: 'DRUM_CORRUPT_FILE' });
  });
});
