// The DRUM core, generic: IRLbot's check / update / check+update over 64-bit
// keys, and delete. A client adds keys (hi, lo u32 words), each with an aux payload (a
// byte string carried in arrival order in the aux log); each key gets the
// next arrival ordinal. merge(op) runs one round: every bucket's pending keys
// are sorted, deduplicated and merged sequentially with the bucket's sorted
// key file (sort-stage.ts, store/keys/merge.ts), and the round's verdicts are one
// bit per ordinal (set: the key was in neither the file nor earlier in the
// round). Then, for 'check' and 'check+update', the aux payloads of the new
// ordinals are dispatched in arrival order: per record to `emit`, or in
// whole blocks through the worker to `sink` (a round with neither, such as
// a store of content fingerprints whose answers are its values, does not
// read the aux log back). 'update' stores and dispatches
// nothing. 'check' writes no file; the others write the union where the
// client's BucketFiles say. 'delete' writes each file without the pending
// keys found in it; its bits mark those found keys (removed), and their
// payloads are dispatched like new ones.
// Values (stores created with them): each key has a fixed-width value of
// `valueWords` u32 words, in a values file per bucket beside its key file
// (same order; docs/file-format.md). A round given `values` records where
// each merged key lands (store/keys/merge.ts), and once every verdict is known — a new
// key's rank among the round's new ordinals needs all of them — writes each
// touched bucket's values file in a second sequential pass while the key
// files' fsyncs run on the thread pool, then waits for both
// (values-pass.ts, store/values/value-merge.ts): `fill` makes a new key's value from its ordinal,
// its rank and its seed (one u32 word given to add() that travels with the
// key through seeded buckets and the sort, as IRLbot's value rides in the
// <key, value> bucket, so a round keeps nothing per record in RAM and its
// size is bounded by disk, not the budget; 0 for a client without seeds), `update` may change a hit's value, `out` sees every new and hit
// ordinal's value; 'delete' drops the found keys' values. A bucket with no
// new, changed or dropped value keeps its values file. A round with neither
// hook that only inserts may write a bucket's new values as a delta after
// its values file instead of rewriting it, where the client's files allow
// (ValueFiles.deltas; values-pass.ts).
// The core knows nothing of URLs, tiers, runs or manifests: URL-seen
// (src/engine/url-seen/: round, commit and journal round, with the tiers of
// front.ts) is one client; a store
// of content fingerprints is another. It does not commit: the client names
// the written files in its manifest, then calls reset().
// REQUIRES: add() ordinals ascending (they are: the core hands them out);
// one merge at a time; the aux payload of one record at most
// AUX_MAX_URL_BYTES.

import { DrumError } from '../../errors.js';
import type { AuxLog } from '../../bucket/aux-log.js';
import type { PendingBuckets } from '../../bucket/pending.js';
import type { DrumFs } from '../../io/fs.js';
import type { RunCounters } from '../../stats/counters.js';
import { dispatchOnWorker, type BlockSink } from '../workers/dispatch.js';
import type { ParsePool } from '../workers/parse-pool.js';
import { newValueBuffers, type ValueBuffers, type ValueSource } from '../../store/values/value-io.js';
import { DELTA_POSITION_BYTES } from '../../store/values/values-format.js';
import type { ValueChainShape } from '../../store/values/value-chain.js';
import type { ValueHooks } from '../../store/values/value-merge.js';
import { MAX_DELTAS, readValuesPass, writeValuesPass, type ValuesPassContext } from './values-pass.js';
import { mergeBuckets, type BucketFiles, type Written } from './sort-stage.js';
import type { SortArea } from './sort-area.js';
import { ValueEvents } from './value-events.js';

/** DRUM's three operations (answer only, store only, or both) and delete. */
export type CoreOp = 'check' | 'update' | 'check+update' | 'delete';

/** Rounds with fewer aux records sort and dispatch on this thread: worker round trips would cost more. */
export const WORKER_DISPATCH_MIN_RECORDS = 1 << 16;

/** The counters a round adds to (disk lookups and hits, in-round repeats, duplicates). */
export type CoreCounters = Pick<RunCounters, 'diskLookups' | 'inRoundRepeats' | 'diskHits' | 'duplicateUrls' | 'storeHits'>;

/** Where a round reads and writes values files (stores with values). */
export interface ValueFiles {
  /** Bucket b's committed values, or null when the bucket is empty; `buffers`, when given, are lent to the reader. */
  openValues(b: number, buffers?: ValueBuffers): ValueSource | null;
  /** Path of bucket b's values file for this round's output. */
  valuesOutputPath(b: number): string;
  /**
   * Stores whose buckets' values may be a base file and insert deltas
   * (values-pass.ts deltaFits): bucket b's committed chain (null: no values
   * file) and the path of its delta for this round's output. Absent: every
   * round that changes a bucket's values writes its values file whole.
   */
  deltas?: { chainOf(b: number): ValueChainShape | null; outputPath(b: number): string };
}

/** A round's values: where the files are and the client's hooks (store/values/value-merge.ts ValueHooks). */
export interface CoreValues extends ValueHooks {
  files: ValueFiles;
}

/** A written bucket: its key file and, when its values changed, its values file. */
export type WrittenBucket = Written;

/** What a client gives a round besides its keys: where the files are and where the answers go. */
export interface CoreRound {
  files: BucketFiles;
  fsync: boolean;
  counters: CoreCounters;
  /** Each pending key found in the file (e.g. to warm a cache), or null. Not called by 'delete'. */
  onHit: ((hi: number, lo: number) => void) | null;
  /** Receives every key written to (or, for untouched buckets, kept in) the files, e.g. a Bloom rebuild; or null. */
  keySink: ((keys: Uint32Array, n: number) => void) | null;
  /** Each new record's aux payload in arrival order (dispatch on this thread). */
  emit?: (buf: Buffer, start: number, end: number, ordinal: number) => void;
  /** With the worker: the new records go to `sink` in whole blocks of "payload\n" lines instead of `emit`. */
  sink?: BlockSink;
  /**
   * The pool whose worker the round uses when it has one and the round holds
   * at least `minRecords` records (default WORKER_DISPATCH_MIN_RECORDS): it
   * sorts the units (overlapping this thread's merge) and, given a `sink`,
   * dispatches; smaller rounds do both on this thread.
   */
  worker?: { pool: ParsePool; minRecords?: number };
  /** Adds wall time per sub-stage: 'sort', 'merge-store', 'merge-values', 'dispatch'. */
  time?: (stage: string, ms: number, items: number) => void;
  /** Stores with values, rounds that write: the values files and hooks. Absent: keys only. */
  values?: CoreValues;
}

/** What a round gives back. */
export interface CoreVerdicts {
  /**
   * Bit o set when ordinal o's key was new — for 'delete': was found, and
   * removed (in a SharedArrayBuffer). Valid until the next round.
   */
  newBits: Uint8Array;
  /** Ordinals this round handed out: 0 .. records - 1. */
  records: number;
  /** Bits set in newBits: new keys ('delete': removed keys). */
  newKeys: number;
  /** Files written, by bucket (none for 'check'). */
  written: Map<number, WrittenBucket>;
}

export class DrumCore {
  /** The values pass's record of where merged keys landed (stores with values). */
  private readonly events: ValueEvents | null;
  /** Read and write buffers lent to every bucket's values reader and writer in turn. */
  readonly valueBuffers: ValueBuffers | null;
  /** Write buffers lent to every bucket's delta writer in turn (one block of entries). */
  private readonly deltaBuffers: ValueBuffers | null;
  /** Key and seed of each of a round's first `recordedKeys` ordinals (hi, lo, seed): a journal round stores its new keys from them. */
  private keyRecord = new Uint32Array(0);
  /** Ordinals below this have their key in keyRecord (0: none recorded). */
  recordedKeys = 0;

  /**
   * `valueWords`: u32 words per value (0: keys only); `eventsPath`: the work
   * file a round's value events spill to (required with values).
   */
  constructor(
    readonly dfs: DrumFs,
    readonly pending: PendingBuckets,
    readonly aux: AuxLog,
    readonly area: SortArea,
    readonly valueWords = 0,
    eventsPath = '',
  ) {
    // Seeds are for clients whose new values need something of the record (URL-seen: the host check); fill() gets 0 otherwise.
    if (pending.seeded !== area.seeded || (pending.seeded && valueWords === 0)) {
      throw new DrumError('DRUM_INTERNAL', 'DrumCore: buckets and sort area must agree on seeds, and seeds need values');
    }
    this.events = valueWords > 0 ? new ValueEvents(dfs, eventsPath) : null;
    // With a read chunk for each delta a chain may have (values-pass.ts valueChainRamBytes): reading a chain allocates nothing.
    this.valueBuffers = valueWords > 0 ? newValueBuffers(4 * valueWords, undefined, MAX_DELTAS) : null;
    this.deltaBuffers = valueWords > 0 ? newValueBuffers(4 * valueWords + DELTA_POSITION_BYTES, 1) : null;
  }

  /** Ordinals handed out this round (the next add() gets this one). */
  get records(): number {
    return this.aux.records;
  }

  /**
   * Adds key (hi, lo) with aux payload src[start, end) under the next
   * ordinal; `prevStart/prevEnd` name the previous payload in `src`, if any
   * (the aux log codes the shared prefix). `seed` (stores with values)
   * travels with the key through the buckets to the values pass, where
   * fill() gets it. Returns the ordinal.
   */
  add(hi: number, lo: number, src: Uint8Array, start: number, end: number, prevStart = -1, prevEnd = -1, seed = 0): number {
    const o = this.aux.records;
    if (o < this.recordedKeys) {
      const r = this.keyRecord;
      r[3 * o] = hi;
      r[3 * o + 1] = lo;
      r[3 * o + 2] = seed;
    }
    this.pending.add(hi, lo, o, seed);
    this.aux.append(src, start, end, prevStart, prevEnd);
    return o;
  }

  /** Records the key and seed of a round's first `n` ordinals from now on (keyOf); 0 stops it. */
  recordKeys(n: number): void {
    if (this.keyRecord.length < 3 * n) this.keyRecord = new Uint32Array(3 * n);
    this.recordedKeys = n;
  }

  /**
   * Ordinal o's key and seed as [hi, lo, seed] at out[at..]. REQUIRES: o
   * below recordedKeys, which was set before the round's first add().
   */
  keyOf(o: number, out: Uint32Array, at: number): void {
    if (o >= this.recordedKeys) throw new DrumError('DRUM_INTERNAL', `DrumCore.keyOf: ordinal ${o} was not recorded`);
    const r = this.keyRecord;
    out[at] = r[3 * o]!;
    out[at + 1] = r[3 * o + 1]!;
    out[at + 2] = r[3 * o + 2]!;
  }

  /** Runs one round of `op` over everything added since the last reset(). */
  async merge(op: CoreOp, r: CoreRound): Promise<CoreVerdicts> {
    const { pending, aux } = this;
    aux.flush();
    const records = aux.records;
    // Shared, so a worker can read it without a copy.
    const newBits = new Uint8Array(new SharedArrayBuffer((records >>> 3) + 1));
    const w = r.worker;
    const worker = w !== undefined && w.pool.running > 0 && records > 0 && records >= (w.minRecords ?? WORKER_DISPATCH_MIN_RECORDS) ? w.pool : null;
    // A check reads values only to hand them out (hits' values to `out`); the other ops write them.
    const values = r.values !== undefined && this.events !== null && (op !== 'check' || r.values.out !== null) ? r.values : null;
    const events = values === null ? null : this.events;
    if (events !== null) {
      events.reset();
      events.hits = values!.update !== null || values!.out !== null;
    }
    // A round that writes values writes them while its key files' fsyncs run; a check reads them after.
    const writesValues = values !== null && op !== 'check';
    // A failed round's files, values files too, are removed by mergeBuckets (sort-stage.ts abandonRound).
    const writeValues = (w: Map<number, WrittenBucket>): Promise<void> => writeValuesPass(this.valuesCtx(), op, values!, w, newBits, records, r);
    let written: Map<number, WrittenBucket>;
    try {
      written = await mergeBuckets({
        dfs: this.dfs, pending, files: r.files, write: op !== 'check', drop: op === 'delete', fsync: r.fsync, counters: r.counters, newBits,
        onHit: r.onHit, keySink: r.keySink, worker, time: r.time, events, ...(writesValues ? { whileSettling: writeValues } : {}),
      }, this.area);
      if (values !== null && !writesValues) readValuesPass(this.valuesCtx(), values, r);
    } finally {
      events?.reset();
    }
    if (op === 'update') return { newBits, records, newKeys: countBits(newBits), written };
    let newKeys = 0;
    const td = performance.now();
    if (worker !== null && r.sink !== undefined) {
      newKeys = await dispatchOnWorker(worker, aux, newBits, r.sink, this.dfs);
    } else if (r.emit === undefined && r.sink === undefined) {
      newKeys = countBits(newBits); // nobody takes the payloads: the aux log is not read back
    } else {
      const emit = r.emit;
      aux.forEachWanted(newBits, 4 << 20, (ordinal, buf, start, end) => {
        emit?.(buf, start, end, ordinal);
        newKeys++;
      });
    }
    r.time?.('dispatch', performance.now() - td, newKeys);
    return { newBits, records, newKeys, written };
  }

  private valuesCtx(): ValuesPassContext {
    return {
      dfs: this.dfs, events: this.events!, valueWords: this.valueWords, buffers: this.valueBuffers!, deltaBuffers: this.deltaBuffers!, buckets: this.pending.count,
    };
  }

  /** Drops everything added since the last round: pending keys and aux log. */
  reset(): void {
    this.pending.reset();
    this.aux.discard();
  }
}

/** Bits set in `bits`. */
export function countBits(bits: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < bits.length; i++) {
    let v = bits[i]!;
    while (v !== 0) {
      v &= v - 1;
      n++;
    }
  }
  return n;
}
