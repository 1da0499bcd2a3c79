// The shard role (`drum serve`): a durable pull consumer on drum.links.<I>
// feeds DRUM rounds into the shard's own drum store. A round closes when
// `roundLinks` links wait or `maxDelayMs` after its first message, and
// links are fetched only while fewer than that wait (link-pull.ts), so a
// backlog is answered in rounds of that size, not all at once. Per merge of
// a round (one, unless the round holds more than a merge takes): the new
// URLs go to the outbox (before the store commits them), the store commits,
// the new URLs are published with (shard, ordinal) ids and the confirmed
// ordinal is recorded; then the round's input messages are acked. A
// restart first finishes a merge left in the outbox (stores its URLs again,
// an idempotent feed; republishes what the stream does not hold yet). Each
// round is a library run of the store (`drum runs` lists it, with the
// shard among its options); its output directory is removed once the round
// is confirmed, and those of rounds a crash cut short once the restarted
// shard's first round that made a run is (leftover-rounds.ts).
// stop() drains: the messages already fetched make a last round; during the
// set-up it ends the wait for a cluster that does not answer.
// Does not create the store's policy or options (the caller opens the Drum).
// REQUIRES: one process per shard state (the store lock makes sure).

import { rmSync } from 'node:fs';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Consumer, JsMsg } from '@nats-io/jetstream';
import type { Drum } from '../engine/drum.js';
import type { RunReport } from '../engine/api.js';
import { DrumError } from '../errors.js';
import { DrumFs, type FaultHook } from '../io/fs.js';
import { noteCrashedRound, removeLeftoverRounds, shardRunOptions } from './leftover-rounds.js';
import { LinkPull } from './link-pull.js';
import { NewUrlPublisher } from './new-urls.js';
import { ShardState, type Outbox } from './shard-state.js';
import { ensureShardConsumer, ensureStreams, SetUpStopped } from './subjects.js';

export interface ShardOptions {
  stateDir: string;
  shard: number;
  shards: number;
  replicas: number;
  /** A round closes at most this long after its first message arrived. */
  maxDelayMs: number;
  /** …or as soon as this many links wait. */
  roundLinks: number;
  /** The consumer's ack wait: an unacked message is redelivered after it (held ones are kept alive). */
  ackWaitMs: number;
  onRound?: (r: { links: number; newUrls: number; ms: number }) => void;
  /** Called once the consumer is reading (recovery done). */
  onReady?: () => void;
  /** Told what went wrong but does not stop the shard (a leftover directory that could not be removed). */
  onNotice?: (message: string) => void;
  /** The fault seam of the shard's own files (shard.json, the outbox), as DrumOptions.faultHook is the store's: tests only. */
  faultHook?: FaultHook | null;
}

export class Shard {
  private wake: (() => void) | null = null;
  private stopping = false;
  /** Fires at stop(): the set-up gives up waiting for the cluster. */
  private readonly halt = new AbortController();
  private pull: LinkPull | null = null;
  private readonly held = new Set<JsMsg>();
  private readonly publisher: NewUrlPublisher;
  private state!: ShardState;
  /** The directories of rounds cut short before this process were removed (or tried). */
  private leftoverTried = false;
  rounds = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly drum: Drum,
    private readonly o: ShardOptions,
  ) {
    this.publisher = new NewUrlPublisher(nc, o.shard);
  }

  /** Serves until stop(); resolves once the last round is committed, published and acked. */
  async run(): Promise<void> {
    const consumer = await this.setUp();
    if (consumer === null) return; // stopped before it served: nothing fetched
    const keepAlive = setInterval(() => {
      for (const m of this.held) m.working();
    }, Math.max(200, this.o.ackWaitMs / 3));
    try {
      if (!this.stopping) {
        const onArrive = (m: JsMsg): void => {
          this.held.add(m);
          this.poke();
        };
        this.pull = new LinkPull(this.nc, consumer, { roundLinks: this.o.roundLinks, onArrive, onNotice: this.o.onNotice });
        this.o.onReady?.();
        const pump = this.pump(this.pull);
        await this.loop();
        this.pull.stop();
        await pump;
      }
      if ((this.pull?.messages ?? 0) > 0) await this.round(); // drain: what was fetched is answered before we go
      if (this.failure !== null) throw this.failure;
    } finally {
      clearInterval(keepAlive);
    }
  }

  /**
   * Everything before the first fetch: the shard's record, the streams, the
   * outbox of a merge a crash cut short, the check of the subject's end and
   * the consumer. Null when stop() came while the cluster did not answer.
   */
  private async setUp(): Promise<Consumer | null> {
    const stats = await this.drum.stats();
    const dfs = new DrumFs(undefined, this.o.faultHook ?? null);
    const known = ShardState.load(this.o.stateDir, this.o.shard, this.o.shards, stats.storeUrls, dfs);
    const halt = this.halt.signal;
    try {
      // A fresh state is bound to (shard, shards) only once the streams agree with the count (and the policy).
      const jsm = await ensureStreams(this.nc, this.o.shards, this.o.replicas, { policy: stats.policy, onRetry: this.o.onNotice, stop: halt });
      this.state = known ?? ShardState.create(this.o.stateDir, this.o.shard, this.o.shards, dfs);
      noteCrashedRound(this.state, this.o.stateDir); // before recover() starts a run
      await this.recover();
      await this.publisher.checkEnd(this.state.meta.next, this.o.onNotice, halt);
      return await ensureShardConsumer(this.nc, jsm, this.o.shard, this.o.ackWaitMs, this.o.onNotice, halt);
    } catch (e) {
      if (e instanceof SetUpStopped) return null;
      throw e;
    }
  }

  /** Asks run() to finish: no more fetching, the held messages make a last round. */
  stop(): void {
    this.stopping = true;
    this.halt.abort();
    this.pull?.stop();
    this.poke();
  }

  private poke(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private failure: unknown = null;

  private async pump(pull: LinkPull): Promise<void> {
    try {
      await pull.run();
    } catch (e) {
      this.failure = e instanceof DrumError ? e : new DrumError('DRUM_IO', `the consumer of shard ${this.o.shard} failed: ${(e as Error).message}`, { cause: e });
    }
    this.stopping = true;
    this.poke();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((done) => {
      const t = setTimeout(() => this.poke(), ms);
      this.wake = () => {
        clearTimeout(t);
        done();
      };
    });
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      const pull = this.pull!;
      if (pull.messages === 0) {
        await this.sleep(1000);
        continue;
      }
      const due = performance.now() + this.o.maxDelayMs;
      while (!this.stopping && pull.links < this.o.roundLinks && performance.now() < due) await this.sleep(due - performance.now());
      await this.round();
    }
  }

  /**
   * One DRUM round over the queued messages. Per merge of the round (one,
   * unless it holds more than a merge takes): outbox, commit, then publish
   * and confirm, which the next merge's commit waits for, so the outbox
   * holds one merge's new URLs, never the whole round's. Then the acks.
   */
  private async round(): Promise<void> {
    const t0 = performance.now();
    const { msgs, links } = this.pull!.take();
    let recorded = 0;
    const last: { merge: Outbox | null } = { merge: null };
    const feed = msgs.map((m) => withNewline(m.data));
    const run = this.drum.checkUpdate(feed, {
      runOptions: shardRunOptions(this.o.shard, this.o.shards),
      beforeCommit: async (fresh) => {
        if (fresh.length === 0) return;
        // The merge before this one has committed: its URLs go out now (an outbox of the round's URLs so far,
        // rewritten at every merge, cost a round of m merges m²/2 merges' worth of writing).
        if (last.merge !== null) await this.announce(last.merge);
        last.merge = { base: this.state.meta.next, urls: [...fresh] };
        recorded += fresh.length;
        this.state.writeOutbox(last.merge);
      },
    });
    const { count, outDir } = await drain(run);
    if (count !== recorded) throw new DrumError('DRUM_INTERNAL', `round handed back ${count} new URLs, recorded ${recorded}`);
    if (last.merge !== null) await this.announce(last.merge);
    this.roundDone(outDir);
    await Promise.all(msgs.map((m) => m.ackAck().catch(() => false))); // a lost ack means a redelivery, answered as duplicates
    for (const m of msgs) this.held.delete(m);
    this.rounds++;
    this.o.onRound?.({ links, newUrls: count, ms: performance.now() - t0 });
  }

  /** Publishes a committed merge's new URLs (skipping what the stream holds), records the next ordinal, drops the outbox. */
  private async announce(o: Outbox): Promise<void> {
    await this.publisher.publish(o.base, o.urls);
    this.state.confirm(o.base + o.urls.length);
    this.state.dropOutbox();
  }

  /** A round whose new URLs were recorded but not confirmed: store them (again) and publish what the stream lacks. */
  private async recover(): Promise<void> {
    const ob = this.state.readOutbox();
    if (ob === null) return;
    if (ob.base + ob.urls.length <= this.state.meta.next) {
      this.state.dropOutbox();
      return;
    }
    if (ob.base !== this.state.meta.next) throw new DrumError('DRUM_CORRUPT_FILE', `outbox starts at ordinal ${ob.base}, shard record at ${this.state.meta.next}`);
    // Commits them if the crash came before the store did.
    const { outDir } = await drain(this.drum.checkUpdate([ob.urls], { runOptions: shardRunOptions(this.o.shard, this.o.shards) }));
    await this.announce(ob); // skips what the stream already holds
    this.roundDone(outDir);
  }

  /**
   * The stream holds a round's URLs: its run directory (its unique file,
   * report) goes, or a shard would leave one per round (one a second at the
   * default --max-delay). After the first round that made a run, the
   * directories of rounds cut short before this process go too (that run's
   * start was their last reader).
   */
  private roundDone(outDir: string | null): void {
    if (outDir === null) return;
    rmSync(outDir, { recursive: true, force: true });
    if (this.leftoverTried) return;
    this.leftoverTried = true;
    removeLeftoverRounds(this.state, this.o.stateDir, this.o.onNotice ?? (() => undefined));
  }
}

/** Runs a library run to its end: how many new URLs it handed back (beforeCommit had them), and its run directory (null when it recorded no run). */
async function drain(run: AsyncGenerator<string, RunReport | null>): Promise<{ count: number; outDir: string | null }> {
  let count = 0;
  let next = await run.next();
  for (; !next.done; next = await run.next()) count++;
  return { count, outDir: next.value?.outDir ?? null };
}

function withNewline(b: Uint8Array): Buffer {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  return buf.length > 0 && buf[buf.length - 1] !== 0x0a ? Buffer.concat([buf, Buffer.from('\n')]) : buf;
}
