// Counters of one run, kept as a flat record of numbers so they can be saved
// in the manifest at each commit and restored on resume, plus the stage
// timers. Does not format anything (src/stats/report-build.ts and src/cli do).

export const RUN_COUNTER_NAMES = [
  'linksRead', 'uniqueUrls', 'duplicateUrls', 'rejectedLines', 'revisitUrls',
  'lineLookups', 'lineRepeats', 'chunkRepeats', 'cacheLookups', 'cacheHits', 'recentLookups', 'recentHits',
  'journalLookups', 'journalHits', 'journalRounds', 'journalFolds',
  'bloomDefinitelyNew', 'bloomMaybeSeen', 'bloomFalsePositives', 'lossyDropped', 'bloomNotAdded', 'bloomExpectedFp',
  'diskLookups', 'diskHits', 'storeHits', 'inRoundRepeats',
  'merges', 'spills', 'seeks', 'fileOpens', 'bytesRead', 'bytesWritten',
  'inputBytes', 'elapsedMs', 'chunksOnWorkers', 'chunksOnMain', 'parseMsWorkers', 'parseMsMain',
  'graphPairs', 'graphRowsWithoutPair', 'graphSourcesStored',
] as const;

export type RunCounterName = (typeof RUN_COUNTER_NAMES)[number];
export type RunCounters = Record<RunCounterName, number> & { rejectsByReason: Record<string, number> };

export function newRunCounters(): RunCounters {
  const c = { rejectsByReason: {} } as RunCounters;
  for (const k of RUN_COUNTER_NAMES) c[k] = 0;
  return c;
}

/** Flattens for the manifest: rejects by reason become "reject:<reason>". */
export function flattenCounters(c: RunCounters): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of RUN_COUNTER_NAMES) out[k] = c[k];
  for (const [r, n] of Object.entries(c.rejectsByReason)) out[`reject:${r}`] = n;
  return out;
}

export function restoreCounters(flat: Record<string, number>): RunCounters {
  const c = newRunCounters();
  for (const [k, v] of Object.entries(flat)) {
    if (k.startsWith('reject:')) c.rejectsByReason[k.slice(7)] = v;
    else if ((RUN_COUNTER_NAMES as readonly string[]).includes(k)) c[k as RunCounterName] = v;
  }
  return c;
}

/** Wall time per stage (ms) and items through it, for the report's `stages`. */
export class StageTimer {
  /** Every stage since the session opened. */
  readonly stages: Record<string, { ms: number; items: number }> = {};
  /** The stages as the current run found them: its report shows what it added. */
  private base: Record<string, { ms: number; items: number }> = {};
  private runs = 0;

  add(stage: string, ms: number, items: number): void {
    const s = (this.stages[stage] ??= { ms: 0, items: 0 });
    s.ms += ms;
    s.items += items;
  }

  /** A run starts: its stages are counted from here (the session's first run also keeps the open before it). */
  startRun(): void {
    this.base = Object.fromEntries(Object.entries(this.stages).map(([k, v]) => [k, { ...v }]));
    if (this.runs++ === 0) delete this.base['open'];
  }

  /** The stages the current run added (a stage it did not touch is left out). */
  runStages(): Record<string, { ms: number; items: number }> {
    const out: Record<string, { ms: number; items: number }> = {};
    for (const [k, v] of Object.entries(this.stages)) {
      const b = this.base[k] ?? { ms: 0, items: 0 };
      if (v.ms !== b.ms || v.items !== b.items) out[k] = { ms: v.ms - b.ms, items: v.items - b.items };
    }
    return out;
  }
}
