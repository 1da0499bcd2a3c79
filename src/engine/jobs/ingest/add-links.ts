// Drum.add with group commit: every call waits for the merge round that
// stores its links, and calls that arrive while a round is merging go
// together into the next one, so a crawler with many pages in flight pays
// one merge (one sequential pass over the touched key files, one MANIFEST
// rename) for all of them, the batching DRUM is built on. A lone caller pays
// one round per call. Each call gets back its own new URLs (canonical, in the
// order given), its rejects by index and its duplicate count, and its
// beforeCommit hook gets them before the round commits (a crawler's queue). The calls share
// one LibraryRun until end(). A pause (a reader's, or the run's end) takes
// its place in the queue in call order: the calls made before it are stored
// first, the calls made after it wait until it is released, so end() ends
// the run at a bounded point however many calls keep coming. Does not parse
// or merge itself (LibraryRun).

import { DrumError } from '../../../errors.js';
import type { Reject } from '../../../input/types.js';
import type { RunReport } from '../../../stats/report.js';
import type { AddOptions, AddResult, LibraryRunStats, Link, LinkReject } from '../../api.js';
import type { Session } from '../../session/session.js';
import { linkChunk } from '../../pipeline/link-chunk.js';
import { LibraryRun, type Taker } from './library-run.js';

interface Call {
  links: readonly (string | Link)[];
  base: string;
  beforeCommit: AddOptions['beforeCommit'];
  resolve: (r: AddResult) => void;
  reject: (e: unknown) => void;
}

/** A pause in the queue: `reached` once every call before it is stored; the calls after it wait for `released`. */
interface Pause {
  reached: () => void;
  released: Promise<void>;
}

export class LinkAdder {
  private run: LibraryRun | null = null;
  private queue: (Call | Pause)[] = [];
  private pumping: Promise<void> | null = null;

  constructor(private readonly s: Session) {}

  add(links: Iterable<string | Link>, opts: AddOptions = {}): Promise<AddResult> {
    // A bare string is iterable too: it would be one "link" per character.
    if (typeof links === 'string' || typeof (links as Partial<Iterable<unknown>> | null)?.[Symbol.iterator] !== 'function') {
      return Promise.reject(new DrumError('DRUM_BAD_OPTION', 'add() takes a list (an iterable) of links, not a string or a single value'));
    }
    if (opts === null || typeof opts !== 'object') return Promise.reject(new DrumError('DRUM_BAD_OPTION', 'add() options must be an object'));
    const list: readonly (string | Link)[] = Array.isArray(links) ? links : [...links];
    const bad = list.findIndex((l) => typeof l !== 'string' && (l === null || typeof l !== 'object' || typeof l.url !== 'string'));
    if (bad >= 0) return Promise.reject(new DrumError('DRUM_BAD_OPTION', `link ${bad} is neither a string nor an object with a string url`));
    if (opts.base !== undefined && typeof opts.base !== 'string') return Promise.reject(new DrumError('DRUM_BAD_OPTION', 'base must be a string'));
    if (opts.beforeCommit !== undefined && typeof opts.beforeCommit !== 'function') return Promise.reject(new DrumError('DRUM_BAD_OPTION', 'beforeCommit must be a function'));
    return new Promise<AddResult>((resolve, reject) => {
      this.queue.push({ links: list, base: opts.base ?? '', beforeCommit: opts.beforeCommit, resolve, reject });
      this.pumping ??= this.pump();
    });
  }

  /** Counts of the open run, or null when no add() started one. */
  stats(): LibraryRunStats | null {
    return this.run?.stats() ?? null;
  }

  /**
   * Resolves, once every call made before it is stored (or failed), with the
   * function that lets the calls made after it go on; until that is called,
   * they wait. Pauses are taken in call order, one at a time.
   */
  pause(): Promise<() => void> {
    let release = (): void => undefined;
    const released = new Promise<void>((r) => (release = r));
    return new Promise((resolve) => {
      this.queue.push({ reached: () => resolve(release), released });
      this.pumping ??= this.pump();
    });
  }

  /**
   * Ends the open run (report.json, catalog record) once the calls made
   * before it are stored; the calls made after it wait, then start the next
   * run. Null when none was open.
   */
  async end(): Promise<RunReport | null> {
    const release = await this.pause();
    try {
      const run = this.run;
      this.run = null;
      if (run === null) return null;
      try {
        return await run.end();
      } catch (e) {
        // Its last round did not land: close its outputs and mark its record failed (the next writer abandons it).
        await run.fail().catch(() => undefined);
        throw e;
      }
    } finally {
      release();
    }
  }

  /** Stores the queued calls, one round per batch of calls up to the next pause, until the queue is empty. */
  private async pump(): Promise<void> {
    try {
      while (this.queue.length > 0) {
        const head = this.queue[0]!;
        if ('released' in head) {
          this.queue.shift();
          head.reached();
          await head.released;
          continue;
        }
        const at = this.queue.findIndex((e) => 'released' in e);
        const calls = this.queue.splice(0, at < 0 ? this.queue.length : at) as Call[];
        await this.round(calls);
      }
    } finally {
      this.pumping = null;
    }
  }

  private async round(calls: Call[]): Promise<void> {
    const takers: (Taker & { newUrls: string[]; rejects: LinkReject[] })[] = [];
    try {
      const run = (this.run ??= await LibraryRun.start(this.s));
      for (const call of calls) {
        const first = run.lines;
        const rejects: LinkReject[] = [];
        const taker = {
          newUrls: [] as string[], news: 0, rejects, beforeCommit: call.beforeCommit,
          onReject: (r: Reject) => rejects.push({ index: r.line - first - 1, url: r.excerpt.toString('utf8'), reason: r.reason }),
        };
        takers.push(taker);
        let at = 0;
        while (at < call.links.length) {
          const { chunk, next } = linkChunk(call.links, at, {
            base: call.base, firstLine: first, maxLineBytes: this.s.policy.maxLineBytes, chunkBytes: this.s.opts.chunkBytes,
          });
          at = next;
          await run.route(chunk, taker);
        }
        run.lines = first + call.links.length;
      }
      await run.commit();
    } catch (e) {
      const run = this.run;
      this.run = null;
      await run?.fail().catch(() => undefined);
      for (const c of calls) c.reject(e);
      return;
    }
    calls.forEach((c, i) => {
      const t = takers[i]!;
      t.rejects.sort((a, b) => a.index - b.index);
      const links = c.links.length;
      c.resolve({ newUrls: t.newUrls, duplicates: links - t.news - t.rejects.length, rejects: t.rejects, links });
    });
  }
}
