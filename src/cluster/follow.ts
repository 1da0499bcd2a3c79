// The follower role (`drum follow`): reads drum.new.> (every shard's new
// URLs) and hands each URL to `onUrl`, in stream order. Without a durable
// name it reads from the start with an ordered (ephemeral) consumer; with one
// it keeps its position in a durable consumer and acks each message after
// handing its URLs on. Stops after `idleExitMs` without a message, or stop().
// Its set-up calls are tried again while the cluster cannot answer them
// (subjects.ts, untilAnswered). Does not dedupe: the shards publish each new
// URL once.
// REQUIRES: the DRUM_NEW stream exists (a shard or a publisher created it).

import type { NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, JetStreamApiError, jetstreamManager, type ConsumerMessages } from '@nats-io/jetstream';
import { DrumError } from '../errors.js';
import { ensureDurable, JS_STREAM_NOT_FOUND, NEW_STREAM, untilAnswered } from './subjects.js';

export interface FollowOptions {
  durable: string | null;
  /** Exit once nothing arrived for this long; null: follow until stop(). */
  idleExitMs: number | null;
  onBatch: (text: string, urls: number) => void;
  /** Told when the cluster does not answer the set-up yet (it is tried again). */
  onNotice?: (message: string) => void;
}

export class Follower {
  private messages: ConsumerMessages | null = null;
  private stopped = false;
  urls = 0;

  constructor(private readonly nc: NatsConnection) {}

  async run(o: FollowOptions): Promise<void> {
    const jsm = await untilAnswered('its first request', () => jetstreamManager(this.nc), o.onNotice);
    const exists = await untilAnswered(`for stream ${NEW_STREAM}`, () => jsm.streams.info(NEW_STREAM).then(() => true, (e: unknown) => {
      if (e instanceof JetStreamApiError && e.code === JS_STREAM_NOT_FOUND) return false;
      throw e;
    }), o.onNotice);
    if (!exists) throw new DrumError('DRUM_NOT_FOUND', `no ${NEW_STREAM} stream on this NATS cluster yet (start a shard with drum serve, or publish)`);
    const consumer = o.durable === null
      ? await untilAnswered(`for an ordered consumer of ${NEW_STREAM}`, () => jetstream(this.nc).consumers.get(NEW_STREAM), o.onNotice)
      : await ensureDurable(this.nc, jsm, NEW_STREAM, {
        durable_name: o.durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, filter_subject: 'drum.new.>',
      }, o.onNotice);
    if (this.stopped) return;
    this.messages = await consumer.consume({ max_messages: 256 });
    let idle: NodeJS.Timeout | null = null;
    const arm = (): void => {
      if (o.idleExitMs === null) return;
      if (idle !== null) clearTimeout(idle);
      idle = setTimeout(() => this.stop(), o.idleExitMs);
    };
    arm();
    try {
      for await (const m of this.messages) {
        const text = m.string();
        const n = Number(m.headers?.get('Drum-Count')) || text.split('\n').filter((x) => x !== '').length;
        this.urls += n;
        o.onBatch(text.endsWith('\n') ? text : text + '\n', n);
        if (o.durable !== null) m.ack();
        arm();
      }
    } finally {
      if (idle !== null) clearTimeout(idle);
    }
  }

  stop(): void {
    this.stopped = true;
    this.messages?.stop();
  }
}
