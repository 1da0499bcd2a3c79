// Pulls a shard's link messages from its durable consumer into a queue, and
// only while the next round has room: a fetch of about FETCH_BYTES is asked
// for while fewer than `roundLinks` links wait, so the queue holds at most
// roundLinks links plus one fetch, however far the stream is ahead of the
// shard (a publisher faster than it, a restart onto a backlog). A fetch asks
// for a number of messages, as many as the messages so far average into
// FETCH_BYTES (1 to 1,000): one by bytes gets at most 100 messages from the
// client and then waits for missed heartbeats (7.5 s), which one-link
// messages would wait at every fetch. A consume()
// that reads on while a round runs holds every message the consumer will
// hand out (up to its max_ack_pending), and the next round answers them all
// at once; one paused instead leaves its prefetched messages unread and not
// kept alive, so the stream redelivers them after the ack wait. Every message
// fetched is handed to `onArrive` at once (the shard keeps it alive). A
// failed fetch is tried again, with a growing wait, for as long as the
// consumer and its stream exist (a NATS node restarting, a leader moving);
// fetches failing for a while (STALL_NOTICE_MS) are told to `onNotice`, and
// so is the first that works after them. A consumer or stream gone, or a
// closed connection, is DRUM_IO. stop() lets the fetch under way end (at
// most FETCH_EXPIRES_MS), so every message the server sent reaches the queue.
// Does not run rounds, ack or keep messages alive (shard.ts does).
// REQUIRES: one LinkPull per consumer at a time.

import type { NatsConnection } from '@nats-io/transport-node';
import { JetStreamApiError, type Consumer, type JsMsg } from '@nats-io/jetstream';
import { DrumError } from '../errors.js';
import { JS_CONSUMER_NOT_FOUND, JS_STREAM_NOT_FOUND } from './subjects.js';

/**
 * How long a fetch waits for links on an idle stream before the next is
 * asked for; also the longest a stop waits for the fetch under way.
 */
const FETCH_EXPIRES_MS = 2000;
const RETRY_MS = 250;
const RETRY_MAX_MS = 4000;
/** Fetches failing this long in a row are told (onNotice), by default. */
const STALL_NOTICE_MS = 15_000;

/** About the bytes of one fetch: 8 full links messages (256 KiB), or 1,000 small ones. */
export const FETCH_BYTES = 2 << 20;
const FETCH_MAX_MESSAGES = 1000;

export interface LinkPullOptions {
  /** Fetching pauses while this many links wait. */
  roundLinks: number;
  /** Every message, as it arrives. */
  onArrive: (m: JsMsg) => void;
  /** Told when fetches have failed for `noticeAfterMs` in a row, and when one works again. */
  onNotice?: (message: string) => void;
  /** Default STALL_NOTICE_MS. */
  noticeAfterMs?: number;
}

export class LinkPull {
  private queue: JsMsg[] = [];
  /** Links in the queued messages. */
  links = 0;
  private room: (() => void) | null = null;
  private stopped = false;
  /** Running average of a message's bytes; starts at the largest a server takes by default, so the first fetch asks for 2. */
  private avgBytes = 1 << 20;
  /** When the fetches started failing in a row (null: the last one worked), and whether that was told. */
  private failingSince: number | null = null;
  private told = false;

  private readonly roundLinks: number;
  private readonly onArrive: (m: JsMsg) => void;
  private readonly onNotice: (message: string) => void;
  private readonly noticeAfterMs: number;

  constructor(
    private readonly nc: NatsConnection,
    private readonly consumer: Consumer,
    o: LinkPullOptions,
  ) {
    this.roundLinks = o.roundLinks;
    this.onArrive = o.onArrive;
    this.onNotice = o.onNotice ?? (() => undefined);
    this.noticeAfterMs = o.noticeAfterMs ?? STALL_NOTICE_MS;
  }

  get messages(): number {
    return this.queue.length;
  }

  /** Takes every queued message; the pull goes on into an empty queue. */
  take(): { msgs: JsMsg[]; links: number } {
    const taken = { msgs: this.queue, links: this.links };
    this.queue = [];
    this.links = 0;
    this.wake();
    return taken;
  }

  /**
   * No more fetching: run() resolves once the fetch under way has ended (its
   * messages all came, or it expired: at most FETCH_EXPIRES_MS). It is not
   * cut short: the server counts what it sent for it as handed out, and a
   * message dropped on its way would come back only after the ack wait
   * (a shard stopped in a round, its event loop busy while its next fetch
   * was answered, left a whole fetch's links to wait 30 s, and to be
   * answered after later ones).
   */
  stop(): void {
    this.stopped = true;
    this.wake();
  }

  /** Fetches until stop(); rejects (DRUM_IO) once the consumer, its stream or the connection is gone. */
  async run(): Promise<void> {
    for (let failures = 0; !this.stopped; ) {
      if (this.links >= this.roundLinks) {
        await new Promise<void>((r) => (this.room = r));
        continue;
      }
      let got = 0;
      const started = performance.now();
      try {
        const batch = Math.max(1, Math.min(FETCH_MAX_MESSAGES, Math.floor(FETCH_BYTES / this.avgBytes)));
        const it = await this.consumer.fetch({ max_messages: batch, expires: FETCH_EXPIRES_MS });
        for await (const m of it) {
          got++;
          this.queue.push(m);
          this.links += linkCount(m);
          this.avgBytes = 0.9 * this.avgBytes + 0.1 * Math.max(1, m.data.length);
          this.onArrive(m);
        }
        failures = 0;
        this.worked();
      } catch (e) {
        // A fetch that got messages and then failed: the next fetch says whether the failure lasts.
        if (this.stopped) continue;
        if (got > 0) {
          this.worked();
          continue;
        }
        await this.unlessGone(e);
        this.failed(e, started);
        await new Promise((r) => setTimeout(r, Math.min(RETRY_MAX_MS, RETRY_MS * 2 ** failures++)));
      }
    }
  }

  /** A fetch started at `started` failed: the streak of failures runs from the first one's start. */
  private failed(why: unknown, started: number): void {
    const now = performance.now();
    this.failingSince ??= started;
    if (this.told || now - this.failingSince < this.noticeAfterMs) return;
    this.told = true;
    this.onNotice(`no links fetched for ${((now - this.failingSince) / 1000).toFixed(0)} s: ${errorText(why)}; still trying`);
  }

  private worked(): void {
    if (this.told) this.onNotice(`fetching links again after ${((performance.now() - this.failingSince!) / 1000).toFixed(0)} s`);
    this.failingSince = null;
    this.told = false;
  }

  private wake(): void {
    const r = this.room;
    this.room = null;
    r?.();
  }

  /** Throws DRUM_IO when the fetch failed because the connection closed, or the consumer or its stream no longer exist. */
  private async unlessGone(why: unknown): Promise<void> {
    if (this.nc.isClosed()) throw new DrumError('DRUM_IO', `the NATS connection of the links consumer closed: ${errorText(why)}`, { cause: why });
    try {
      await this.consumer.info();
    } catch (e) {
      if (e instanceof JetStreamApiError && (e.code === JS_CONSUMER_NOT_FOUND || e.code === JS_STREAM_NOT_FOUND)) {
        throw new DrumError('DRUM_IO', `the links consumer is gone: ${errorText(e)} (fetching: ${errorText(why)})`, { cause: e });
      }
    }
  }
}

const errorText = (x: unknown): string => (x instanceof Error ? x.message : String(x));

/** The links of a message: its Drum-Count header, else its lines (the last one with or without its newline). */
export function linkCount(m: JsMsg): number {
  const h = Number(m.headers?.get('Drum-Count'));
  if (Number.isSafeInteger(h) && h > 0) return h;
  let n = 0;
  for (const b of m.data) if (b === 0x0a) n++;
  return m.data.length > 0 && m.data[m.data.length - 1] !== 0x0a ? n + 1 : n;
}
