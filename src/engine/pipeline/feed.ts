// The library's line feed (Drum.stream, Drum.checkUpdate): text of URL lines
// or TSV `source<TAB>target` rows (any chunking; the format told or detected
// on the first data line, as for a file), and lists of links or Link objects,
// go through a LibraryRun: the same parse, tier, bucket and merge stages as
// `ingest`, a run directory, catalog and host-table records. A round commits
// when it is full (at most `roundUrls` pending URLs, so the new URLs handed
// back stay bounded in RAM) and at the end; each push hands back the new URLs
// of the rounds it committed, in arrival order; feedRun drives a whole
// checkUpdate over its source; a run records the caller's runOptions among
// its options. Does not commit per push: Drum.add
// (add-links.ts) does that.

import { DrumError } from '../../errors.js';
import { detectFormat } from '../../input/detect.js';
import { LineSplitter } from '../../input/split.js';
import type { LineChunk, Reject } from '../../input/types.js';
import type { RunReport } from '../../stats/report.js';
import type { FeedOptions, LibraryRunStats, Link } from '../api.js';
import type { Session } from '../session/session.js';
import { LibraryRun, type Taker } from '../jobs/ingest/library-run.js';
import { linkChunk } from './link-chunk.js';

export const FEED_ROUND_URLS = 1_000_000;

/** One push: text (lines or TSV rows), a Buffer of it, one Link, or a list of links (one link per element). */
export type FeedItem = string | Buffer | Link | readonly (string | Link)[];

export class Feeder {
  private run: LibraryRun | null = null;
  private splitter: LineSplitter | null = null;
  /** Bytes held until the first data line says which format 'auto' means. */
  private head: Buffer[] = [];
  private readonly taker: Taker;
  /** Settles when every push() and end() so far has (their failures are their callers'). */
  private busy: Promise<unknown> = Promise.resolve();
  private abandoned = false;
  report: RunReport | null = null;

  constructor(
    private readonly s: Session,
    private readonly opts: FeedOptions = {},
    private readonly roundUrls = FEED_ROUND_URLS,
    /** Settles when the feed may start (the Drum's previous run has ended); a failure fails every call. */
    private readonly ready: Promise<unknown> = Promise.resolve(),
  ) {
    if (s.opts.readOnly) throw new DrumError('DRUM_BAD_OPTION', 'feeding URLs needs a store opened for writing');
    const onReject = opts.onReject;
    this.taker = {
      newUrls: [], news: 0, beforeCommit: opts.beforeCommit,
      onReject: onReject === undefined ? undefined : (r: Reject) => onReject({ index: r.line, url: r.excerpt.toString('utf8'), reason: r.reason }),
    };
  }

  /** Counts of the run so far (null before the first link). */
  stats(): LibraryRunStats | null {
    return this.run?.stats() ?? null;
  }

  /** Feeds links; returns the new URLs of any round this committed, in arrival order. */
  push(item: FeedItem): Promise<string[]> {
    return this.track(async () => {
      if (typeof item === 'string' || Buffer.isBuffer(item)) {
        const buf = typeof item === 'string' ? Buffer.from(item) : item;
        for (const c of this.split(buf, false)) await this.chunk(c);
      } else {
        const links = Array.isArray(item) ? (item as readonly (string | Link)[]) : [item as Link];
        for (const c of this.split(Buffer.alloc(0), true)) await this.chunk(c); // text before a list ends its last line
        await this.links(links);
      }
      return this.take();
    });
  }

  /** Ends the feed: commits what is pending and ends the run (report.json). Returns the last new URLs. */
  end(): Promise<string[]> {
    return this.track(async () => {
      for (const c of this.split(Buffer.alloc(0), true)) await this.chunk(c);
      if (this.run !== null) this.report = await this.run.end();
      return this.take();
    });
  }

  /** Resolves once no push() or end() is running, whatever its outcome. */
  settled(): Promise<void> {
    return this.busy.then(() => undefined); // busy is built by Promise.allSettled: it never rejects
  }

  /** The caller gives up: later calls fail with DRUM_CLOSED; the run forgets what it had not committed. */
  async abandon(): Promise<void> {
    this.abandoned = true;
    await this.settled();
    await this.run?.fail();
  }

  private track<T>(f: () => Promise<T>): Promise<T> {
    if (this.abandoned) return Promise.reject(new DrumError('DRUM_CLOSED', 'this feed was abandoned (its stream was destroyed or its source failed)'));
    const p = this.ready.then(f);
    this.busy = Promise.allSettled([this.busy, p]);
    return p;
  }

  private take(): string[] {
    const o = this.taker.newUrls!;
    this.taker.newUrls = [];
    return o;
  }

  /** Text to chunks; `final` ends the text (its last line needs no newline). */
  private split(buf: Buffer, final: boolean): LineChunk[] {
    if (this.splitter === null) {
      if (buf.length > 0) this.head.push(buf);
      const prefix = Buffer.concat(this.head);
      if (prefix.length === 0) return [];
      const max = this.s.policy.maxLineBytes;
      let format = this.opts.format ?? 'auto';
      if (format === 'auto') {
        const d = detectFormat(prefix, final, max);
        if (d === null) return [];
        format = d.format === 'tsv' ? 'tsv' : 'lines';
      }
      this.head = [];
      const startLine = this.run?.lines ?? 0;
      this.splitter = new LineSplitter({ input: 0, format, maxLineBytes: max, chunkBytes: this.s.opts.chunkBytes, startLine, headerCheck: format === 'tsv' });
      buf = prefix;
    }
    const out = this.splitter.push(buf);
    if (final) {
      out.push(...this.splitter.end());
      this.splitter = null;
    }
    return out;
  }

  private async chunk(c: LineChunk): Promise<void> {
    const run = await this.started();
    await run.route(c, this.taker);
    if (run.due(this.roundUrls)) await run.commit();
  }

  private async links(links: readonly (string | Link)[]): Promise<void> {
    let at = 0;
    while (at < links.length) {
      const run = await this.started();
      const { chunk, next } = linkChunk(links, at, {
        base: '', firstLine: run.lines - at, maxLineBytes: this.s.policy.maxLineBytes, chunkBytes: this.s.opts.chunkBytes,
      });
      at = next;
      await this.chunk(chunk);
    }
  }

  private async started(): Promise<LibraryRun> {
    return (this.run ??= await LibraryRun.start(this.s, this.opts.runOptions));
  }
}

/** Refuses checkUpdate() runOptions that are not a record of strings with DRUM_BAD_OPTION. */
export function assertRunOptions(runOptions: unknown): void {
  if (runOptions === undefined) return;
  if (typeof runOptions !== 'object' || runOptions === null) throw new DrumError('DRUM_BAD_OPTION', 'runOptions must be an object of strings');
  for (const [k, v] of Object.entries(runOptions)) {
    if (typeof v !== 'string') throw new DrumError('DRUM_BAD_OPTION', `runOptions.${k} must be a string`);
  }
}

/** Refuses a checkUpdate() source that is neither iterable nor async iterable (42, null) with DRUM_BAD_OPTION. */
export function assertFeedSource(source: unknown): void {
  const it = source as Partial<Iterable<FeedItem> & AsyncIterable<FeedItem>> | null | undefined;
  if (typeof it?.[Symbol.iterator] !== 'function' && typeof it?.[Symbol.asyncIterator] !== 'function') {
    throw new DrumError('DRUM_BAD_OPTION', 'checkUpdate() reads an iterable or async iterable of strings, Buffers, links or lists of links');
  }
}

/**
 * A checkUpdate run: pushes every item of `source` through `f`, yielding
 * the new URLs as rounds commit, and returns the run's report. A source
 * that throws or a consumer that stops early leaves keys routed but never
 * committed: they are forgotten. `release` (the store's hold) runs last.
 */
export async function* feedRun(f: Feeder, source: Iterable<FeedItem> | AsyncIterable<FeedItem>, release: () => void): AsyncGenerator<string, RunReport | null> {
  let completed = false;
  try {
    for await (const item of source) yield* await f.push(item);
    yield* await f.end();
    completed = true;
    return f.report;
  } finally {
    try {
      if (!completed) await f.abandon();
    } finally {
      release();
    }
  }
}
