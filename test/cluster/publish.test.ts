// drum publish against a real nats-server on 127.0.0.1: a link message whose
// PubAck times out while the publisher waits for more input (a crawler
// writing to its stdin; the server here stopped with SIGSTOP past the
// JetStream client's 5 s timeout) is sent again with its message id once the
// server answers, so the stream holds every link once and publish exits 0.
// --replicas over 1 on a server that is not clustered is refused at once;
// a shard or a publisher under another canonical policy than DRUM_LINKS was
// made under is refused (a host split between shards: a URL new twice).
// Skips without nats-server (fails instead when CI is set).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { bin, distRoot, drum, uniques } from '../helpers/cli.js';
import { announced, perShard, stopServing } from '../helpers/drum-new.js';
import { tempDir } from '../helpers/tmp.js';
import { clusterPerSuite, haveNats, INSTALL_HINT, spawnDrum, type DrumProc, type NatsCluster } from '../helpers/nats.js';

const HAVE = haveNats();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** n links of one host (so of one shard), numbered from `from`, as URL lines. */
const lines = (from: number, n: number): string => Array.from({ length: n }, (_, i) => `http://a.example/page/${from + i}\n`).join('');

describe('drum publish on a real nats-server', { skip: HAVE ? false : INSTALL_HINT, timeout: 60_000 }, () => {
  let c!: NatsCluster;
  clusterPerSuite(1, (x) => (c = x));

  it('refuses --replicas over 1 on a server that is not clustered at once, publish and serve alike (DRUM_BAD_OPTION)', async () => {
    const dir = tempDir();
    for (const args of [['publish', '--shards', '1', '--replicas', '3', '-'], ['serve', '--shard', '0', '--shards', '1', '--replicas', '3', '--state', join(dir, 'shard')]]) {
      const t0 = performance.now();
      let t: NodeJS.Timeout | undefined;
      const late = new Promise<null>((r) => (t = setTimeout(() => r(null), 15_000)));
      const r = await Promise.race([drum([args[0]!, '--nats', c.urls, ...args.slice(1)], { input: lines(0, 10) }), late]);
      clearTimeout(t);
      assert.ok(r !== null, `${args[0]} still waiting after 15 s`);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /DRUM_BAD_OPTION.*--replicas 3/);
      assert.ok(performance.now() - t0 < 15_000);
    }
    assert.equal(existsSync(join(dir, 'shard', 'cluster')), false, 'the refused shard bound no state');
  });

  it('sends a message again when its PubAck times out while stdin is quiet, storing every link once', async () => {
    const nc = await connect({ servers: c.urls.split(',') });
    try {
      const jsm = await jetstreamManager(nc);
      const p = spawn(process.execPath, [bin, 'publish', '--nats', c.urls, '--shards', '1', '-'], {
        cwd: tempDir(), env: { ...process.env, DRUM_DIST_DIR: distRoot, DRUM_STATE: '' }, stdio: ['pipe', 'ignore', 'pipe'],
      });
      let stderr = '';
      p.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
      const exited = new Promise<number | null>((done) => p.on('close', (code) => done(code)));
      while ((await jsm.streams.info('DRUM_LINKS').catch(() => null)) === null) await sleep(50); // publish made its streams
      const node = c.nodes[0]!.proc!;
      node.kill('SIGSTOP');
      try {
        // Over one 1 MiB read: its full 256 KiB messages go out and get no PubAck; the publisher then waits on stdin.
        p.stdin.write(lines(0, 40_000));
        await sleep(6500);
      } finally {
        node.kill('SIGCONT');
      }
      p.stdin.end(lines(40_000, 1000));
      assert.equal(await exited, 0, stderr);

      const info = await jsm.streams.info('DRUM_LINKS');
      let links = 0;
      const ids = new Set<string>();
      for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
        const m = await jsm.streams.getMessage('DRUM_LINKS', { seq });
        links += Number(m!.header.get('Drum-Count'));
        ids.add(m!.header.get('Nats-Msg-Id'));
      }
      assert.equal(links, 41_000, 'every link stored once');
      assert.equal(ids.size, info.state.messages, 'no message stored twice');
    } finally {
      await nc.close();
    }
  });
});

describe('publishers and shards under one canonical policy', { skip: HAVE ? false : INSTALL_HINT, timeout: 60_000 }, () => {
  let c!: NatsCluster;
  clusterPerSuite(1, (x) => (c = x));

  it('refuses a shard or a publisher whose policy is not the one DRUM_LINKS was made under (DRUM_POLICY_MISMATCH), so no URL is new on two shards', async () => {
    const dir = tempDir();
    const serve = (shard: number, state: string, policy: string[]): DrumProc =>
      spawnDrum(['serve', '--nats', c.urls, '--shard', String(shard), '--shards', '2', '--state', join(dir, state), '--max-delay', '0.1', '--no-fsync', '--workers', '0', '--quiet', ...policy], dir);
    const first = serve(0, 'shard-0', ['--strip-www']); // makes the streams under its policy
    while (!/serving/.test(first.stderr()) && first.proc.exitCode === null) await sleep(50);
    const other = serve(1, 'shard-1', []);
    assert.equal(await other.exited, 13, other.stderr());
    assert.match(other.stderr(), /DRUM_POLICY_MISMATCH/);
    assert.equal(existsSync(join(dir, 'shard-1', 'cluster')), false, 'the refused shard bound no state');
    // www.host and host are one host under --strip-www, but two (on either shard) for a publisher without it.
    const urls = Array.from({ length: 200 }, (_, i) => `http://${i % 2 === 0 ? 'www.' : ''}host${i % 40}.example/p${i % 100}`);
    const f = join(dir, 'links.txt');
    writeFileSync(f, urls.join('\n') + '\n');
    const wrong = await drum(['publish', '--nats', c.urls, '--shards', '2', f]);
    assert.equal(wrong.status, 13, wrong.stderr);
    assert.match(wrong.stderr, /DRUM_POLICY_MISMATCH/);
    assert.equal((await drum(['publish', '--nats', c.urls, '--shards', '2', '--strip-www', '--quiet', f])).status, 0);
    const second = serve(1, 'shard-1', ['--strip-www']);
    const r = await drum(['ingest', '--state', join(dir, 'one'), '--strip-www', '--json', '--quiet', f]);
    const want = uniques(JSON.parse(r.stdout).outDir);
    const got = [...perShard(await announced(c.urls, want.length, { serving: [first, second] })).values()].flat();
    assert.deepEqual(await Promise.all([first, second].map(stopServing)), [0, 0]);
    assert.equal(got.length, new Set(got).size, 'no URL published twice');
    assert.deepEqual(new Set(got), new Set(want));
  });
});
