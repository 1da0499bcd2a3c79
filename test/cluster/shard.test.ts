// drum publish / serve / follow against real nats-server processes on
// 127.0.0.1: every published link is answered exactly once across the
// shards (the same new URLs as one `drum ingest`, per shard in arrival
// order), a restarted shard resumes from its state, a state refuses another
// shard, a new state refused for a shard count the streams were not made for
// stays unbound, a new state refuses a shard whose subject holds URLs (its state
// lost) before it answers a link, a shard asked for other buckets, host
// bits or policy than its store has is refused before it takes a link,
// and kill -9 of a shard (10 times) or of one node of a 3-node R3 cluster
// loses nothing and publishes nothing twice. Skips without nats-server (fails instead when CI is set).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { drum, uniques } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { EXIT_STATUS } from '../../src/errors.js';
import { clusterPerSuite, haveNats, INSTALL_HINT, NatsCluster, spawnDrum, type DrumProc } from '../helpers/nats.js';
import { announced, perShard, stopServing as stop } from '../helpers/drum-new.js';
import { stateFiles } from '../helpers/state-files.js';

const HAVE = haveNats();
const SERVE_FLAGS = ['--max-delay', '0.1', '--ack-wait', '1', '--no-fsync', '--workers', '0'];

/** Deterministic links: hosts of many sizes, repeats, spelling variants, a few rejects. */
function links(seed: number, n: number): string {
  let x = seed >>> 0;
  const rnd = (m: number): number => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % m;
  };
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    const h = rnd(rnd(2) === 0 ? 20 : 400);
    const p = rnd(1500);
    if (rnd(500) === 0) out.push('mailto:someone@example.com');
    else if (rnd(7) === 0) out.push(`HTTP://Host${h}.Example.com:80/p/${p}#frag`);
    else out.push(`http://host${h}.example.com/p/${p}`);
  }
  return out.join('\n') + '\n';
}


/** The single-process answer: `drum ingest` of the same files in the same order. */
async function ingestOf(files: string[]): Promise<string[]> {
  const out: string[] = [];
  const state = join(tempDir(), 'ingest');
  for (const f of files) {
    const r = await drum(['ingest', '--state', state, '--json', '--quiet', '--force', f]);
    assert.equal(r.status, 0, r.stderr);
    out.push(...uniques(JSON.parse(r.stdout).outDir));
  }
  return out;
}

function serve(c: NatsCluster, shard: number, shards: number, state: string, extra: string[] = [], quiet = true): DrumProc {
  const flags = quiet ? [...SERVE_FLAGS, '--quiet'] : SERVE_FLAGS;
  return spawnDrum(['serve', '--nats', c.urls, '--shard', String(shard), '--shards', String(shards), '--state', state, ...flags, ...extra], tempDir());
}

describe('drum on NATS JetStream', { skip: HAVE ? false : INSTALL_HINT, timeout: 180_000 }, () => {
  describe('a SURT policy', () => {
    let c!: NatsCluster;
    clusterPerSuite(1, (x) => (c = x));

    it('publishes canonical URLs that shards keyed by SURT answer as one ingest --profile ia does', async () => {
      const dir = tempDir();
      const f = join(dir, 'links.txt');
      writeFileSync(f, `${links(11, 3000)}http://www.Example.com/a?b=2&a=1\nhttp://example.com/a?a=1&b=2\n`);
      const states = [0, 1].map((i) => join(dir, `shard-${i}`));
      const shards = states.map((s, i) => serve(c, i, 2, s, ['--profile', 'ia']));
      const p = await drum(['publish', '--nats', c.urls, '--shards', '2', '--profile', 'ia', '--json', f]);
      assert.equal(p.status, 0, p.stderr);
      const r = await drum(['ingest', '--state', join(dir, 'one'), '--profile', 'ia', '--json', '--quiet', f]);
      assert.equal(r.status, 0, r.stderr);
      const want = uniques(JSON.parse(r.stdout).outDir);
      const msgs = await announced(c.urls, want.length, { serving: shards });
      assert.deepEqual(await Promise.all(shards.map(stop)), [0, 0]);
      assert.ok(want.includes('com,example)/a?a=1&b=2'), 'SURT keys, www folded');
      const all = [...perShard(msgs).values()].flat();
      assert.equal(all.length, new Set(all).size, 'no key published twice');
      assert.deepEqual(new Set(all), new Set(want));
    });
  });

  describe('one node', () => {
    let c!: NatsCluster;
    clusterPerSuite(1, (x) => (c = x));

    // First, while no shard's subject holds URLs: a new state is refused for a subject that does (below).
    it('refuses to serve a state directory made for another shard', async () => {
      const state = join(tempDir(), 'shard');
      const a = serve(c, 0, 3, state);
      assert.equal(await stop(a), 0, a.stderr());
      const b = serve(c, 1, 3, state);
      assert.equal(await b.exited, 2);
      assert.match(b.stderr(), /DRUM_BAD_OPTION/);
    });

    it('leaves a new state directory unbound when it refuses a shard count the streams were not made for', async () => {
      // The streams exist for 3 shards (the test above made them).
      const state = join(tempDir(), 'shard');
      const wrong = serve(c, 0, 2, state);
      assert.equal(await wrong.exited, 2, wrong.stderr());
      assert.match(wrong.stderr(), /DRUM_BAD_OPTION.*another shard count/);
      assert.equal(existsSync(join(state, 'cluster', 'shard.json')), false, 'nothing recorded for the refused count');
      const right = serve(c, 2, 3, state);
      assert.equal(await stop(right), 0, right.stderr());
      assert.match(right.stderr(), /shard 2 of 3 serving/);
    });

    it('answers every published link exactly once: the new URLs of one ingest, per shard in arrival order; a restarted shard resumes', async () => {
      const dir = tempDir();
      const files = [0, 1, 2].map((i) => {
        const f = join(dir, `links-${i}.txt`);
        writeFileSync(f, links(7 + i, 8000));
        return f;
      });
      const states = [0, 1, 2].map((i) => join(dir, `shard-${i}`));
      let shards = states.map((s, i) => serve(c, i, 3, s));
      for (const f of files.slice(0, 2)) assert.equal((await drum(['publish', '--nats', c.urls, '--shards', '3', '--quiet', f])).status, 0);
      await announced(c.urls, (await ingestOf(files.slice(0, 2))).length, { serving: shards });
      assert.deepEqual(await Promise.all(shards.map(stop)), [0, 0, 0]);
      // Restarted from their states: the third file repeats many earlier URLs, which must not come out again.
      shards = states.map((s, i) => serve(c, i, 3, s));
      const p = await drum(['publish', '--nats', c.urls, '--shards', '3', '--json', files[2]!]);
      assert.equal(p.status, 0, p.stderr);
      const want = await ingestOf(files);
      const msgs = await announced(c.urls, want.length, { serving: shards });
      assert.deepEqual(await Promise.all(shards.map(stop)), [0, 0, 0]);
      const got = perShard(msgs);
      const all = [...got.values()].flat();
      assert.equal(all.length, new Set(all).size, 'no URL published twice');
      assert.deepEqual(new Set(all), new Set(want));
      const hostShard = new Map<string, number>();
      for (const [s, urls] of got) {
        const mine = new Set(urls);
        assert.deepEqual(urls, want.filter((u) => mine.has(u)), `shard ${s} publishes in arrival order`);
        for (const u of urls) {
          const h = new URL(u).host;
          assert.equal(hostShard.get(h) ?? s, s, `host ${h} on one shard`);
          hostShard.set(h, s);
        }
      }
      const f = await drum(['follow', '--nats', c.urls, '--idle-exit', '1']);
      assert.equal(f.status, 0, f.stderr);
      assert.deepEqual(new Set(f.stdout.split('\n').filter((u) => u !== '')), new Set(want));
      const v = await drum(['verify', '--state', states[0]!]);
      assert.equal(v.status, 0, v.stdout + v.stderr);
      // Every round is confirmed: none leaves its run directory behind.
      for (const s of states) assert.deepEqual(existsSync(join(s, 'runs')) ? readdirSync(join(s, 'runs')) : [], [], s);
    });

  });

  describe('a shard whose state directory is lost', () => {
    let c!: NatsCluster;
    clusterPerSuite(1, (x) => (c = x));

    it('refuses to serve on a new state directory while its subject holds URLs, before it stores or acks a link', async () => {
      const dir = tempDir();
      const files = [join(dir, 'a.txt'), join(dir, 'b.txt')];
      files.forEach((f, i) => writeFileSync(f, links(71 + i, 400)));
      const first = join(dir, 'shard-0');
      assert.equal((await drum(['publish', '--nats', c.urls, '--shards', '1', '--quiet', files[0]!])).status, 0);
      const a = serve(c, 0, 1, first);
      await announced(c.urls, (await ingestOf(files.slice(0, 1))).length, { serving: [a] });
      assert.equal(await stop(a), 0, a.stderr());
      assert.equal((await drum(['publish', '--nats', c.urls, '--shards', '1', '--quiet', files[1]!])).status, 0);
      const lost = join(dir, 'shard-0-new');
      const b = serve(c, 0, 1, lost);
      assert.equal(await b.exited, 12, b.stderr());
      assert.match(b.stderr(), /DRUM_IO.*disagree/);
      const st = await drum(['stats', '--state', lost, '--json']);
      assert.equal(st.status, 0, st.stderr);
      assert.equal(JSON.parse(st.stdout).storeUrls, 0, 'the new state stored nothing');
      // The links it refused wait for the shard's own state, which answers them once.
      const again = serve(c, 0, 1, first);
      const want = await ingestOf(files);
      const msgs = await announced(c.urls, want.length, { serving: [again] });
      assert.equal(await stop(again), 0, again.stderr());
      assert.deepEqual(perShard(msgs).get(0), want);
    });
  });

  describe('a shard asked for other store parameters than it was created with', () => {
    let c!: NatsCluster;
    clusterPerSuite(1, (x) => (c = x));

    it('refuses --buckets, --host-bits or a policy other than its store has (DRUM_POLICY_MISMATCH) before it takes a link, changing nothing', async () => {
      const dir = tempDir();
      const files = [join(dir, 'a.txt'), join(dir, 'b.txt')];
      files.forEach((f, i) => writeFileSync(f, links(91 + i, 400)));
      const state = join(dir, 'shard-0');
      const made = ['--buckets', '16', '--host-bits', '20'];
      assert.equal((await drum(['publish', '--nats', c.urls, '--shards', '1', '--quiet', files[0]!])).status, 0);
      const a = serve(c, 0, 1, state, made);
      await announced(c.urls, (await ingestOf(files.slice(0, 1))).length, { serving: [a] });
      assert.equal(await stop(a), 0, a.stderr());
      assert.equal((await drum(['publish', '--nats', c.urls, '--shards', '1', '--quiet', files[1]!])).status, 0);
      const before = stateFiles(state);
      for (const flags of [['--host-bits', '16'], ['--buckets', '64'], ['--host-bits', '16', '--force-policy'], ['--buckets', '16', '--strip-www']]) {
        const b = serve(c, 0, 1, state, flags);
        // A shard that opened its store anyway would serve until stopped: it is stopped, and fails the test.
        const t = setTimeout(() => b.proc.kill('SIGTERM'), 20_000);
        const code = await b.exited;
        clearTimeout(t);
        assert.equal(code, EXIT_STATUS.DRUM_POLICY_MISMATCH, `${flags.join(' ')}: ${b.stderr()}`);
        assert.match(b.stderr(), /^drum: DRUM_POLICY_MISMATCH: /m);
      }
      assert.deepEqual(stateFiles(state), before, 'nothing written');
      // Its own parameters, given or left out, serve: the links the refused starts left in the stream are answered once.
      const again = serve(c, 0, 1, state, ['--host-bits', '20']);
      const want = await ingestOf(files);
      const msgs = await announced(c.urls, want.length, { serving: [again] });
      assert.equal(await stop(again), 0, again.stderr());
      assert.deepEqual(perShard(msgs).get(0), want);
      const st = JSON.parse((await drum(['stats', '--state', state, '--json'])).stdout) as { buckets: number; hostBits: number };
      assert.deepEqual([st.buckets, st.hostBits], [16, 20]);
    });
  });

  describe('a round of many new URLs', () => {
    let c!: NatsCluster;
    clusterPerSuite(1, (x) => (c = x));

    it('announces a round of 200,000 new URLs, more than one function call takes as arguments, and stops cleanly', async () => {
      const dir = tempDir();
      const f = join(dir, 'links.txt');
      const want = Array.from({ length: 200_000 }, (_, i) => `http://host${i % 97}.example.com/p/${i}`);
      writeFileSync(f, want.map((u) => `${u}\n`).join(''));
      assert.equal((await drum(['publish', '--nats', c.urls, '--shards', '1', '--quiet', f])).status, 0);
      // Published before the shard starts: its first round takes the whole backlog.
      const shard = serve(c, 0, 1, join(dir, 'shard-0'), ['--max-delay', '5']);
      const msgs = await announced(c.urls, want.length, { serving: [shard] });
      assert.equal(await stop(shard), 0, shard.stderr());
      assert.deepEqual(perShard(msgs).get(0), want);
    });
  });

  describe('a 3-node cluster with R3 streams', () => {
    let c!: NatsCluster;
    clusterPerSuite(3, (x) => (c = x));

    it('loses nothing and publishes nothing twice when a shard is killed -9 ten times and one NATS node dies', async () => {
      const dir = tempDir();
      const files = Array.from({ length: 10 }, (_, i) => {
        const f = join(dir, `links-${i}.txt`);
        writeFileSync(f, links(100 + i, 6000));
        return f;
      });
      const states = [join(dir, 'shard-0'), join(dir, 'shard-1')];
      // Not --quiet: its round lines are in a failure's message.
      const steady = serve(c, 1, 2, states[1]!, ['--replicas', '3'], false);
      let victim = serve(c, 0, 2, states[0]!, ['--replicas', '3']);
      let seed = 12345;
      const rnd = (m: number): number => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % m;
      for (let k = 0; k < 10; k++) {
        const pub = drum(['publish', '--nats', c.urls, '--shards', '2', '--replicas', '3', '--quiet', files[k]!]);
        if (k === 5) c.killNode(c.nodes[2]!); // the streams keep a quorum of two
        await new Promise((r) => setTimeout(r, 300 + rnd(1200)));
        victim.proc.kill('SIGKILL');
        await victim.exited;
        victim = serve(c, 0, 2, states[0]!, ['--replicas', '3']);
        const pr = await pub;
        assert.equal(pr.status, 0, pr.stderr);
      }
      const urls = c.nodes.slice(0, 2).map((n) => `nats://127.0.0.1:${n.port}`).join(',');
      const want = await ingestOf(files);
      const msgs = await announced(urls, want.length, { timeoutMs: 90_000, serving: [steady, victim] });
      assert.equal(await stop(victim), 0, victim.stderr());
      assert.equal(await stop(steady), 0, steady.stderr());
      const got = [...perShard(msgs).values()].flat(); // ordinals contiguous: nothing republished, nothing skipped
      assert.equal(got.length, new Set(got).size, 'no URL published twice');
      assert.deepEqual(new Set(got), new Set(want));
    });
  });
});
