// Publishes a shard's new URLs to drum.new.<shard>: NEW_BATCH_URLS per
// message, the message id and Drum-Ordinal header taken from the ordinal of
// its first URL, so the same URLs republished after a crash carry the same
// ids (JetStream drops them inside its duplicate window) and messages already
// stored are skipped (the last stored ordinal is read back first on recovery).
// Returns only once every message has its PubAck. Does not decide which URLs
// are new (shard.ts does).
// REQUIRES: ordinals of a shard are published in increasing order.

import { headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type PubAck } from '@nats-io/jetstream';
import { DrumError } from '../errors.js';
import { H_COUNT, H_ORDINAL, H_SHARD, NEW_BATCH_URLS, NEW_STREAM, newMsgId, newSubject } from './subjects.js';

const IN_FLIGHT = 32;
const RETRIES = 40;
const RETRY_MS = 500;

export class NewUrlPublisher {
  private readonly js: JetStreamClient;
  constructor(
    private readonly nc: NatsConnection,
    private readonly shard: number,
  ) {
    this.js = jetstream(nc, { timeout: 10_000 });
  }

  /** Ordinal just past the last new URL stored for this shard (0 when none). */
  async storedEnd(): Promise<number> {
    const jsm = await jetstreamManager(this.nc);
    const m = await jsm.streams.getMessage(NEW_STREAM, { last_by_subj: newSubject(this.shard) }).catch(() => null);
    if (m === null || m.header === undefined) return 0;
    return Number(m.header.get(H_ORDINAL)) + Number(m.header.get(H_COUNT));
  }

  /** Publishes urls as ordinals base, base+1, …; messages ending at or before `skipBelow` are not sent. */
  async publish(base: number, urls: readonly string[], skipBelow = 0): Promise<void> {
    const starts: number[] = [];
    for (let i = 0; i < urls.length; i += NEW_BATCH_URLS) if (base + Math.min(i + NEW_BATCH_URLS, urls.length) > skipBelow) starts.push(i);
    for (let at = 0; at < starts.length; ) {
      const window = starts.slice(at, at + IN_FLIGHT);
      await this.sendWithRetry(base, urls, window);
      at += window.length;
    }
  }

  private async sendWithRetry(base: number, urls: readonly string[], starts: number[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const acks = await Promise.allSettled(starts.map((i) => this.send(base, urls, i)));
      const failed = acks.findIndex((a) => a.status === 'rejected');
      if (failed < 0) return;
      if (attempt >= RETRIES) {
        const why = (acks[failed] as PromiseRejectedResult).reason as Error;
        throw new DrumError('DRUM_IO', `publishing new URLs of shard ${this.shard} failed: ${why.message}`, { cause: why });
      }
      // Same ids again: what was stored before the failure is dropped as a duplicate.
      starts = starts.slice(failed);
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }

  private send(base: number, urls: readonly string[], i: number): Promise<PubAck> {
    const chunk = urls.slice(i, i + NEW_BATCH_URLS);
    const h = headers();
    h.set(H_SHARD, String(this.shard));
    h.set(H_ORDINAL, String(base + i));
    h.set(H_COUNT, String(chunk.length));
    return this.js.publish(newSubject(this.shard), chunk.join('\n') + '\n', { headers: h, msgID: newMsgId(this.shard, base + i) });
  }
}
