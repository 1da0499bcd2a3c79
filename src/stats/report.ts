// The run report: the stable, documented camelCase shape `drum ingest --json`
// prints and report.json holds (docs/report.md lists every field). Types and
// the one invariant check only; counting happens in src/stats/counters.ts.

export interface TierReport {
  lookups: number;
  hits: number;
  hitRate: number;
}

export interface BloomReport {
  mode: 'off' | 'gate' | 'lossy';
  bitsPerKey: number;
  sizeBytes: number;
  definitelyNew: number;
  maybeSeen: number;
  /** gate: maybe-seen keys that the exact disk check found new. */
  falsePositives: number;
  /**
   * Definitely-new keys the filter did not take because it held the keys it
   * was sized for: from the first of them on it stopped filling and answered
   * at its design rate. 0 when it never filled up.
   */
  notAdded: number;
  observedFpRate: number;
  /** The rate the filter's fill predicts for the new URLs that met it, averaged over the run. */
  expectedFpRate: number;
  /** lossy: expected number of new URLs wrongly counted as seen. */
  expectedWronglyDropped: number;
}

export interface GraphReport {
  /** graph-NNNNN.bin files, in order: (source docID, target docID) pairs, u64 LE each. */
  files: string[];
  /** Pairs written: rows whose source and target were both accepted. */
  pairs: number;
  /** Rows without a pair: the target or the source was rejected (or too long). */
  rowsWithoutPair: number;
  /** Sources new to the store: stored with a docID, not emitted (not in uniqueUrls). */
  sourcesStored: number;
}

/**
 * An input that broke part-way (a truncated .gz, an unreadable file half
 * read): every whole line or WARC record before the break was read and
 * counted; the input is recorded as damaged, never as ingested.
 */
export interface InputErrorReport {
  path: string;
  /** The DrumError code of the break (DRUM_INPUT, DRUM_IO). */
  code: string;
  message: string;
  /** The input's position in `inputs`. */
  input: number;
  /** Decompressed bytes and lines (or WARC records) read whole before the break. */
  offset: number;
  line: number;
}

export interface RunReport {
  runId: string;
  status: 'complete' | 'running' | 'skipped';
  lossy: boolean;
  /** The canonicalization policy id of the store, e.g. 'default/v1'. */
  policy: string;
  inputs: { path: string; bytes: number; sha256: string | null; skipped: boolean }[];
  linksRead: number;
  uniqueUrls: number;
  /** --revisit-after: stored URLs due again, written to revisit-NNNNN.txt (also counted in duplicateUrls). 0 without it. */
  revisitUrls: number;
  duplicateUrls: number;
  rejectedLines: number;
  /** --graph only: the link graph's files (in outDir, in order) and counts. */
  graph?: GraphReport;
  rejectsByReason: Record<string, number>;
  tiers: {
    /**
     * Raw input lines identical to a line the same parse thread accepted
     * earlier (or to an earlier line of their chunk): answered before
     * canonicalization. `entries` per thread, `threads` threads.
     */
    lineMemo: TierReport & { entries: number; threads: number };
    /** Links (of those the line memo did not answer) that repeat an earlier canonical URL of the same input chunk. */
    chunkDedup: TierReport;
    hotCache: TierReport & { entries: number };
    recentTable: TierReport & { entries: number };
    /**
     * The key journal (docs/design.md, "Key journal"): lookups and hits of
     * stored keys no fold has merged into the bucket files yet; `keys` held
     * at the end, `rounds` journal rounds (answered by a check, new keys
     * appended) and `folds` (journal merged into the bucket files) in this run.
     */
    journal: TierReport & { keys: number; rounds: number; folds: number };
    bloom: BloomReport;
  };
  /** Fraction of URL tests answered without touching disk (line memo + chunk dedup + hot cache + recent table + key journal + lossy bloom). */
  answeredInRam: number;
  disk: { lookups: number; hits: number };
  io: {
    merges: number;
    spills: number;
    seeks: number;
    fileOpens: number;
    bytesRead: number;
    bytesWritten: number;
  };
  seeksPerUrl: number;
  storeUrls: number;
  memory: { budgetBytes: number; split: Record<string, number> };
  outDir: string;
  outputFiles: string[];
  elapsedMs: number;
  linksPerSecond: number;
  peakRssBytes: number;
  stages: Record<string, { ms: number; items: number }>;
  /**
   * How the parse stage (line memo, canonicalize, keys) was split between
   * the worker threads and the main thread, which parses a chunk itself when
   * the workers are behind: chunks and busy milliseconds on each side.
   */
  parseSplit: { workers: number; chunksOnWorkers: number; chunksOnMain: number; workerMs: number; mainMs: number };
  /**
   * Inputs that broke part-way, in input order; empty when every input was
   * read to its end. The run still completes (an ingest() resolves): a
   * caller that must know checks this list (the CLI exits with its first code).
   */
  inputErrors: InputErrorReport[];
}

/** The invariant every report keeps: linksRead = uniqueUrls + duplicateUrls + rejectedLines. */
export function reportAddsUp(r: RunReport): boolean {
  return r.linksRead === r.uniqueUrls + r.duplicateUrls + r.rejectedLines;
}
