// drum serve under load, against a real nats-server on 127.0.0.1: a
// backlog the shard finds at its start (a publisher faster than the shard,
// a shard restarted after a while down) is answered in rounds of at most
// --round-links links and one fetch more, not in one round of whatever
// the stream delivered while the first round ran; every URL is still
// announced once, in arrival order. Skips without nats-server (fails
// instead when CI is set).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { drum } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';
import { clusterPerSuite, haveNats, INSTALL_HINT, spawnDrum, type DrumProc, type NatsCluster } from '../helpers/nats.js';
import { announced, perShard, stopServing } from '../helpers/drum-new.js';

const HAVE = haveNats();
/** Not --quiet: the tests read the shard's round lines. The default ack wait: a round slowed by a loaded machine is not redelivered. */
const SERVE_FLAGS = ['--no-fsync', '--workers', '0'];
/** About what one fetch of a shard's links asks for (src/cluster/link-pull.ts). */
const FETCH_BYTES = 2 << 20;

function serve(c: NatsCluster, state: string, extra: string[]): DrumProc {
  return spawnDrum(['serve', '--nats', c.urls, '--shard', '0', '--shards', '1', '--state', state, ...SERVE_FLAGS, ...extra], tempDir());
}

/** The link count of each round the shard reported, in order. */
function roundSizes(p: DrumProc): number[] {
  return [...p.stderr().matchAll(/round of (\d+) links/g)].map((m) => Number(m[1]));
}

describe('drum serve under load', { skip: HAVE ? false : INSTALL_HINT, timeout: 120_000 }, () => {
  let c!: NatsCluster;
  clusterPerSuite(1, (x) => (c = x));

  it('answers a backlog in rounds of at most --round-links links and one fetch more', async () => {
    const dir = tempDir();
    const f = join(dir, 'links.txt');
    const want = Array.from({ length: 150_000 }, (_, i) => `http://host${i % 89}.example.com/p/${i}`);
    writeFileSync(f, want.map((u) => `${u}\n`).join(''));
    assert.equal((await drum(['publish', '--nats', c.urls, '--shards', '1', '--quiet', f])).status, 0);
    // Published before the shard starts: the stream can hand it the whole backlog at once.
    const shard = serve(c, join(dir, 'shard-0'), ['--round-links', '1000', '--max-delay', '5']);
    const died = shard.exited.then((code) => assert.fail(`serve exited with ${String(code)} before announcing every URL: ${shard.stderr()}`));
    const msgs = await Promise.race([announced(c.urls, want.length), died]);
    assert.equal(await stopServing(shard), 0, shard.stderr());
    assert.deepEqual(perShard(msgs).get(0), want);
    const rounds = roundSizes(shard);
    const oneFetch = Math.ceil(FETCH_BYTES / `http://host0.example.com/p/0\n`.length);
    assert.equal(rounds.reduce((a, b) => a + b, 0), want.length);
    assert.ok(Math.max(...rounds) <= 1000 + oneFetch, `rounds of ${rounds.join(', ')} links`);
  });
});
