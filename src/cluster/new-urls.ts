// Publishes a shard's new URLs to drum.new.<shard>: NEW_BATCH_URLS per
// message, the message id and Drum-Ordinal header taken from the ordinal of
// its first URL. Messages go one at a time, each with
// Nats-Expected-Last-Subject-Sequence set to the sequence of the one before,
// so the subject always holds a gap-free prefix of the ordinals in order: a
// message the stream did not store stops every later one (a pipeline of
// publishes could store message k+1 while k failed, and a restart reading
// the subject's last ordinal would then skip k). Before its first message,
// and after any failure, the publisher reads the subject's tail (its last
// message) and skips the messages the stream already holds, so a republish
// after a crash stores nothing twice, inside the duplicate window or past it.
// Returns only once every message has its PubAck. Does not decide which URLs
// are new (shard.ts does).
// REQUIRES: one publisher per shard subject at a time (the shard's store
// lock); ordinals of a shard are published in increasing order, the same
// URLs always from the same base.

import { headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { DrumError } from '../errors.js';
import { H_COUNT, H_ORDINAL, H_SHARD, NEW_BATCH_URLS, NEW_STREAM, newMsgId, newSubject } from './subjects.js';

/** Attempts per message, and the wait between them, while the cluster elects a leader or a node comes back. */
export interface PublishRetry {
  attempts: number;
  waitMs: number;
}
const DEFAULT_RETRY: PublishRetry = { attempts: 40, waitMs: 500 };

/** The end of the shard's subject in the stream: its last message's sequence (0: none) and the ordinal just past it. */
interface Tail {
  seq: number;
  end: number;
}

export class NewUrlPublisher {
  private readonly js: JetStreamClient;
  /** Known tail of the subject; null until read, and again after a failed publish. */
  private tail: Tail | null = null;

  constructor(
    private readonly nc: NatsConnection,
    private readonly shard: number,
    private readonly retry: PublishRetry = DEFAULT_RETRY,
  ) {
    this.js = jetstream(nc, { timeout: 10_000 });
  }

  /**
   * Publishes urls as ordinals base, base+1, … in messages of NEW_BATCH_URLS,
   * in order, skipping those the subject already holds. A subject whose
   * last message ends anywhere but at a message's start or past its end (a
   * gap: ordinals acknowledged once and gone from the stream) is retried,
   * then DRUM_IO; an empty subject (new, or trimmed by the stream's limits)
   * takes any ordinal.
   */
  async publish(base: number, urls: readonly string[]): Promise<void> {
    for (let i = 0; i < urls.length; i += NEW_BATCH_URLS) {
      const chunk = urls.slice(i, i + NEW_BATCH_URLS);
      await this.sendInOrder(base + i, chunk);
    }
  }

  /** Stores one message right after the subject's tail, or finds it already stored. */
  private async sendInOrder(ordinal: number, chunk: readonly string[]): Promise<void> {
    let why: unknown = null;
    for (let attempt = 0; attempt < this.retry.attempts; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, this.retry.waitMs));
      try {
        const tail = this.tail ?? (this.tail = await this.readTail());
        if (tail.seq > 0 && tail.end >= ordinal + chunk.length) return; // stored already
        if (tail.seq > 0 && tail.end !== ordinal) throw new Error(`${newSubject(this.shard)} ends at ordinal ${tail.end}, not at ${ordinal} where the next message starts`);
        const ack = await this.js.publish(newSubject(this.shard), chunk.join('\n') + '\n', {
          headers: this.headersOf(ordinal, chunk.length),
          msgID: newMsgId(this.shard, ordinal),
          expect: { lastSubjectSequence: tail.seq },
        });
        this.tail = { seq: ack.seq, end: ordinal + chunk.length };
        return;
      } catch (e) {
        why = e;
        this.tail = null; // stored or not, the stream says which: read its tail again
      }
    }
    const msg = why instanceof Error ? why.message : String(why);
    throw new DrumError('DRUM_IO', `publishing new URLs of shard ${this.shard} at ordinal ${ordinal} failed: ${msg}`, { cause: why });
  }

  private headersOf(ordinal: number, count: number): ReturnType<typeof headers> {
    const h = headers();
    h.set(H_SHARD, String(this.shard));
    h.set(H_ORDINAL, String(ordinal));
    h.set(H_COUNT, String(count));
    return h;
  }

  /** The subject's last message, read from the stream leader; an empty subject (new, or trimmed by the stream's limits) is seq 0. */
  private async readTail(): Promise<Tail> {
    const jsm = await jetstreamManager(this.nc, { timeout: 10_000 });
    const m = await jsm.streams.getMessage(NEW_STREAM, { last_by_subj: newSubject(this.shard) });
    if (m === null) return { seq: 0, end: 0 };
    const end = Number(m.header.get(H_ORDINAL)) + Number(m.header.get(H_COUNT));
    if (!m.header.has(H_ORDINAL) || !Number.isSafeInteger(end)) throw new Error(`message ${m.seq} of ${newSubject(this.shard)} has no ordinal headers`);
    return { seq: m.seq, end };
  }
}
