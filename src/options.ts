// Public store options (partial, with TSDoc defaults) and their one-time
// resolution into ResolvedOptions. Inner code takes ResolvedOptions only and
// never reads process.env or argv. Throws DRUM_BAD_OPTION on any bad value.

import { DrumError } from './errors.js';
import type { CanonicalPolicyOptions } from './canonicalize/types.js';
import type { FaultHook } from './io/fs.js';
import { assertHonourableBudget, defaultWorkers, minimumBudgetBytes } from './engine/session/budget.js';

export type BloomMode = 'off' | 'gate' | 'lossy';

export interface DrumOptions {
  /**
   * RAM budget in bytes for the whole process: its runtime (at least the measured floor, ~140 MiB plus
   * ~30 MiB per worker) and the bucket buffers, sort area and in-RAM tiers. Default 256 MiB. A budget
   * under minimumBudgetBytes() or over the machine's memory is DRUM_BAD_OPTION.
   */
  memoryBytes?: number;
  /** Number of buckets (power of two, 1..4096); the key's top bits pick one. Default 64. Fixed at store creation: an existing store with another count is DRUM_POLICY_MISMATCH (absent: the store's own). */
  buckets?: number;
  /** Host-fingerprint bits H at the top of each 64-bit key (0..32). Default 24. Fixed at store creation: an existing store with other bits is DRUM_POLICY_MISMATCH (absent: the store's own). */
  hostBits?: number;
  /** Hot-URL cache size in entries (0 disables). Default 2^16 (0.5 MiB: bigger tables cost more in cache misses than they save; docs/tiers.md). */
  cacheEntries?: number;
  /** Recently-added table size in entries (0 disables). Default 2^18 (2.1 MiB; docs/tiers.md). */
  recentEntries?: number;
  /**
   * Line memo size in entries per parsing thread (0 disables): raw input
   * lines seen before by that thread are answered before canonicalization.
   * Default 2^20 (8 MiB per thread), less when the memos of all threads
   * would take over 1/16 of memoryBytes or leave too little for the buckets.
   */
  lineMemoEntries?: number;
  /** Bloom filter mode. Default 'off'. */
  bloom?: BloomMode;
  /** Bloom bits per stored key of a filter built or rebuilt. Default: an existing store's filter's, else 10 (~1% false positives). */
  bloomBitsPerKey?: number;
  /**
   * Canonicalization policy. Default: for an existing store, the policy it
   * was built with; for a new store, the documented default policy.
   */
  canonical?: CanonicalPolicyOptions;
  /** Open even if the store was built with another policy. Default false. */
  forcePolicy?: boolean;
  /** Worker threads for canonicalize + hash (0 = inline on the main thread). Default: cores - 1, at most 3, and at most what memoryBytes keeps 56 MiB beside (2 at 256 MiB; defaultWorkers). */
  workers?: number;
  /** Input bytes per chunk handed to a parse worker. Default 1 MiB. */
  chunkBytes?: number;
  /** fsync files and directories at commit. Default true (tests may turn it off for speed). */
  fsync?: boolean;
  /**
   * Merge and commit once this many URLs wait for the disk check, at the
   * latest. Smaller rounds redo less work after a crash but rewrite the store
   * more often. Default: as many as the memory budget's round holds
   * (1 bit of RAM per waiting URL; at the default 256 MiB, a store with
   * values holds about 25 M with 0 workers, 21 M with 1 and 10 M with 2 (the
   * most workers the default budget takes); 1.1 M with `workers: 3` forced;
   * a keys-only store about 3 M more, but 3.2 M with 3).
   */
  mergeEvery?: number;
  /**
   * Keys the key journal holds before a fold merges them into the bucket
   * files (0: every round merges). A round of at most 262,144 URLs that
   * reach the disk check is answered by reading the blocks its keys land in
   * and stores its new keys by appending them to the journal (one fsync)
   * instead of rewriting every bucket file it touches: a small batch into a
   * big store costs in proportion to the batch. A larger round, and any job
   * that changes stored values (revisit, graph, forget), folds the journal
   * first. Default 2^18 (at most 13 MiB of RAM, part of memoryBytes; docs/design.md, "Key journal").
   */
  journalKeys?: number;
  /**
   * Run records the catalog keeps once library runs (feeds through the
   * library, such as `drum serve`'s rounds, one a second) pile up: the
   * complete library runs older than the newest this many go, at the
   * process's first library run and every tenth of this many after (runs of
   * files, forgets and failed runs are always kept; host-count round
   * markers stay). At least 20, the manifest's own history. Default: every
   * record is kept; `drum serve` keeps 10,000 (~8 MB of catalog).
   */
  libraryRunRecords?: number;
  /** Read-only open: no lock taken for writing, nothing written. Default false. */
  readOnly?: boolean;
  /**
   * Keep a value per stored URL (docID, first run, last emission, host
   * check; docs/file-format.md). Default true for a new store; false creates
   * a keys-only store. An existing store keeps its kind: false on a store
   * with values is DRUM_POLICY_MISMATCH, true on one created keys-only
   * DRUM_NEEDS_UPGRADE (`drum upgrade` adds values; absent: the store's
   * own). One written by a drum without values is upgraded on its first
   * write, with a notice, unless this is false.
   */
  values?: boolean;
  /** Receives one-line notices (e.g. a store upgraded on open). Default: written to stderr. */
  onNotice?: (message: string) => void;
  /** The clock, in milliseconds since the epoch (values' lastEmitted, revisit). Default Date.now; tests pass a fake one. */
  now?: () => number;
  /** Internal limits, normally derived from memoryBytes; for tests and experiments. */
  tuning?: Tuning;
  /**
   * Testing seam: called before every mutating file operation on the state
   * directory and run outputs (see src/io/fs.ts), the host table's files
   * included; not for LevelDB's own files or a host-table fold's child
   * process. Throw to inject a crash or an IO error.
   */
  faultHook?: FaultHook;
}

export interface Tuning {
  /** Entries per bucket RAM buffer before it spills. */
  bufferEntries?: number;
  /** A merge starts once a bucket holds this many entries. Default: no limit (a big bucket is sorted in slices). */
  maxBucketEntries?: number;
  /** Entries one sort holds (the sort area); a bigger bucket is sorted one key slice at a time. Default from memoryBytes. */
  sortEntries?: number;
  /** A merge starts once a round holds this many entries. */
  maxRoundEntries?: number;
  /** URLs per unique-NNNNN.txt file. Default 1,000,000. */
  urlsPerFile?: number;
  /**
   * Inputs up to this many bytes are hashed whole before an ingest; larger ones are identified by a
   * sample first, hashed whole while read, and skipped only after a confirming read. Default 64 MiB.
   */
  fullHashMaxBytes?: number;
  /** Rounds with at least this many aux records sort and dispatch through a worker thread. Default 65,536. */
  workerDispatchMin?: number;
  /** Links one round of a resolve holds (default 2^21); a bigger input takes more rounds. */
  resolveRoundLinks?: number;
  /** URL log segment and block sizes (docs/file-format.md); defaults 256 MiB and 64 KiB. Smaller in tests. */
  urlLog?: { segmentBytes?: number; blockTextBytes?: number };
  /** 1: canonicalize with the TypeScript fast path even where the WebAssembly one loads (A/B measurement). Default: WebAssembly when it loads. */
  typescriptFastPath?: number;
  /** Pending host-count deltas from which a process folds them after a library run, once their bytes reach the table's (catalog/hosts/fold-policy.ts). Default 1,024. */
  libraryFoldDeltas?: number;
}

export interface ResolvedOptions {
  memoryBytes: number;
  buckets: number;
  bucketBits: number;
  hostBits: number;
  /**
   * What the caller set of the parameters an existing store keeps (null: not
   * set, the store's own apply): buckets and host bits, fixed at creation
   * (another value is refused), and the Bloom bits per key of its filter.
   */
  asked: { buckets: number | null; hostBits: number | null; bloomBitsPerKey: number | null };
  cacheEntries: number;
  recentEntries: number;
  /** null: sized by the budget planner (2^20 per thread, less on a small budget). */
  lineMemoEntries: number | null;
  bloom: BloomMode;
  bloomBitsPerKey: number;
  /** null: the store's own policy (or the default for a new store). */
  canonical: CanonicalPolicyOptions | null;
  forcePolicy: boolean;
  workers: number;
  chunkBytes: number;
  fsync: boolean;
  /** null: rounds as large as the budget allows. */
  mergeEvery: number | null;
  journalKeys: number;
  /** null: every run record kept. */
  libraryRunRecords: number | null;
  readOnly: boolean;
  /** null: the store's kind (new stores: with values). */
  values: boolean | null;
  onNotice: (message: string) => void;
  now: () => number;
  tuning: Tuning;
  faultHook: FaultHook | null;
}

export const DEFAULTS = {
  memoryBytes: 256 * 1024 * 1024,
  buckets: 64,
  hostBits: 24,
  cacheEntries: 1 << 16,
  recentEntries: 1 << 18,
  journalKeys: 1 << 18,
  bloom: 'off' as BloomMode,
  bloomBitsPerKey: 10,
  chunkBytes: 1 << 20,
} as const;

function bad(msg: string): never {
  throw new DrumError('DRUM_BAD_OPTION', msg);
}

function int(name: string, v: unknown, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    bad(`${name} must be an integer in [${min}, ${max}], got ${String(v)}`);
  }
  return v;
}

/** A boolean option: absent gives `dflt`; anything but a boolean is DRUM_BAD_OPTION. */
function bool(name: string, v: unknown, dflt: boolean): boolean {
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') bad(`${name} must be true or false, got ${String(v)}`);
  return v as boolean;
}

/** A function option (a hook or a clock): absent gives undefined; anything but a function is DRUM_BAD_OPTION. */
function fn<F>(name: string, v: F | undefined): F | undefined {
  if (v !== undefined && typeof v !== 'function') bad(`${name} must be a function, got ${typeof v}`);
  return v;
}

/**
 * Resolves the options once. `cores` and `machineBytes` describe the machine (the session passes
 * availableParallelism() and os.totalmem()): a memory budget over the machine's memory cannot be honoured,
 * nor one under the process floor for these workers and tiers (minimumBudgetBytes).
 */
export function resolveOptions(o: DrumOptions = {}, cores = 2, machineBytes = Number.MAX_SAFE_INTEGER): ResolvedOptions {
  const memoryBytes = int('memoryBytes', o.memoryBytes ?? DEFAULTS.memoryBytes, 1 << 20, 2 ** 40);
  if (memoryBytes > machineBytes) {
    bad(`memoryBytes ${Math.round(memoryBytes / 2 ** 20)} MiB is more than this machine has (${Math.floor(machineBytes / 2 ** 20)} MiB); drum would be swapped or killed`);
  }
  const buckets = int('buckets', o.buckets ?? DEFAULTS.buckets, 1, 4096);
  if ((buckets & (buckets - 1)) !== 0) bad(`buckets must be a power of two, got ${buckets}`);
  const hostBits = int('hostBits', o.hostBits ?? DEFAULTS.hostBits, 0, 32);
  const bloom = o.bloom ?? DEFAULTS.bloom;
  const bloomBitsPerKey = int('bloomBitsPerKey', o.bloomBitsPerKey ?? DEFAULTS.bloomBitsPerKey, 1, 64);
  const workers = int('workers', o.workers ?? defaultWorkers(cores, memoryBytes), 0, 64);
  if (bloom !== 'off' && bloom !== 'gate' && bloom !== 'lossy') bad(`bloom must be off|gate|lossy, got ${String(bloom)}`);
  const resolved: ResolvedOptions = {
    memoryBytes,
    buckets,
    bucketBits: Math.log2(buckets),
    hostBits,
    asked: {
      buckets: o.buckets === undefined ? null : buckets,
      hostBits: o.hostBits === undefined ? null : hostBits,
      bloomBitsPerKey: o.bloomBitsPerKey === undefined ? null : bloomBitsPerKey,
    },
    cacheEntries: int('cacheEntries', o.cacheEntries ?? DEFAULTS.cacheEntries, 0, 2 ** 28),
    recentEntries: int('recentEntries', o.recentEntries ?? DEFAULTS.recentEntries, 0, 2 ** 28),
    lineMemoEntries: o.lineMemoEntries === undefined ? null : int('lineMemoEntries', o.lineMemoEntries, 0, 2 ** 28),
    bloom,
    bloomBitsPerKey,
    canonical: o.canonical ?? null,
    forcePolicy: bool('forcePolicy', o.forcePolicy, false),
    workers,
    chunkBytes: int('chunkBytes', o.chunkBytes ?? DEFAULTS.chunkBytes, 1024, 1 << 28),
    fsync: bool('fsync', o.fsync, true),
    mergeEvery: o.mergeEvery === undefined ? null : int('mergeEvery', o.mergeEvery, 1, 2 ** 32 - 1),
    journalKeys: int('journalKeys', o.journalKeys ?? DEFAULTS.journalKeys, 0, 2 ** 24),
    libraryRunRecords: o.libraryRunRecords === undefined ? null : int('libraryRunRecords', o.libraryRunRecords, 20, 2 ** 32 - 1),
    readOnly: bool('readOnly', o.readOnly, false),
    values: o.values === undefined || o.values === null ? null : bool('values', o.values, true),
    onNotice: fn('onNotice', o.onNotice) ?? ((m: string): void => void process.stderr.write(`drum: ${m}\n`)),
    now: fn('now', o.now) ?? Date.now,
    tuning: { ...(o.tuning ?? {}) },
    faultHook: fn('faultHook', o.faultHook ?? undefined) ?? null,
  };
  // The budget is what the whole process may use: below the measured floor it cannot be honoured.
  assertHonourableBudget(resolved);
  return resolved;
}

/**
 * The smallest memoryBytes drum accepts for these options (whole MiB): the
 * measured process floor for the workers, the configured hot cache and
 * recent table, IO buffers and the smallest buckets (minimumBudgetBytes).
 * Without `workers`, the worker count is the default one at `o.memoryBytes`
 * (256 MiB if absent) on `cores` cores, as in resolveOptions; a smaller
 * budget still opens, with fewer default workers (down to the 0-worker
 * floor, `minimumMemoryBytes({ ...o, workers: 0 })`).
 */
export function minimumMemoryBytes(o: DrumOptions = {}, cores = 2): number {
  return minimumBudgetBytes({
    workers: o.workers ?? defaultWorkers(cores, o.memoryBytes ?? DEFAULTS.memoryBytes),
    buckets: o.buckets ?? DEFAULTS.buckets,
    bloom: o.bloom ?? DEFAULTS.bloom,
    cacheEntries: o.cacheEntries ?? DEFAULTS.cacheEntries,
    recentEntries: o.recentEntries ?? DEFAULTS.recentEntries,
    journalKeys: o.journalKeys ?? DEFAULTS.journalKeys,
  });
}

const SIZE_RE = /^(\d+(?:\.\d+)?)\s*(b|k|kb|kib|m|mb|mib|g|gb|gib|t|tb|tib)?$/i;
const UNIT: Record<string, number> = {
  b: 1, k: 1024, kb: 1e3, kib: 1024, m: 1024 ** 2, mb: 1e6, mib: 1024 ** 2,
  g: 1024 ** 3, gb: 1e9, gib: 1024 ** 3, t: 1024 ** 4, tb: 1e12, tib: 1024 ** 4,
};

/** Parses "256MiB", "1g", "512000" into bytes; DRUM_BAD_OPTION otherwise. */
export function parseSize(text: string): number {
  const m = SIZE_RE.exec(text.trim());
  if (!m) bad(`not a size: ${JSON.stringify(text)} (try 256MiB)`);
  return Math.floor(Number(m[1]) * UNIT[(m[2] ?? 'b').toLowerCase()]!);
}
