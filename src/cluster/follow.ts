// The follower role (`drum follow`): reads drum.new.> (every shard's new
// URLs) and hands each URL to `onUrl`, in stream order. Without a durable
// name it reads from the start with an ordered (ephemeral) consumer; with one
// it keeps its position in a durable consumer and acks each message once
// `onBatch` has printed its URLs (a print that fails acks nothing). Stops after `idleExitMs` without a message, or stop().
// Its set-up calls are tried again while the cluster cannot answer them
// (subjects.ts, untilAnswered), and given up at stop(). Does not dedupe: the shards publish each new
// URL once.
// REQUIRES: the DRUM_NEW stream exists (a shard or a publisher created it).

import type { NatsConnection } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, JetStreamApiError, jetstreamManager, type Consumer, type ConsumerMessages } from '@nats-io/jetstream';
import { DrumError } from '../errors.js';
import { ensureDurable, JS_STREAM_NOT_FOUND, NEW_STREAM, SetUpStopped, untilAnswered } from './subjects.js';

export interface FollowOptions {
  durable: string | null;
  /** Exit once nothing arrived for this long; null: follow until stop(). */
  idleExitMs: number | null;
  /** Prints a message's URLs; a durable follower acks the message once this resolves, not when it rejects. */
  onBatch: (text: string, urls: number) => void | Promise<void>;
  /** Told when the cluster does not answer the set-up yet (it is tried again). */
  onNotice?: (message: string) => void;
}

export class Follower {
  private messages: ConsumerMessages | null = null;
  private stopped = false;
  /** Fires at stop(): the set-up gives up waiting for the cluster. */
  private readonly halt = new AbortController();
  urls = 0;

  constructor(private readonly nc: NatsConnection) {}

  async run(o: FollowOptions): Promise<void> {
    let consumer: Consumer;
    try {
      consumer = await this.consumerOf(o);
    } catch (e) {
      if (e instanceof SetUpStopped) return; // stop() while the cluster did not answer
      throw e;
    }
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
        await o.onBatch(text.endsWith('\n') ? text : text + '\n', n);
        if (o.durable !== null) m.ack();
        arm();
      }
    } finally {
      if (idle !== null) clearTimeout(idle);
    }
  }

  /** The consumer to read DRUM_NEW with (ordered, or the durable one), once the cluster answers; DRUM_NOT_FOUND without DRUM_NEW. */
  private async consumerOf(o: FollowOptions): Promise<Consumer> {
    const halt = this.halt.signal;
    const jsm = await untilAnswered('its first request', () => jetstreamManager(this.nc), o.onNotice, halt);
    const exists = await untilAnswered(`for stream ${NEW_STREAM}`, () => jsm.streams.info(NEW_STREAM).then(() => true, (e: unknown) => {
      if (e instanceof JetStreamApiError && e.code === JS_STREAM_NOT_FOUND) return false;
      throw e;
    }), o.onNotice, halt);
    if (!exists) throw new DrumError('DRUM_NOT_FOUND', `no ${NEW_STREAM} stream on this NATS cluster yet (start a shard with drum serve, or publish)`);
    return o.durable === null
      ? untilAnswered(`for an ordered consumer of ${NEW_STREAM}`, () => jetstream(this.nc).consumers.get(NEW_STREAM), o.onNotice, halt)
      : ensureDurable(this.nc, jsm, NEW_STREAM, {
        durable_name: o.durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, filter_subject: 'drum.new.>',
      }, o.onNotice, halt);
  }

  stop(): void {
    this.stopped = true;
    this.halt.abort();
    this.messages?.stop();
  }
}
