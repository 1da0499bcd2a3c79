// A run's clock and gauges: the counters a resumed run restored, plus what
// this process adds to the IO and tier counters since the run started
// (syncIo), and progress events for the caller; and IoTally, the same IO and
// tier counts for a library run, taken only over the stretches of work that
// are the run's own. Counts nothing itself: both read DrumFs's and the tiers'
// running totals.

import type { DrumFs } from '../../../io/fs.js';
import type { RunCounters } from '../../../stats/counters.js';
import type { IngestRequest } from '../../api.js';
import type { Front } from '../../url-seen/front.js';

export type RunPhase = 'reading' | 'merging' | 'committing' | 'done';

export class RunMeter {
  private readonly io0: { seeks: number; fileOpens: number; bytesRead: number; bytesWritten: number };
  private readonly tiers0: { cl: number; ch: number; rl: number; rh: number };
  /** Input bytes read by this process. */
  bytesRead = 0;

  /** Takes the IO and tier totals now: the start of what this process adds. */
  constructor(
    private readonly dfs: DrumFs,
    private readonly front: Front,
    private readonly t0: number,
    private readonly bytesTotal: number | null,
    private readonly onProgress: IngestRequest['onProgress'],
  ) {
    this.io0 = { ...dfs.counters };
    this.tiers0 = { cl: front.cache.lookups, ch: front.cache.hits, rl: front.recent.lookups, rh: front.recent.hits };
  }

  progress(phase: RunPhase, c: RunCounters): void {
    this.onProgress?.({ phase, bytesRead: this.bytesRead, bytesTotal: this.bytesTotal, links: c.linksRead, elapsedMs: performance.now() - this.t0 });
  }

  /** Sets c's IO, tier and time counters to `base` (restored from the last commit) plus this process's share. */
  syncIo(c: RunCounters, base: RunCounters): void {
    const d = this.dfs.counters;
    const io0 = this.io0;
    const f = this.front;
    c.seeks = base.seeks + d.seeks - io0.seeks;
    c.fileOpens = base.fileOpens + d.fileOpens - io0.fileOpens;
    c.bytesRead = base.bytesRead + d.bytesRead - io0.bytesRead;
    c.bytesWritten = base.bytesWritten + d.bytesWritten - io0.bytesWritten;
    c.cacheLookups = base.cacheLookups + f.cache.lookups - this.tiers0.cl;
    c.cacheHits = base.cacheHits + f.cache.hits - this.tiers0.ch;
    c.recentLookups = base.recentLookups + f.recent.lookups - this.tiers0.rl;
    c.recentHits = base.recentHits + f.recent.hits - this.tiers0.rh;
    c.elapsedMs = base.elapsedMs + (performance.now() - this.t0);
  }
}

/** DrumFs's IO totals and the hot cache's and recent table's lookups and hits, as they stand. */
interface Totals {
  seeks: number;
  fileOpens: number;
  bytesRead: number;
  bytesWritten: number;
  cl: number;
  ch: number;
  rl: number;
  rh: number;
}

/**
 * The IO and tier counts of a library run (add(), a stream, checkUpdate),
 * whose work comes in stretches (a call's routing, a round's commit) with
 * other jobs' between them (a reader that add() calls wait behind):
 * restart() at the start of a stretch, addTo() at its end adds what it did.
 */
export class IoTally {
  private at: Totals;

  constructor(
    private readonly dfs: DrumFs,
    private readonly front: Front,
  ) {
    this.at = this.now();
  }

  private now(): Totals {
    const d = this.dfs.counters;
    const f = this.front;
    return {
      seeks: d.seeks, fileOpens: d.fileOpens, bytesRead: d.bytesRead, bytesWritten: d.bytesWritten,
      cl: f.cache.lookups, ch: f.cache.hits, rl: f.recent.lookups, rh: f.recent.hits,
    };
  }

  /** A stretch of the run's work starts: what ran since the last addTo() was not the run's. */
  restart(): void {
    this.at = this.now();
  }

  /** Adds to c what ran since restart() or the last addTo(). */
  addTo(c: RunCounters): void {
    const n = this.now();
    const a = this.at;
    c.seeks += n.seeks - a.seeks;
    c.fileOpens += n.fileOpens - a.fileOpens;
    c.bytesRead += n.bytesRead - a.bytesRead;
    c.bytesWritten += n.bytesWritten - a.bytesWritten;
    c.cacheLookups += n.cl - a.cl;
    c.cacheHits += n.ch - a.ch;
    c.recentLookups += n.rl - a.rl;
    c.recentHits += n.rh - a.rh;
    this.at = n;
  }
}
