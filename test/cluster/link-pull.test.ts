// LinkPull against a real 3-node nats-server cluster on 127.0.0.1 with R3
// streams: while two nodes are frozen (no quorum, the consumer has no leader)
// its fetches fail and it says so once they have failed for a while; when
// the nodes are back a link published meanwhile arrives, and it says the
// fetches work again; a stop during a fetch still hands on the messages
// the server sent for it; a message without Drum-Count counts its lines. The
// cluster test skips without nats-server (fails instead when CI is set).

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { jetstream, type JsMsg } from '@nats-io/jetstream';
import { LinkPull, linkCount } from '../../src/cluster/link-pull.js';
import { ensureShardConsumer, ensureStreams, linksSubject, untilAnswered } from '../../src/cluster/subjects.js';
import { clusterPerSuite, haveNats, INSTALL_HINT, type NatsCluster } from '../helpers/nats.js';

const HAVE = haveNats();

async function until(what: string, ok: () => boolean, timeoutMs: number): Promise<void> {
  for (const end = Date.now() + timeoutMs; !ok(); ) {
    if (Date.now() > end) assert.fail(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('LinkPull', { skip: HAVE ? false : INSTALL_HINT, timeout: 120_000 }, () => {
  let c!: NatsCluster;
  clusterPerSuite(3, (x) => (c = x));

  it('says when its fetches have failed for a while, and when they work again', async () => {
    // Connected to the node that stays up: the fetches fail (no consumer leader), the connection does not.
    const nc = await connect({ servers: [`nats://127.0.0.1:${c.nodes[0]!.port}`] });
    try {
      const jsm = await ensureStreams(nc, 1, 3);
      const consumer = await ensureShardConsumer(nc, jsm, 0, 5000);
      const notices: string[] = [];
      const got: JsMsg[] = [];
      const pull = new LinkPull(nc, consumer, { roundLinks: 1000, onArrive: (m) => got.push(m), onNotice: (m) => notices.push(m), noticeAfterMs: 1000 });
      const running = pull.run();
      c.pauseNode(c.nodes[1]!);
      c.pauseNode(c.nodes[2]!);
      await until('a notice of failing fetches', () => notices.length > 0, 60_000);
      assert.match(notices[0]!, /^no links fetched for \d+ s: .+; still trying$/);
      c.resumeNode(c.nodes[1]!);
      c.resumeNode(c.nodes[2]!);
      // The stream takes the link once it has its quorum back.
      await untilAnswered('a test publish', () => jetstream(nc).publish(linksSubject(0), 'http://example.com/\n'));
      await until('the link published once the nodes are back', () => got.length > 0, 60_000);
      pull.stop();
      await running;
      assert.equal(notices.length, 2, notices.join('\n'));
      assert.match(notices[1]!, /^fetching links again after \d+ s$/);
      for (const m of got) m.ack();
    } finally {
      await nc.close();
    }
  });
});

describe('LinkPull stopped during a fetch', { skip: HAVE ? false : INSTALL_HINT, timeout: 60_000 }, () => {
  let c!: NatsCluster;
  clusterPerSuite(1, (x) => (c = x));

  it('hands on every message of the fetch under way, so none it was sent waits out the ack wait', async () => {
    const nc = await connect({ servers: c.urls.split(',') });
    try {
      const jsm = await ensureStreams(nc, 1, 1);
      // Messages near the server's 1 MiB limit: a fetch's second one is still on its way when the first is handed on.
      const js = jetstream(nc);
      for (let i = 0; i < 4; i++) {
        const text = Array.from({ length: 20_000 }, (_, k) => `http://big${i}.example.com/page/${k}\n`).join('');
        await js.publish(linksSubject(0), text);
      }
      const consumer = await ensureShardConsumer(nc, jsm, 0, 30_000);
      let got = 0;
      const pull: LinkPull = new LinkPull(nc, consumer, {
        roundLinks: 1e9,
        onArrive: () => {
          if (++got === 1) pull.stop(); // a stop (SIGTERM) as the fetch's first message arrives
        },
      });
      await pull.run();
      const info = await consumer.info();
      assert.ok(got > 1, 'the rest of the fetch arrived');
      assert.equal(info.num_ack_pending, got, 'every message the server handed out reached the shard');
      assert.equal(pull.messages, got);
    } finally {
      await nc.close();
    }
  });
});

describe('linkCount', () => {
  const msg = (text: string, count?: string): JsMsg => ({ data: Buffer.from(text), headers: count === undefined ? undefined : { get: () => count } }) as unknown as JsMsg;

  it('counts the lines of a message that has no Drum-Count, with or without a last newline', () => {
    assert.equal(linkCount(msg('http://a.example/\nhttp://b.example/\n')), 2);
    assert.equal(linkCount(msg('http://a.example/\nhttp://b.example/')), 2);
    assert.equal(linkCount(msg('http://a.example/\n')), 1);
  });

  it('takes Drum-Count when the message has it', () => {
    assert.equal(linkCount(msg('http://a.example/\n', '7')), 7);
  });
});
