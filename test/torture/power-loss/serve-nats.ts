// The NATS side of the power-loss trials of a shard (power-loss-serve.ts):
// one connection to a real nats-server that plays the fleet around a shard.
// It empties the cluster between trials (both streams deleted and made
// again, so no message, consumer or duplicate-window id of a trial is left
// for the next), publishes a batch of links to drum.links.0 as one message
// (as a fetcher's client would; the shard canonicalizes again), waits until
// the shard has answered everything the link log holds (a work queue: an
// acked message is gone), and reads DRUM_NEW back in stream order.
// Does not run a shard, nor start a nats-server (test/helpers/nats-server.ts
// does, for the tests and scripts/torture.ts alike).
// REQUIRES: a nats-server with JetStream at `url`, used by one sweep at a
// time; one shard of one (drum.links.0).

import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { ensureStreams, H_COUNT, H_ORDINAL, H_SHARD, H_SHARDS, linksSubject, LINKS_STREAM, NEW_STREAM } from '../../../src/cluster/subjects.js';
import type { NewMsg } from '../../helpers/drum-new.js';

/** How long a shard may take to answer what the link log holds (a redelivery waits out the ack wait first). */
const ANSWER_MS = 30_000;

export class LinkLog {
  private constructor(
    readonly url: string,
    private readonly nc: NatsConnection,
    private readonly jsm: JetStreamManager,
  ) {}

  static async open(url: string): Promise<LinkLog> {
    const nc = await connect({ servers: [url] });
    return new LinkLog(url, nc, await jetstreamManager(nc));
  }

  /** Deletes both streams (their messages, the shard's consumer, the duplicate window's ids) and makes them again, empty. */
  async reset(): Promise<void> {
    for (const s of [LINKS_STREAM, NEW_STREAM]) await this.jsm.streams.delete(s).catch(() => false);
    await ensureStreams(this.nc, 1, 1);
  }

  /** Publishes `text` (link lines) to drum.links.0 as one message, `id` its message id. */
  async publish(text: string, id: string): Promise<void> {
    const h = headers();
    h.set(H_SHARD, '0');
    h.set(H_SHARDS, '1');
    h.set(H_COUNT, String(text.split('\n').length - 1));
    await jetstream(this.nc).publish(linksSubject(0), text, { headers: h, msgID: id });
  }

  /**
   * Waits until the link log is empty (every message answered and acked);
   * false when `gone()` says the shard stopped first. A shard that takes
   * longer than ANSWER_MS throws.
   */
  async answered(gone: () => boolean): Promise<boolean> {
    const until = Date.now() + ANSWER_MS;
    for (;;) {
      if ((await this.jsm.streams.info(LINKS_STREAM)).state.messages === 0) return true;
      if (gone()) return false;
      if (Date.now() > until) throw new Error(`the shard did not answer the link log within ${ANSWER_MS} ms`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** DRUM_NEW's messages in stream order. */
  async newUrls(): Promise<NewMsg[]> {
    const last = (await this.jsm.streams.info(NEW_STREAM)).state.last_seq;
    const out: NewMsg[] = [];
    for (let seq = 1; seq <= last; seq++) {
      const m = await this.jsm.streams.getMessage(NEW_STREAM, { seq });
      if (m === null) continue;
      out.push({ shard: Number(m.header.get(H_SHARD)), ordinal: Number(m.header.get(H_ORDINAL)), urls: m.string().split('\n').filter((u) => u !== '') });
    }
    return out;
  }

  async close(): Promise<void> {
    await this.nc.close();
  }
}

/**
 * What is wrong with DRUM_NEW against `want` (the URLs one ingest of the
 * same links calls new, in order), '' when nothing: per shard the ordinals
 * run 0, 1, 2, … without gap or repeat (test/helpers/drum-new.ts perShard,
 * as a finding instead of an assertion), and the URLs are `want`, each once.
 */
export function newUrlsProblem(msgs: NewMsg[], want: readonly string[]): string {
  const got: string[] = [];
  for (const m of msgs) {
    if (m.shard !== 0 || m.ordinal !== got.length) {
      return `DRUM_NEW: a message of shard ${m.shard} at ordinal ${m.ordinal} after ${got.length} URLs (${msgs.map((x) => `${x.ordinal}+${x.urls.length}`).join(' ')})`;
    }
    got.push(...m.urls);
  }
  if (got.length === want.length && got.every((u, i) => u === want[i])) return '';
  const twice = got.filter((u, i) => got.indexOf(u) !== i);
  const have = new Set(got);
  const lost = want.filter((u) => !have.has(u));
  return `DRUM_NEW holds ${got.length} URLs, one ingest calls ${want.length} new: ${lost.length} lost (${lost.slice(0, 3).join(' ')}), ${twice.length} twice (${twice.slice(0, 3).join(' ')})`;
}
