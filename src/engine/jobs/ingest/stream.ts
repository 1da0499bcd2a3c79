// The Node stream face of the library: a Transform (node:stream) that takes
// URL lines or TSV `source<TAB>target` rows (Buffers or strings, any
// chunking; or, in object mode, Link objects and lists of links) and pushes
// the new URLs as "url\n" lines, in arrival order, as rounds commit; at the
// end it commits what is left and ends its run (report.json). Emits 'reject'
// with each rejected line (LinkReject) and keeps the run's counts (stats())
// and final report. Backpressure is the stream's own. Uses the Feeder.

import { Transform, type TransformCallback } from 'node:stream';
import type { UrlStreamOptions } from '../../api.js';
import type { RunReport } from '../../../stats/report.js';
import type { LibraryRunStats, LinkReject, UrlStream } from '../../api.js';
import type { Session } from '../../session/session.js';
import { Feeder, FEED_ROUND_URLS, type FeedItem } from '../../pipeline/feed.js';

export class LinkStream extends Transform implements UrlStream {
  private readonly feeder: Feeder;
  /** Drum.stream's hold on the store, until the stream ends or its destruction has forgotten its feed. */
  private release: (() => void) | null = null;

  /** Use Drum.stream(). */
  constructor(s: Session, opts: UrlStreamOptions = {}, ready: Promise<unknown> = Promise.resolve()) {
    super({ writableObjectMode: opts.objectMode ?? false });
    this.feeder = new Feeder(s, { format: opts.format, onReject: (r: LinkReject) => this.emit('reject', r) }, FEED_ROUND_URLS, ready);
  }

  /** Counts of the stream's run so far; null before its first link. */
  stats(): LibraryRunStats | null {
    return this.feeder.stats();
  }

  /** The run's report once the stream has ended (null before, and for a stream that carried no link). */
  get report(): RunReport | null {
    return this.feeder.report;
  }

  override _transform(chunk: FeedItem, _enc: BufferEncoding, done: TransformCallback): void {
    this.feeder.push(chunk).then((urls) => done(null, lines(urls)), done);
  }

  override _flush(done: TransformCallback): void {
    this.feeder.end().then((urls) => done(null, lines(urls)), done);
  }

  /**
   * Internal (Drum.stream): calls `release` once the stream has ended, or,
   * destroyed or failed before its end, once its feed has forgotten what it
   * routed (a push may still be merging: destroying the stream does not stop
   * it) and before its 'close', so a caller may use the store from there.
   */
  releaseWhenSettled(release: () => void): void {
    this.release = release;
    this.once('end', () => this.releaseNow());
  }

  override _destroy(err: Error | null, done: (e?: Error | null) => void): void {
    if (this.release === null) return done(err);
    void this.abandonFeed().catch(() => undefined).finally(() => {
      this.releaseNow();
      done(err);
    });
  }

  private releaseNow(): void {
    const r = this.release;
    this.release = null;
    r?.();
  }

  /** Forgets what a destroyed stream's feed routed, once a push still merging is done. */
  private abandonFeed(): Promise<void> {
    return this.feeder.abandon();
  }
}

function lines(urls: string[]): string | undefined {
  return urls.length > 0 ? `${urls.join('\n')}\n` : undefined;
}
