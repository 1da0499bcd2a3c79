// drum serve under load, against a real nats-server on 127.0.0.1: a
// backlog the shard finds at its start (a publisher faster than the shard,
// a shard restarted after a while down) is answered in rounds of at most
// --round-links links and one fetch more, not in one round of whatever
// the stream delivered while the first round ran; a round of several merges
// announces each merge's new URLs as it commits, so its outbox holds one
// merge's, never the whole round's; a backlog of one-link messages (any
// client may publish links) is answered at full speed; every URL is still
// announced once, in arrival order. Skips without nats-server (fails instead when CI is set).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { ensureStreams } from '../../src/cluster/subjects.js';
import { drum } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { clusterPerSuite, haveNats, INSTALL_HINT, spawnDrum, type DrumProc, type NatsCluster } from '../helpers/nats.js';
import { announced, perShard, stopServing } from '../helpers/drum-new.js';

const HAVE = haveNats();
/** Not --quiet: the tests read the shard's round lines. The default ack wait: a round slowed by a loaded machine is not redelivered. */
const SERVE_FLAGS = ['--no-fsync', '--workers', '0'];
/** About what one fetch of a shard's links asks for (src/cluster/link-pull.ts). */
const FETCH_BYTES = 2 << 20;
/** The text a store's merge round takes at a time (the engine's default chunkBytes): a merge starts after the chunk that reaches --merge-every. */
const CHUNK_BYTES = 1 << 20;

function serve(c: NatsCluster, state: string, extra: string[]): DrumProc {
  return spawnDrum(['serve', '--nats', c.urls, '--shard', '0', '--shards', '1', '--state', state, ...SERVE_FLAGS, ...extra], tempDir());
}

/** The link count of each round the shard reported, in order. */
function roundSizes(p: DrumProc): number[] {
  return [...p.stderr().matchAll(/round of (\d+) links/g)].map((m) => Number(m[1]));
}

/** The URL count in the header of the shard's outbox; null when there is none. */
function outboxCount(state: string): number | null {
  let fd: number;
  try {
    fd = openSync(join(state, 'cluster', 'outbox.txt'), 'r');
  } catch {
    return null;
  }
  try {
    const head = Buffer.alloc(64);
    const n = readSync(fd, head, 0, head.length, 0);
    const m = /^#drum-outbox \d+ (\d+)\n/.exec(head.subarray(0, n).toString('latin1'));
    return m === null ? null : Number(m[1]);
  } finally {
    closeSync(fd);
  }
}

/** Backlog links, all new: `n` distinct URLs over 89 hosts, one shard. */
async function publishBacklog(c: NatsCluster, n: number): Promise<string[]> {
  const f = join(tempDir(), 'links.txt');
  const want = Array.from({ length: n }, (_, i) => `http://host${i % 89}.example.com/p/${i}`);
  writeFileSync(f, want.map((u) => `${u}\n`).join(''));
  assert.equal((await drum(['publish', '--nats', c.urls, '--shards', '1', '--quiet', f])).status, 0);
  return want;
}

describe('drum serve under load', { skip: HAVE ? false : INSTALL_HINT, timeout: 120_000 }, () => {
  describe('a backlog', () => {
    let c!: NatsCluster;
    clusterPerSuite(1, (x) => (c = x));

    it('answers a backlog in rounds of at most --round-links links and one fetch more', async () => {
      // Published before the shard starts: the stream can hand it the whole backlog at once.
      const want = await publishBacklog(c, 150_000);
      const shard = serve(c, join(tempDir(), 'shard-0'), ['--round-links', '1000', '--max-delay', '5']);
      const msgs = await announced(c.urls, want.length, { serving: [shard] });
      assert.equal(await stopServing(shard), 0, shard.stderr());
      assert.deepEqual(perShard(msgs).get(0), want);
      const rounds = roundSizes(shard);
      const oneFetch = Math.ceil(FETCH_BYTES / `http://host0.example.com/p/0\n`.length);
      assert.equal(rounds.reduce((a, b) => a + b, 0), want.length);
      assert.ok(Math.max(...rounds) <= 1000 + oneFetch, `rounds of ${rounds.join(', ')} links`);
    });
  });

  describe('a round of several merges', () => {
    let c!: NatsCluster;
    clusterPerSuite(1, (x) => (c = x));

    it('announces each merge of a round as it commits, so the outbox holds the new URLs of one merge, not of the round', async () => {
      const want = await publishBacklog(c, 120_000);
      const state = join(tempDir(), 'shard-0');
      // One round of 120,000 new URLs (the whole backlog arrives within --max-delay), a merge every 5,000.
      const shard = serve(c, state, ['--round-links', '200000', '--max-delay', '2', '--merge-every', '5000']);
      const seen: number[] = [];
      const watch = setInterval(() => {
        const n = outboxCount(state);
        if (n !== null) seen.push(n);
      }, 2);
      try {
        const msgs = await announced(c.urls, want.length, { serving: [shard] });
        assert.deepEqual(perShard(msgs).get(0), want);
      } finally {
        clearInterval(watch);
      }
      assert.equal(await stopServing(shard), 0, shard.stderr());
      assert.equal(roundSizes(shard)[0], want.length, 'the backlog makes one round');
      const oneChunk = Math.ceil(CHUNK_BYTES / `http://host0.example.com/p/0\n`.length);
      assert.ok(seen.length > 0, 'an outbox was seen');
      assert.ok(Math.max(...seen) <= 5000 + oneChunk, `outboxes of ${[...new Set(seen)].join(', ')} URLs`);
    });
  });

  describe('one-link messages', () => {
    let c!: NatsCluster;
    clusterPerSuite(1, (x) => (c = x));

    it('answers a backlog of 10,000 messages of one link each in seconds', async () => {
      const want = Array.from({ length: 10_000 }, (_, i) => `http://host${i % 89}.example.com/one/${i}`);
      const nc = await connect({ servers: c.urls.split(',') });
      try {
        await ensureStreams(nc, 1, 1);
        const js = jetstream(nc);
        for (let i = 0; i < want.length; i += 250) await Promise.all(want.slice(i, i + 250).map((u) => js.publish('drum.links.0', `${u}\n`)));
      } finally {
        await nc.close();
      }
      const shard = serve(c, join(tempDir(), 'shard-0'), ['--max-delay', '0.5']);
      // A fetch that waits out missed heartbeats after every 100 messages would take minutes.
      const msgs = await announced(c.urls, want.length, { timeoutMs: 15_000, serving: [shard] });
      assert.equal(await stopServing(shard), 0, shard.stderr());
      assert.deepEqual(perShard(msgs).get(0), want);
    });
  });
});
