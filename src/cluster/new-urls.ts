// Publishes a shard's new URLs to drum.new.<shard>: at most NEW_BATCH_URLS
// URLs and NEW_BATCH_BYTES per message, the message id and Drum-Ordinal
// header taken from the ordinal of its first URL. Messages go one at a time,
// each with Nats-Expected-Last-Subject-Sequence set to the sequence of the
// one before, so the subject always holds a gap-free prefix of the ordinals
// in order: a message the stream did not store stops every later one (a
// pipeline of publishes could store message k+1 while k failed, and a
// restart reading the subject's last ordinal would then skip k). Before its
// first message, and after any failure, the publisher reads the subject's
// tail (its last message) and skips the messages of this publish the stream
// already holds, recognised by their ordinals and every URL, so a republish
// after a crash stores nothing twice; a tail that is not this publish's is
// DRUM_IO. checkEnd tells a shard, before it answers anything, whether its
// state's next ordinal is where the subject ends (a state lost or older than
// the stream is DRUM_IO).
// Returns only once every message has its PubAck. Does not decide which URLs
// are new (shard.ts does).
// REQUIRES: one publisher per shard subject at a time (the shard's store
// lock); ordinals of a shard are published in increasing order, the same
// URLs always from the same base.

import { headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { DrumError } from '../errors.js';
import { H_COUNT, H_ORDINAL, H_SHARD, NEW_BATCH_BYTES, NEW_BATCH_URLS, NEW_STREAM, newMsgId, newSubject, untilAnswered } from './subjects.js';

/** Attempts per message, and the wait between them, while the cluster elects a leader or a node comes back. */
export interface PublishRetry {
  attempts: number;
  waitMs: number;
}
const DEFAULT_RETRY: PublishRetry = { attempts: 40, waitMs: 500 };
/** How long a publish, and a read of the subject's end while publishing, waits for its answer. */
const PUBLISH_TIMEOUT_MS = 10_000;
/**
 * …and the read of checkEnd at the shard's start, which untilAnswered asks
 * again for up to 60 s: a shard that finds the R3 streams another has just
 * made asks before they have a leader, and nats-server 2.9 drops that
 * request unanswered, which cost a whole timeout.
 */
const CHECK_END_TIMEOUT_MS = 2000;

/** The shard's subject in the stream: its last message's sequence (0: none), ordinals and URLs. */
interface Tail {
  seq: number;
  start: number;
  end: number;
  urls: string[];
}

/**
 * The end of the message that starts at urls[from]: at most NEW_BATCH_URLS
 * URLs and NEW_BATCH_BYTES of payload (a longer URL goes alone). Decided by
 * the URLs alone, so a republish of the same URLs from the same point cuts
 * the same messages.
 */
export function messageEnd(urls: readonly string[], from: number): number {
  let bytes = 0;
  let to = from;
  while (to < urls.length && to - from < NEW_BATCH_URLS) {
    const b = Buffer.byteLength(urls[to]!) + 1;
    if (to > from && bytes + b > NEW_BATCH_BYTES) break;
    bytes += b;
    to++;
  }
  return to;
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
    this.js = jetstream(nc, { timeout: PUBLISH_TIMEOUT_MS });
  }

  /**
   * Publishes urls as ordinals base, base+1, … (messageEnd cuts), in order.
   * Messages of this same publish that the subject already holds (a lost
   * PubAck; a restart publishing its outbox again) are skipped: the
   * subject's last message must then be one of them, URL for URL.
   * A subject that ends anywhere else (past this round from other URLs: a
   * state older than the stream; or short of it: ordinals gone from the
   * stream) is DRUM_IO, never skipped over. An empty subject (new, or
   * trimmed by the stream's limits) takes any ordinal.
   */
  async publish(base: number, urls: readonly string[]): Promise<void> {
    for (let from = 0; from < urls.length; ) from = (await this.sendInOrder(base, urls, from)) - base;
  }

  /**
   * Stores the message from urls[from] right after the subject's tail, or
   * finds it (or more of this publish) already stored; returns the ordinal
   * the subject now ends at.
   */
  private async sendInOrder(base: number, urls: readonly string[], from: number): Promise<number> {
    const ordinal = base + from;
    let why: unknown = null;
    for (let attempt = 0; attempt < this.retry.attempts; attempt++) {
      if (attempt > 0) await new Promise((r) => setTimeout(r, this.retry.waitMs));
      try {
        const tail = this.tail ?? (this.tail = await this.readTail());
        if (tail.seq > 0 && tail.end !== ordinal) {
          // Stored already (a lost PubAck; a restart publishing its outbox again, perhaps cut otherwise by an older drum).
          if (this.isOurs(tail, base, urls) && tail.end > ordinal) return tail.end;
          throw new DrumError('DRUM_IO', `${newSubject(this.shard)} ends at ordinal ${tail.end} (message from ${tail.start}, ${JSON.stringify(tail.urls[0])}), where this shard publishes ordinals ${base}..${base + urls.length - 1}: the shard's state and the stream disagree (docs/cluster.md, "Limits")`);
        }
        const chunk = urls.slice(from, messageEnd(urls, from));
        const ack = await this.js.publish(newSubject(this.shard), chunk.join('\n') + '\n', {
          headers: this.headersOf(ordinal, chunk.length),
          msgID: newMsgId(this.shard, ordinal),
          expect: { lastSubjectSequence: tail.seq },
        });
        if (ack.duplicate) {
          // Its id was stored before (an older cut, maybe), not necessarily this message: the tail says what is there.
          this.tail = null;
          throw new Error(`message id ${newMsgId(this.shard, ordinal)} was already stored`);
        }
        this.tail = { seq: ack.seq, start: ordinal, end: ordinal + chunk.length, urls: chunk };
        return this.tail.end;
      } catch (e) {
        if (e instanceof DrumError) throw e;
        why = e;
        this.tail = null; // stored or not, the stream says which: read its tail again
      }
    }
    const msg = why instanceof Error ? why.message : String(why);
    throw new DrumError('DRUM_IO', `publishing new URLs of shard ${this.shard} at ordinal ${ordinal} failed: ${msg}`, { cause: why });
  }

  /**
   * True when the tail is a message of this publish: inside its ordinals,
   * with the same URLs there (a message that only starts alike is another
   * state's: skipping it would lose the URLs it does not hold).
   */
  private isOurs(tail: Tail, base: number, urls: readonly string[]): boolean {
    const at = tail.start - base;
    return at >= 0 && tail.end <= base + urls.length && tail.urls.every((u, i) => urls[at + i] === u);
  }

  /**
   * Refuses (DRUM_IO) a shard whose state's next ordinal is not where its
   * subject ends: a state lost or restored from a backup older than the
   * stream (it would call new, and publish again, URLs the stream holds),
   * or a stream that lost messages. An empty subject takes any ordinal.
   * Run once recovery has published the outbox, before the shard answers
   * anything. Tried again while the cluster does not answer (untilAnswered),
   * until `stop` fires (SetUpStopped).
   */
  async checkEnd(next: number, onRetry?: (message: string) => void, stop?: AbortSignal): Promise<void> {
    const tail = await untilAnswered(`for the last message of ${newSubject(this.shard)}`, () => this.readTail(CHECK_END_TIMEOUT_MS), onRetry, stop);
    if (tail.seq > 0 && tail.end !== next) {
      throw new DrumError('DRUM_IO', `${newSubject(this.shard)} ends at ordinal ${tail.end}, where the state of shard ${this.shard} has published up to ${next}: the shard's state and the stream disagree (a lost or older state directory, or a stream that lost messages; docs/cluster.md, "Limits")`);
    }
    this.tail = tail;
  }

  private headersOf(ordinal: number, count: number): ReturnType<typeof headers> {
    const h = headers();
    h.set(H_SHARD, String(this.shard));
    h.set(H_ORDINAL, String(ordinal));
    h.set(H_COUNT, String(count));
    return h;
  }

  /** The subject's last message, read from the stream leader; an empty subject (new, or trimmed by the stream's limits) is seq 0. */
  private async readTail(timeoutMs = PUBLISH_TIMEOUT_MS): Promise<Tail> {
    const jsm = await jetstreamManager(this.nc, { timeout: timeoutMs });
    const m = await jsm.streams.getMessage(NEW_STREAM, { last_by_subj: newSubject(this.shard) });
    if (m === null) return { seq: 0, start: 0, end: 0, urls: [] };
    const start = Number(m.header.get(H_ORDINAL));
    const count = Number(m.header.get(H_COUNT));
    if (!m.header.has(H_ORDINAL) || !m.header.has(H_COUNT) || !Number.isSafeInteger(start + count)) {
      throw new DrumError('DRUM_IO', `message ${m.seq} of ${newSubject(this.shard)} has no ordinal headers: not a drum shard's`);
    }
    const urls = m.string().split('\n').slice(0, count);
    return { seq: m.seq, start, end: start + count, urls };
  }
}
