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

/** The run counters that DrumFs's IO totals and the hot cache's and recent table's lookups and hits feed. */
const TOTALLED = ['seeks', 'fileOpens', 'bytesRead', 'bytesWritten', 'cacheLookups', 'cacheHits', 'recentLookups', 'recentHits'] as const;

/** Those totals as they stand. */
type Totals = Record<(typeof TOTALLED)[number], number>;

function totalsOf(dfs: DrumFs, front: Front): Totals {
  const d = dfs.counters;
  return {
    seeks: d.seeks, fileOpens: d.fileOpens, bytesRead: d.bytesRead, bytesWritten: d.bytesWritten,
    cacheLookups: front.cache.lookups, cacheHits: front.cache.hits, recentLookups: front.recent.lookups, recentHits: front.recent.hits,
  };
}

/** Adds to c what the totals grew by from `a` to `b`. */
function addSince(c: RunCounters, a: Totals, b: Totals): void {
  for (const k of TOTALLED) c[k] += b[k] - a[k];
}

export class RunMeter {
  private readonly at0: Totals;
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
    this.at0 = totalsOf(dfs, front);
  }

  progress(phase: RunPhase, c: RunCounters): void {
    this.onProgress?.({ phase, bytesRead: this.bytesRead, bytesTotal: this.bytesTotal, links: c.linksRead, elapsedMs: performance.now() - this.t0 });
  }

  /** Sets c's IO, tier and time counters to `base` (restored from the last commit) plus this process's share. */
  syncIo(c: RunCounters, base: RunCounters): void {
    for (const k of TOTALLED) c[k] = base[k];
    addSince(c, this.at0, totalsOf(this.dfs, this.front));
    c.elapsedMs = base.elapsedMs + (performance.now() - this.t0);
  }
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
    this.at = totalsOf(dfs, front);
  }

  /** A stretch of the run's work starts: what ran since the last addTo() was not the run's. */
  restart(): void {
    this.at = totalsOf(this.dfs, this.front);
  }

  /** Adds to c what ran since restart() or the last addTo(). */
  addTo(c: RunCounters): void {
    const n = totalsOf(this.dfs, this.front);
    addSince(c, this.at, n);
    this.at = n;
  }
}
