// Test helper for drum serve's output: reads DRUM_NEW from its start until
// it holds a number of URLs (and on until it is quiet, so a URL announced
// twice is seen) while the shards serve, checks each shard's ordinals run
// without gap or repeat, and stops a serving shard with SIGTERM once it
// serves. Does not start nats-server or shards (nats.ts does).

import assert from 'node:assert/strict';
import { connect } from '@nats-io/transport-node';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { DrumProc } from './nats.js';

export interface NewMsg {
  shard: number;
  ordinal: number;
  urls: string[];
}

export interface AnnouncedOptions {
  /** Default 60 s. */
  timeoutMs?: number;
  /**
   * Shards that must serve until DRUM_NEW holds every URL: one that exits
   * before fails the read with its stderr, and a timeout's message carries
   * the end of each one's stderr.
   */
  serving?: DrumProc[];
}

/**
 * Reads DRUM_NEW from its start until it holds `want` URLs, then on until
 * it has been quiet for QUIET_MS (a URL announced twice would come then).
 * Done is judged by what the shards announced, not by the work-queue
 * stream or its consumers' counts: after a node's kill -9, nats-server 2.9
 * can keep messages its consumers acked (nats-server PR #5227), and a
 * consumer's pending count read after a leader change can be stale. A
 * timeout throws with what was read, the streams' and consumers' state and
 * the serving shards' stderr.
 */
export async function announced(urls: string, want: number, opts: AnnouncedOptions = {}): Promise<NewMsg[]> {
  const serving = opts.serving ?? [];
  let reading = true;
  const exited = new Promise<never>((_, fail) => {
    for (const p of serving) {
      void p.exited.then((code) => {
        if (reading) fail(new Error(`a shard exited with ${String(code)} before DRUM_NEW held ${want} URLs: ${p.stderr().slice(-2000)}`));
      });
    }
  });
  try {
    return await Promise.race([readAll(urls, want, opts.timeoutMs ?? 60_000), exited]);
  } catch (e) {
    const err = serving.map((p, i) => `shard process ${i} stderr: ${p.stderr().slice(-2000)}`);
    throw new Error([(e as Error).message, ...err].join('\n'));
  } finally {
    reading = false;
  }
}

async function readAll(urls: string, want: number, timeoutMs: number): Promise<NewMsg[]> {
  const nc = await connect({ servers: urls.split(',') });
  const until = Date.now() + timeoutMs;
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        return await readNew(nc, want, until);
      } catch (e) {
        // A stream leader moving after a node died, or a reader that stopped getting messages: read again from the start.
        if (attempt >= 10 || Date.now() > until) throw new Error(`${(e as Error).message}; ${await natsState(nc)}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  } finally {
    await nc.close();
  }
}

const QUIET_MS = 1500;
/** A reader that got nothing this long while URLs are missing reads again from the start. */
const STUCK_MS = 15_000;

async function readNew(nc: Awaited<ReturnType<typeof connect>>, want: number, until: number): Promise<NewMsg[]> {
  const c = await jetstream(nc).consumers.get('DRUM_NEW');
  const out: NewMsg[] = [];
  let count = 0;
  let lastAt = Date.now();
  for (;;) {
    const m = await c.next({ expires: count >= want ? QUIET_MS : 1000 });
    if (m === null) {
      if (count >= want) return out;
      if (Date.now() > until) throw new Error(`DRUM_NEW held ${count} of ${want} URLs in time`);
      if (Date.now() - lastAt > STUCK_MS) throw new Error(`no message from DRUM_NEW for ${STUCK_MS} ms at ${count} of ${want} URLs`);
      continue;
    }
    lastAt = Date.now();
    const msg = { shard: Number(m.headers!.get('Drum-Shard')), ordinal: Number(m.headers!.get('Drum-Ordinal')), urls: m.string().split('\n').filter((u) => u !== '') };
    out.push(msg);
    count += msg.urls.length;
  }
}

/** DRUM_LINKS's messages and each consumer's counts, for a failure's message. */
async function natsState(nc: Awaited<ReturnType<typeof connect>>): Promise<string> {
  try {
    const jsm = await jetstreamManager(nc);
    const links = (await jsm.streams.info('DRUM_LINKS')).state;
    const consumers = await jsm.consumers.list('DRUM_LINKS').next();
    const each = consumers.map((x) => `${x.name}: pending ${x.num_pending}, ack pending ${x.num_ack_pending}, ack floor ${x.ack_floor.stream_seq}`);
    const news = (await jsm.streams.info('DRUM_NEW', { subjects_filter: 'drum.new.>' })).state;
    const perSubject = Object.entries(news.subjects ?? {}).map(([k, n]) => `${k} ${n}`).join(', ');
    return `DRUM_LINKS ${links.messages} messages (seq ${links.first_seq}-${links.last_seq}); ${each.join('; ')}; DRUM_NEW messages by subject: ${perSubject}`;
  } catch (e) {
    return `no stream state (${(e as Error).message})`;
  }
}

/** Per shard, the URLs in stream order; asserts each shard's ordinals run 0, 1, 2, … with no gap or repeat. */
export function perShard(msgs: NewMsg[]): Map<number, string[]> {
  const m = new Map<number, string[]>();
  for (const x of msgs) {
    const l = m.get(x.shard) ?? [];
    if (x.ordinal !== l.length) {
      const order = msgs.filter((y) => y.shard === x.shard).map((y) => `${y.ordinal}+${y.urls.length}`);
      assert.fail(`shard ${x.shard}: message at ordinal ${x.ordinal} after ${l.length} URLs; its messages in stream order: ${order.join(' ')}`);
    }
    l.push(...x.urls);
    m.set(x.shard, l);
  }
  return m;
}

/** SIGTERM once the shard serves (a signal before its handler is installed would kill it uncleanly). */
export async function stopServing(p: DrumProc): Promise<number | null> {
  while (!/serving/.test(p.stderr()) && p.proc.exitCode === null) await new Promise((r) => setTimeout(r, 50));
  p.proc.kill('SIGTERM');
  return p.exited;
}
