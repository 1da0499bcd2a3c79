// NewUrlPublisher against a real nats-server on 127.0.0.1: a shard's subject
// holds its new URLs as a gap-free prefix of ordinals in order, even when the
// stream refuses a message (here: one larger than the stream's max_msg_size,
// the one refusal a test can cause at will); a later publish of the same
// round (a restart's recovery) stores what is missing and nothing twice; a
// round the stream already holds other URLs for is refused, not skipped,
// also when its message starts with the same URL; checkEnd refuses a state
// whose next ordinal is not where the subject ends; long URLs are cut into
// messages under max_payload.
// Skips without nats-server (fails instead when CI is set).

import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream';
import { messageEnd, NewUrlPublisher } from '../../src/cluster/new-urls.js';
import { H_COUNT, H_ORDINAL, H_SHARD, NEW_BATCH_URLS, NEW_STREAM } from '../../src/cluster/subjects.js';
import { DrumError } from '../../src/errors.js';
import { haveNats, INSTALL_HINT, NatsCluster } from '../helpers/nats.js';
import { tempDir } from '../helpers/tmp.js';

const HAVE = haveNats();
const FAST = { attempts: 3, waitMs: 20 };

/** The shard's messages in stream order: [ordinal, count]. */
async function stored(nc: NatsConnection, shard: number): Promise<[number, number][]> {
  const c = await jetstream(nc).consumers.get(NEW_STREAM, { filter_subjects: `drum.new.${shard}` });
  const out: [number, number][] = [];
  for (let m = await c.next({ expires: 1000 }); m !== null; m = await c.next({ expires: 1000 })) {
    out.push([Number(m.headers!.get(H_ORDINAL)), Number(m.headers!.get(H_COUNT))]);
  }
  return out;
}

/** DRUM_NEW made anew, as ensureStreams makes it, with a message size limit when given. */
async function freshStream(nc: NatsConnection, maxMsgSize = -1): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(NEW_STREAM).catch(() => false);
  await jsm.streams.add({ name: NEW_STREAM, subjects: ['drum.new.>'], retention: RetentionPolicy.Limits, storage: StorageType.File, max_msg_size: maxMsgSize });
}

const urls = (n: number, pad: number): string[] => Array.from({ length: n }, (_, i) => `http://h${i % 7}.example/${'p'.repeat(pad)}${i}`);

describe('NewUrlPublisher on a real nats-server', { skip: HAVE ? false : INSTALL_HINT, timeout: 60_000 }, () => {
  let c: NatsCluster;
  let nc: NatsConnection;
  before(async () => {
    c = await NatsCluster.start(1, tempDir());
    nc = await connect({ servers: c.urls });
  });
  after(async () => {
    await nc.close();
    c.kill();
  });

  it('stores nothing past a message the stream refuses, and a republish of the round fills it in order', async () => {
    // Full messages of long URLs are over the limit; the short last one of the round is under it.
    await freshStream(nc, 16 * 1024);
    const round = [...urls(2 * NEW_BATCH_URLS, 40), 'http://short.example/'];
    await assert.rejects(new NewUrlPublisher(nc, 0, FAST).publish(0, round), (e) => e instanceof DrumError && e.code === 'DRUM_IO');
    assert.deepEqual(await stored(nc, 0), [], 'no later message stored past the refused one');

    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(NEW_STREAM);
    await jsm.streams.update(NEW_STREAM, { ...info.config, max_msg_size: -1 });
    await new NewUrlPublisher(nc, 0, FAST).publish(0, round); // the restart's recovery
    await new NewUrlPublisher(nc, 0, FAST).publish(0, round); // and once more: all stored already
    assert.deepEqual(await stored(nc, 0), [[0, 1000], [1000, 1000], [2000, 1]]);
  });

  it('continues a subject from its tail after a restart and refuses a gap before it', async () => {
    await freshStream(nc);
    await new NewUrlPublisher(nc, 1, FAST).publish(0, urls(1500, 0));
    await new NewUrlPublisher(nc, 1, FAST).publish(1500, urls(10, 0));
    assert.deepEqual(await stored(nc, 1), [[0, 1000], [1000, 500], [1500, 10]]);
    // Ordinals 1510..1519 never reached the stream: publishing past them would leave a hole.
    await assert.rejects(new NewUrlPublisher(nc, 1, FAST).publish(1520, urls(5, 0)), (e) => e instanceof DrumError && e.code === 'DRUM_IO');
    assert.equal((await stored(nc, 1)).length, 3);
  });

  it('refuses a round whose ordinals the stream holds from other URLs (a state older than the stream), storing nothing', async () => {
    await freshStream(nc);
    await new NewUrlPublisher(nc, 2, FAST).publish(0, urls(1500, 0));
    const other = urls(800, 3); // the same ordinals, other URLs: what a state restored from a backup would send
    await assert.rejects(new NewUrlPublisher(nc, 2, FAST).publish(0, other), (e) => e instanceof DrumError && e.code === 'DRUM_IO');
    assert.deepEqual(await stored(nc, 2), [[0, 1000], [1000, 500]]);
  });

  it('refuses a round whose last stored message starts with the same URL but holds others, storing nothing', async () => {
    await freshStream(nc);
    const h = headers();
    h.set(H_SHARD, '6');
    h.set(H_ORDINAL, '0');
    h.set(H_COUNT, '2');
    // What another state published at ordinals 0 and 1 (a lost state directory, started again on the same links).
    await jetstream(nc).publish('drum.new.6', 'http://a.example/\nhttp://z.example/\n', { headers: h, msgID: 'drum.new.6.0' });
    await assert.rejects(new NewUrlPublisher(nc, 6, FAST).publish(0, ['http://a.example/', 'http://y.example/']), (e) => e instanceof DrumError && e.code === 'DRUM_IO');
    assert.deepEqual(await stored(nc, 6), [[0, 2]]);
  });

  it('checkEnd takes the ordinal where the subject ends, or any on an empty subject, and refuses every other', async () => {
    await freshStream(nc);
    await new NewUrlPublisher(nc, 7, FAST).checkEnd(5);
    await new NewUrlPublisher(nc, 7, FAST).publish(0, urls(10, 0));
    await new NewUrlPublisher(nc, 7, FAST).checkEnd(10);
    for (const next of [0, 9, 11]) {
      await assert.rejects(new NewUrlPublisher(nc, 7, FAST).checkEnd(next), (e) => e instanceof DrumError && e.code === 'DRUM_IO', `next ${next}`);
    }
  });

  it('cuts a round of long URLs into messages under 256 KiB, so none is over max_payload', async () => {
    await freshStream(nc);
    const long = urls(1000, 1500); // 1.5 MB in 1,000 URLs
    await new NewUrlPublisher(nc, 3, FAST).publish(0, long);
    const got = await stored(nc, 3);
    assert.equal(got.reduce((n, [, c]) => n + c, 0), 1000);
    assert.ok(got.length >= 6, `${got.length} messages`);
    for (let i = 1; i < got.length; i++) assert.equal(got[i]![0], got[i - 1]![0] + got[i - 1]![1], 'gap-free ordinals');
    const starts: number[] = [];
    for (let at = 0; at < long.length; at = messageEnd(long, at)) starts.push(at);
    assert.deepEqual(got.map(([o]) => o), starts);
  });

  it('goes on after a message of the same round that an older drum cut at 1,000 URLs, past 256 KiB', async () => {
    await freshStream(nc);
    const round = urls(1500, 400); // ~420 bytes each: a 1,000-URL message is ~420 KB
    const h = headers();
    h.set(H_SHARD, '5');
    h.set(H_ORDINAL, '0');
    h.set(H_COUNT, '1000');
    await jetstream(nc).publish('drum.new.5', round.slice(0, 1000).join('\n') + '\n', { headers: h, msgID: 'drum.new.5.0' });
    await new NewUrlPublisher(nc, 5, FAST).publish(0, round); // a restart's recovery with the new cut
    const got = await stored(nc, 5);
    assert.deepEqual(got[0], [0, 1000]);
    assert.equal(got.reduce((n, [, c]) => n + c, 0), 1500);
    for (let i = 1; i < got.length; i++) assert.equal(got[i]![0], got[i - 1]![0] + got[i - 1]![1], 'gap-free ordinals');
  });
});
