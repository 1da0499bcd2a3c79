// The library's in-memory check+update: URLs fed as strings or Buffers of
// newline-separated lines go through the same parse, tier, bucket and merge
// stages as `ingest`, and each merge commits the store and hands back the
// new URLs of that round in arrival order. No run outputs, no resume: the
// caller owns what it does with the new URLs. Rounds are capped at
// `roundUrls` pending URLs so the returned batches stay bounded in RAM.

import { DrumError } from '../../errors.js';
import { LineSplitter } from '../../input/split.js';
import type { LineChunk, Reject } from '../../input/types.js';
import { newRunCounters, type RunCounters } from '../../stats/counters.js';
import { mergeAndCommit, mergeDue } from '../core/commit.js';
import type { ParsedChunk } from './parse.js';
import type { Session } from '../core/session.js';

export const FEED_ROUND_URLS = 1_000_000;

export class Feeder {
  readonly counters: RunCounters = newRunCounters();
  /** Rejected lines seen so far (line numbers count from 1 over everything fed). */
  readonly rejects: Reject[] = [];
  private readonly splitter: LineSplitter;
  private readonly tooLong: Reject[] = [];
  private out: string[] = [];
  private readonly decoder = new TextDecoder();

  constructor(
    private readonly s: Session,
    private readonly roundUrls = FEED_ROUND_URLS,
    private readonly keepRejects = 10_000,
    /** Called before each merge commits, with that merge's new URLs in arrival order (a caller records them durably first). */
    private readonly beforeCommit?: (newUrls: readonly string[]) => Promise<void>,
  ) {
    splitterCheck(s);
    this.splitter = new LineSplitter({ input: 0, format: 'lines', maxLineBytes: s.policy.maxLineBytes, chunkBytes: s.opts.chunkBytes });
    s.front.startRound();
  }

  /** Settles when every push() and end() so far has (their failures are their callers'; settled() only waits). */
  private busy: Promise<unknown> = Promise.resolve();

  /** Feeds URLs; returns the new URLs of any merge this triggered, in arrival order. */
  push(item: string | Buffer | readonly string[]): Promise<string[]> {
    return this.track(async () => {
      const buf = typeof item === 'string' ? Buffer.from(`${item}\n`) : Buffer.isBuffer(item) ? item : Buffer.from(`${item.join('\n')}\n`);
      for (const chunk of this.splitter.push(buf)) await this.chunk(chunk);
      return this.take();
    });
  }

  /** Ends the input: merges what is pending and commits. Returns the last new URLs. */
  end(): Promise<string[]> {
    return this.track(async () => {
      for (const chunk of this.splitter.end()) await this.chunk(chunk);
      await this.merge();
      return this.take();
    });
  }

  /**
   * Resolves once no push() or end() is running (whatever its outcome): a
   * caller abandoning the feed (a destroyed stream) waits for this before it
   * forgets the round, so it does not reset buckets a merge is still reading.
   */
  settled(): Promise<void> {
    return this.busy.then(() => undefined); // busy is built by Promise.allSettled: it never rejects
  }

  /**
   * The caller gives up on the feed (a destroyed stream): later push() and
   * end() calls fail with DRUM_CLOSED instead of routing or committing
   * anything; await settled() for the one already running.
   */
  abandon(): void {
    this.abandoned = true;
  }

  private abandoned = false;

  private track<T>(f: () => Promise<T>): Promise<T> {
    if (this.abandoned) return Promise.reject(new DrumError('DRUM_CLOSED', 'this feed was abandoned (its stream was destroyed)'));
    const p = f();
    this.busy = Promise.allSettled([this.busy, p]);
    return p;
  }

  private take(): string[] {
    const o = this.out;
    this.out = [];
    return o;
  }

  private async chunk(chunk: LineChunk): Promise<void> {
    const p: ParsedChunk = await this.s.pool.parse(chunk);
    this.keep(p.rejects);
    this.s.front.route(p, this.s.core, this.counters, this.tooLong);
    this.s.pool.release(p); // route() copied what it keeps
    this.keep(this.tooLong);
    this.tooLong.length = 0;
    if (mergeDue(this.s) || this.s.aux.records >= this.roundUrls) await this.merge();
  }

  private keep(rs: readonly Reject[]): void {
    this.counters.rejectedLines += rs.length;
    this.counters.linksRead += rs.length;
    for (const r of rs) if (this.rejects.length < this.keepRejects) this.rejects.push(r);
  }

  private async merge(): Promise<void> {
    const s = this.s;
    const from = this.out.length;
    await mergeAndCommit(s, {
      counters: this.counters,
      emit: (buf, start, end) => this.out.push(this.decoder.decode(buf.subarray(start, end))),
      beforeCommit: async () => {
        if (this.beforeCommit) await this.beforeCommit(this.out.slice(from));
        return { run: s.store.body.run, history: s.store.body.history };
      },
    });
  }
}

function splitterCheck(s: Session): void {
  if (s.opts.readOnly) throw new DrumError('DRUM_BAD_OPTION', 'feeding URLs needs a store opened for writing');
}
