// The streams and a shard's consumer against a real 3-node nats-server
// cluster on 127.0.0.1: the end of a subject of streams two shards make at
// once is read within seconds; asked for while the cluster cannot answer (two of
// its three nodes frozen, so no quorum), created once it can again (a create
// the cluster answered but lost is made again);
// a call that fails for a reason of drum's own is not tried again, and a
// stop ends the wait at once. Skips
// without nats-server (fails instead when CI is set).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { DrumError } from '../../src/errors.js';
import { NewUrlPublisher } from '../../src/cluster/new-urls.js';
import { ensureShardConsumer, ensureStreams, LINKS_STREAM, NEW_STREAM, SetUpStopped, untilAnswered } from '../../src/cluster/subjects.js';
import { clusterPerSuite, haveNats, INSTALL_HINT, type NatsCluster } from '../helpers/nats.js';

const HAVE = haveNats();

describe('JetStream set-up', { skip: HAVE ? false : INSTALL_HINT, timeout: 120_000 }, () => {
  let c!: NatsCluster;
  clusterPerSuite(3, (x) => (c = x));

  it('reads the end of its subject within seconds when two shards make the R3 streams at once', async () => {
    // One finds the streams the other has just made, before they have a leader: a request it makes then goes
    // unanswered and must be asked again soon, not after 10 s. It happens in about half the tries: four of them.
    const ncs = await Promise.all([0, 1].map(() => connect({ servers: c.urls.split(',') })));
    try {
      const jsm = await jetstreamManager(ncs[0]!);
      for (let trial = 0; trial < 4; trial++) {
        for (const s of [LINKS_STREAM, NEW_STREAM]) await jsm.streams.delete(s).catch(() => false);
        const took = await Promise.all(ncs.map(async (nc, shard) => {
          const t0 = performance.now();
          await ensureStreams(nc, 2, 3);
          await new NewUrlPublisher(nc, shard).checkEnd(0);
          return (performance.now() - t0) / 1000;
        }));
        for (const s of took) assert.ok(s < 8, `try ${trial}: streams made and the subject's end read in ${took.map((x) => x.toFixed(1)).join(' and ')} s`);
      }
    } finally {
      await Promise.all(ncs.map((nc) => nc.close()));
    }
  });

  it('creates a shard consumer only once a cluster that lost its quorum has it back', async () => {
    const n0 = c.nodes[0]!;
    const nc = await connect({ servers: [`nats://127.0.0.1:${n0.port}`] });
    try {
      const jsm = await ensureStreams(nc, 2, 3);
      c.pauseNode(c.nodes[1]!);
      c.pauseNode(c.nodes[2]!);
      const notices: string[] = [];
      const made = ensureShardConsumer(nc, jsm, 1, 5000, (m) => notices.push(m));
      await new Promise((r) => setTimeout(r, 7000)); // past the API's 5 s timeout: a call has failed
      assert.equal(await Promise.race([made.then(() => 'made'), Promise.resolve('waiting')]), 'waiting');
      c.resumeNode(c.nodes[1]!);
      c.resumeNode(c.nodes[2]!);
      const consumer = await made;
      // The check's own read is tried again too: just after the nodes come back, the cluster may answer it "temporarily unavailable".
      const info = await untilAnswered('the check of the consumer', () => consumer.info());
      assert.equal(info.config.durable_name, 'drum-shard-1');
      assert.equal(info.config.filter_subject, 'drum.links.1');
      // A call that failed while the nodes were frozen is told once (a loaded machine may see none fail: it waited in one call).
      assert.ok(notices.length <= 1, notices.join('\n'));
      for (const n of notices) assert.match(n, /did not answer for consumer drum-shard-1 .*trying again/);
    } finally {
      await nc.close();
    }
  });

  it('tries a call again until it is answered, telling the first retry only', async () => {
    let calls = 0;
    const notices: string[] = [];
    const got = await untilAnswered('a test call', async () => {
      if (++calls < 3) throw new Error('timeout');
      return 'answer';
    }, (m) => notices.push(m));
    assert.equal(got, 'answer');
    assert.equal(calls, 3);
    assert.deepEqual(notices, ['NATS JetStream did not answer a test call (timeout); trying again']);
  });

  it('gives up the wait, and the call under way, as soon as it is asked to stop', async () => {
    const stop = new AbortController();
    let calls = 0;
    const waiting = untilAnswered('a test call', () => {
      calls++;
      return calls === 1 ? Promise.reject(new Error('timeout')) : new Promise<never>(() => undefined);
    }, undefined, stop.signal);
    await new Promise((r) => setTimeout(r, 700)); // past the wait between tries: the second call hangs
    stop.abort();
    await assert.rejects(waiting, (e: unknown) => e instanceof SetUpStopped);
    assert.equal(calls, 2);
  });

  it('does not try again a call that failed for a reason of its own', async () => {
    let calls = 0;
    const bad = new DrumError('DRUM_BAD_OPTION', 'stream made for another shard count');
    await assert.rejects(untilAnswered('a test call', async () => {
      calls++;
      throw bad;
    }), (e: unknown) => e === bad);
    assert.equal(calls, 1);
  });
});
