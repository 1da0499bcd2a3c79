// Splits the one RAM budget (--memory) among drum's data structures: the
// in-RAM tiers, the RAM bucket buffers, the merge's sort area and new-URL
// bitmap, and a reserve for the runtime itself (V8 heap, worker threads, IO
// buffers), and refuses a budget below the measured process floor: the
// budget is what the whole process may use; also how many parse workers a
// budget affords by default (defaultWorkers). Pure arithmetic; the report
// prints the split.

import { HotCache } from '../../tiers/hot-cache.js';
import { LineMemo } from '../../tiers/line-memo.js';
import { RecentTable } from '../../tiers/recent-table.js';
import type { ResolvedOptions } from '../../options.js';
import { DrumError } from '../../errors.js';
import { HOST_PARTS_RAM_BYTES } from '../hosts/host-parts.js';
import { EVENTS_RAM_BYTES } from '../core/value-events.js';
import { valueChainRamBytes } from '../core/values-pass.js';
import { JournalTable } from '../../store/journal/journal-table.js';
import { URL_VALUE_WORDS } from '../url-seen/url-values.js';

/** Bytes of a pending entry: hi, lo, ordinal and, in a store with values, the seed it carries to the values pass. */
export function entryBytes(valued: boolean): number {
  return valued ? 4 + 4 + 4 + 4 : 4 + 4 + 4;
}

/**
 * Bytes per pending entry in the sort area: two slots of entries (the
 * worker sorts one while the main thread merges the other) and the radix
 * sort's scratch copy; with no worker, one slot and the scratch.
 */
export function sortBytesPerEntry(workers: number, valued = false): number {
  return (workers > 0 ? 3 : 2) * entryBytes(valued);
}
/** Bytes per pending entry in a RAM bucket buffer (a keys-only store's: the smallest plan is sized by it). */
export const BUFFER_BYTES_PER_ENTRY = entryBytes(false);

export interface BudgetPlan {
  totalBytes: number;
  runtimeReserve: number;
  hotCache: number;
  recentTable: number;
  /** Line memos of every parsing thread (workers + main). */
  lineMemo: number;
  /** Line memo entries per parsing thread. */
  lineMemoEntries: number;
  bloom: number;
  /** The key journal's table when full (options.journalKeys). */
  journal: number;
  bucketBuffers: number;
  sortArea: number;
  newBitmap: number;
  /** A round's fixed working set: its host-count parts in RAM and, with values, the value events' RAM and the values deltas' read chunks. */
  roundWork: number;
  ioBuffers: number;
  /** Entries per bucket RAM buffer. */
  bufferEntries: number;
  /** A merge starts once a bucket holds this many entries (default: never; a big bucket is sorted in slices). */
  maxBucketEntries: number;
  /** Entries one sort holds: the sort area / sortBytesPerEntry(workers). */
  sortEntries: number;
  /** A merge starts once a round holds this many entries (the new-URL bitmap must fit: nothing else of a round is per record in RAM). */
  maxRoundEntries: number;
  /** Entries a round can reach: the merge starts after the chunk that crosses maxRoundEntries. */
  roundCapacity: number;
  /** Keys the Bloom filter may be sized for at most. */
  bloomMaxKeys: number;
}

/** Line memo entries per parsing thread unless the budget is too small for them (or the user chose). */
export const DEFAULT_LINE_MEMO_ENTRIES = 1 << 20;

export const IO_BUFFER_BYTES = 8 << 20; // aux log, unique writer, store reads/writes, input chunks
/**
 * What the runtime itself takes, measured on the bench's 100 M-link file
 * (scripts/memory-probe.ts, docs/engineering-log.md "Memory at 100 M links"):
 * peak RSS minus drum's budgeted structures was ~159 MiB — Node's own code
 * pages (~42 MiB) and V8 heaps of both threads (~40 MiB), malloc arenas,
 * chunks and dispatch blocks in flight, the catalog's LevelDB. Plus ~10 %.
 * On smaller budgets, at most RESERVE_SHARE of the budget, never less than
 * the process floor below (the runtime does not shrink with --memory).
 */
export const RUNTIME_RESERVE_BYTES = 176 << 20;
export const RESERVE_SHARE = 0.7;

/**
 * The process floor: peak RSS of drum's own runtime (Node, V8 heaps, code
 * pages, LevelDB, chunks in flight) without its budgeted structures (~26 MiB
 * at the smallest plan), the WebAssembly memory below included, at the
 * smallest plan (docs/performance.md "Memory floor"). Remeasured on the
 * bench's 10 M-link file, a new store and then 5 M more links into it (the
 * runtime grows with the run; the second ingest, merging with the store's
 * key files, peaked highest; RSS varies ~10 MiB from run to run): at most
 * ~126 MiB with no worker, ~153 / 176 / 211 MiB with 1 / 2 / 3 workers
 * (~28 MiB a worker). The old 112 + 32 MiB a worker (with WebAssembly 116 +
 * 36) left a 0-worker ingest at 141 of 142 MiB and let the second ingest
 * reach 146.7. Now 140 MiB with no worker and 30 MiB a worker, WebAssembly
 * included: 9-14 % over each measured peak.
 */
export const PROCESS_FLOOR_BYTES = 136 << 20;
/** What each parse worker thread adds to the process floor (its isolate, heap and chunks in flight), besides its WebAssembly memory. */
export const WORKER_FLOOR_BYTES = 26 << 20;

/**
 * Linear memory of the WebAssembly canonicalization fast path in each
 * parsing thread (src/canonicalize/wasm.ts): a 1 MiB chunk, its canonical
 * bytes and a scratch copy, with per-line arrays, ~3.4 MiB in 64 KiB pages.
 * Measured besides the floors above when it came: a 10 M-link ingest at the
 * then 0-worker minimum peaked at 141 MiB with it, 137.5 without.
 */
export const CANON_WASM_BYTES = 4 << 20;

/** The runtime part of the floor with `workers` parse threads (and the main thread, which parses too). */
export function runtimeFloor(workers: number): number {
  return PROCESS_FLOOR_BYTES + workers * WORKER_FLOOR_BYTES + (workers + 1) * CANON_WASM_BYTES;
}

/** The sort area of the smallest plan; no plan gives it less. */
export const SMALLEST_SORT_AREA_BYTES = 1 << 20;

/** Bucket buffers and sort area of the smallest plan: 1,024 entries per bucket buffer, 1 MiB of sort area (Bloom: a third more). */
function smallestBuckets(o: Pick<ResolvedOptions, 'buckets' | 'bloom'>): number {
  const minLeft = o.buckets * 1024 * BUFFER_BYTES_PER_ENTRY + SMALLEST_SORT_AREA_BYTES;
  return o.bloom === 'off' ? minLeft : Math.ceil((minLeft * 4) / 3); // the Bloom filter takes a quarter of what is left
}

/**
 * The smallest budget drum can honour, in whole MiB: the process floor for
 * these workers, the configured hot cache and recent table, the IO buffers
 * and the smallest buckets (line memos are sized down to nothing first).
 * A smaller --memory is refused: the process would use more than it was given.
 */
export function minimumBudgetBytes(o: Pick<ResolvedOptions, 'workers' | 'buckets' | 'bloom' | 'cacheEntries' | 'recentEntries' | 'journalKeys'>): number {
  const need = runtimeFloor(o.workers) + HotCache.bytesFor(o.cacheEntries) + RecentTable.bytesFor(o.recentEntries) + journalBytes(o.journalKeys) +
    IO_BUFFER_BYTES + smallestBuckets(o);
  return Math.ceil(need / 2 ** 20) * 2 ** 20;
}

/** Refuses (DRUM_BAD_OPTION) a budget under minimumBudgetBytes, saying the minimum in MiB. */
export function assertHonourableBudget(o: Pick<ResolvedOptions, 'memoryBytes' | 'workers' | 'buckets' | 'bloom' | 'cacheEntries' | 'recentEntries' | 'journalKeys'>): void {
  const minimum = minimumBudgetBytes(o);
  if (o.memoryBytes >= minimum) return;
  throw new DrumError('DRUM_BAD_OPTION', `memory budget (memoryBytes, --memory) ${mib(o.memoryBytes)} MiB cannot be honoured: drum needs at least ${mib(minimum)} MiB ` +
    `with ${o.workers} worker${o.workers === 1 ? '' : 's'}, ${o.buckets} buckets and these tier sizes (the process itself takes about ` +
    `${mib(runtimeFloor(o.workers))} MiB; docs/cli.md, --memory)`);
}

/** `valued`: the store keeps values (each pending entry carries a seed word: bucket buffers and sort area hold fewer entries). */
export function planBudget(o: ResolvedOptions, chunkLinksMax: number, valued = false): BudgetPlan {
  const total = o.memoryBytes;
  assertHonourableBudget(o);
  const hotCache = HotCache.bytesFor(o.cacheEntries);
  const recentTable = RecentTable.bytesFor(o.recentEntries);
  const minLeft = o.buckets * 1024 * BUFFER_BYTES_PER_ENTRY + (1 << 20);
  const smallest = smallestBuckets(o);
  // The key journal's table at its fullest (its keys, values and slots).
  const journal = journalBytes(o.journalKeys, valued);
  // Never less than the measured floor of this many threads; more on a larger budget, up to the 100 M-link figure.
  const runtimeReserve = Math.max(
    runtimeFloor(o.workers),
    Math.min(RUNTIME_RESERVE_BYTES, Math.floor(total * RESERVE_SHARE), total - hotCache - recentTable - journal - IO_BUFFER_BYTES - smallest),
  );
  const threads = o.workers + 1;
  // A round's fixed working set, whatever its size: the host-count parts it keeps in RAM and, with values, the value
  // events' RAM and the read chunks of a bucket's values deltas.
  const roundWanted = HOST_PARTS_RAM_BYTES + (valued ? EVENTS_RAM_BYTES + valueChainRamBytes(URL_VALUE_WORDS) : 0);
  // What is left for the Bloom filter and the buckets once the line memos take `memo` entries per thread.
  const rest = (memo: number): number => total - runtimeReserve - hotCache - recentTable - journal - threads * LineMemo.bytesFor(memo) - IO_BUFFER_BYTES;
  let lineMemoEntries = o.lineMemoEntries ?? DEFAULT_LINE_MEMO_ENTRIES;
  if (o.lineMemoEntries === null) {
    // Sized here: at most 1/16 of the budget, and never at the expense of the buckets or the round's working set.
    while (lineMemoEntries > 0 && (threads * LineMemo.bytesFor(lineMemoEntries) > total / 16 || bucketsLeft(rest(lineMemoEntries), o) < minLeft + roundWanted)) {
      lineMemoEntries = lineMemoEntries > 1024 ? lineMemoEntries / 2 : 0;
    }
  }
  const lineMemo = threads * LineMemo.bytesFor(lineMemoEntries);
  let left = rest(lineMemoEntries);
  // Bloom: up to a quarter of what is left; the report states the FP rate that buys.
  const bloom = o.bloom === 'off' ? 0 : Math.floor(left / 4);
  left -= bloom;
  if (left < minLeft) {
    throw new DrumError(
      'DRUM_BAD_OPTION',
      `memory budget ${total} bytes is too small for ${o.buckets} buckets with these tier sizes (need about ${total - left + minLeft})`,
    );
  }
  const newBitmap = Math.floor(left / 16);
  // Bucket buffers only batch spill writes (sequential appends): a sixth is plenty.
  const bucketBuffers = Math.floor((left - newBitmap) / 6);
  // The round's working set comes out of the sort area's share (a round's size is the bitmap's), as far
  // as the sort area keeps its smallest size (on the smallest budgets the working set is planned short).
  const roundWork = Math.max(0, Math.min(roundWanted, left - newBitmap - bucketBuffers - SMALLEST_SORT_AREA_BYTES));
  const sortArea = left - newBitmap - bucketBuffers - roundWork;
  const bufferEntries = Math.max(16, Math.floor(bucketBuffers / (o.buckets * entryBytes(valued))));
  // A bucket bigger than the sort area is sorted one key slice at a time, so no bucket size forces a merge.
  const sortEntries = Math.max(1024, Math.floor(sortArea / sortBytesPerEntry(o.workers, valued)));
  const maxRoundEntries = Math.max(1, Math.min(2 ** 32 - 1 - chunkLinksMax, newBitmap * 8 - chunkLinksMax, o.mergeEvery ?? Number.POSITIVE_INFINITY));
  const bloomMaxKeys = o.bloom === 'off' ? 0 : Math.floor((bloom * 8) / o.bloomBitsPerKey);
  const t = o.tuning;
  return {
    totalBytes: total, runtimeReserve, hotCache, recentTable, lineMemo, lineMemoEntries, bloom, journal, roundWork, bucketBuffers, sortArea, newBitmap,
    ioBuffers: IO_BUFFER_BYTES,
    bufferEntries: t.bufferEntries ?? bufferEntries,
    maxBucketEntries: t.maxBucketEntries ?? Number.POSITIVE_INFINITY,
    sortEntries: t.sortEntries ?? sortEntries,
    maxRoundEntries: t.maxRoundEntries ?? maxRoundEntries,
    roundCapacity: (t.maxRoundEntries ?? maxRoundEntries) + chunkLinksMax,
    bloomMaxKeys,
  };
}

/** Records (keys that reach the disk check) a round may hold to be a journal round (engine/url-seen/journal-round.ts). */
export const JOURNAL_ROUND_RECORDS = 1 << 18;
/** Bytes per record of the key, seed and ordinal a journal round keeps of each (DrumCore.recordKeys). */
const RECORDED_KEY_BYTES = 3 * 4; // hi, lo, seed

/**
 * The key journal's RAM at its fullest: its table of `keys` keys with URL
 * values (or keys only) and the recorded keys of a journal round; 0 when the journal is off.
 */
function journalBytes(keys: number, valued = true): number {
  return keys === 0 ? 0 : JournalTable.bytesFor(keys, valued ? URL_VALUE_WORDS : 0) + JOURNAL_ROUND_RECORDS * RECORDED_KEY_BYTES;
}

function mib(bytes: number): string {
  return String(Math.round((bytes / 2 ** 20) * 10) / 10);
}

/** What the buckets get of `left` after the Bloom filter's share. */
function bucketsLeft(left: number, o: ResolvedOptions): number {
  return o.bloom === 'off' ? left : left - Math.floor(left / 4);
}

export function budgetSplit(p: BudgetPlan): Record<string, number> {
  return {
    runtimeReserve: p.runtimeReserve, hotCache: p.hotCache, recentTable: p.recentTable, lineMemo: p.lineMemo, bloom: p.bloom, journal: p.journal,
    roundWork: p.roundWork, bucketBuffers: p.bucketBuffers, sortArea: p.sortArea, newBitmap: p.newBitmap, ioBuffers: p.ioBuffers,
  };
}

/** Most links one chunk of `chunkBytes` can hold (shortest line "a:b\n" is 4 bytes, but real links are >= 10). */
export function chunkLinksMax(chunkBytes: number): number {
  return Math.ceil(chunkBytes / 8) + 1;
}

/**
 * What a budget must keep beyond the runtime floor of its threads for the
 * tiers, buckets, sort area and new-URL bitmap: with less, the planned sort
 * area falls to nothing (planBudget). At exactly this much, a keys-only
 * store sorts ≥ 255 k keys at a time (160 to 320 MiB, any worker count); a
 * store with values, whose round work and line memos come first, 85 k with
 * 2 workers at 256 MiB and only the smallest area with 3 at 286 MiB.
 */
const MIN_WORKING_BYTES = 56 << 20;

/**
 * The default number of parse workers: one per core beyond the first, at
 * most 3, and no more than the budget keeps MIN_WORKING_BYTES beside. Each
 * worker's runtime takes 30 MiB; at 256 MiB a third one left the sort area
 * nothing, so every bucket was sorted in slices of 1,024 keys (a 10 M-link
 * ingest's sort 0.37 s -> 2.9 s).
 */
export function defaultWorkers(cores: number, memoryBytes: number): number {
  let w = Math.min(3, Math.max(0, cores - 1));
  while (w > 0 && memoryBytes - runtimeFloor(w) < MIN_WORKING_BYTES) w--;
  return w;
}
