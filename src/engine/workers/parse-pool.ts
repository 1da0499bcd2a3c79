// Runs the parse stage on worker threads so canonicalize + hash use the
// other cores while the main thread routes keys, merges and writes. Results
// come back in submission order. With 0 workers it parses inline. Parses a
// chunk on a worker or, when its caller says so, on the calling thread
// (work sharing: read-loop.ts decides, with isParsed), and decides when the
// workers start (lazy) and where each thread's line memo table is. Also
// lends worker 0 to a merge round: its sort units (sortKeys, sort-stage.ts)
// and its dispatch (scanAux, dispatch-worker.ts). Does not read inputs or
// touch the store; the workers' lifecycle and message protocol are
// parse-threads.ts's.
// Memory: chunks and results cross threads packed in slabs of one SlabPool
// (main thread). A chunk's slab comes back with its result; a result's slab
// comes back when the consumer calls release() (optional: an unreleased one
// is just garbage). So the steady state allocates no chunk-sized buffers.
// REQUIRES: close() when done (the workers keep the process alive).

import type { CanonicalPolicy } from '../../canonicalize/types.js';
import type { LineChunk } from '../../input/types.js';
import type { DispatchBlock, ScanRequest, ScanResult } from './dispatch-scan.js';
import { chunkSlabBytes, packChunk, packParsed, parsedSlabBytes, parsedSlabGuess } from '../pipeline/pack.js';
import { Parser, type ParsedChunk } from '../pipeline/parse.js';
import { ParseThreads } from './parse-threads.js';
import type { SortMessage } from './parse-worker.js';
import { SlabPool } from './slab-pool.js';

/**
 * A parse in progress or done; `result` is set once its reply is taken. On a
 * worker: `worker` and `nth`, its chunk's number there (ParsePool.isParsed).
 */
export interface ParseJob {
  result: ParsedChunk | null;
  promise: Promise<ParsedChunk> | null;
  worker: number;
  nth: number;
}

/**
 * Free slabs kept per worker: enough for the chunks and results of a read
 * loop's in-flight jobs (each holds at most a chunk slab and a result slab).
 */
const SLABS_PER_WORKER = 8;

export class ParsePool {
  private readonly threads: ParseThreads;
  private readonly inline: Parser | null;
  private started = false;
  /** Workers' memo tables loaded before the workers started (worker i's at i). */
  private unstarted: Uint32Array[] = [];
  /** Results parsed here before the workers started and not yet released: a chunk submitted while one is held starts them. */
  private held = 0;

  /** Chunks parsed on the main thread (work sharing, or before the workers started). */
  inlineChunks = 0;
  private readonly local: Parser;
  /** Slabs for chunks sent to workers and for results (the workers' and the main thread's). */
  readonly slabs: SlabPool;

  /**
   * `memoEntries`: line memo size of each parsing thread (the main thread's
   * included); 0 = off. `lazy`: start the workers only when a chunk is
   * submitted while another is still in flight, or warm() (a job with a big
   * input) or a worker parse, sort or scan asks for one, so an input
   * of one chunk never pays their start (module loading, ~100-200 ms here).
   */
  constructor(
    private readonly policy: CanonicalPolicy,
    private readonly hostBits: number,
    private readonly planned: number,
    private readonly memoCount = 0,
    lazy = false,
    private readonly wasm = true,
  ) {
    this.inline = planned === 0 ? new Parser(policy, hostBits, memoCount, wasm) : null;
    this.local = this.inline ?? new Parser(policy, hostBits, memoCount, wasm);
    this.slabs = new SlabPool(SLABS_PER_WORKER * planned);
    this.threads = new ParseThreads(this.slabs);
    if (!lazy) this.start();
  }

  /** Starts lazy workers now (a job that knows its input is bigger than a chunk), so they load while it sets up. */
  warm(): void {
    this.start();
  }

  /** Starts the planned workers (once) and hands them the memo tables loaded before they ran. */
  private start(): void {
    if (this.started || this.threads.closing) return;
    this.started = true;
    this.threads.start(this.planned, { policy: this.policy, hostBits: this.hostBits, memoEntries: this.memoCount, wasm: this.wasm });
    const tables = this.unstarted;
    this.unstarted = [];
    this.threads.giveMemos(tables);
  }

  /** Worker threads this pool parses with (started or not yet). */
  get size(): number {
    return this.planned;
  }

  /** Worker threads running now: sorts and dispatch scans go to a worker only when one already runs. */
  get running(): number {
    return this.threads.workers.length;
  }

  /** Line memo entries of each parsing thread (0 when off). */
  get memoEntries(): number {
    return this.local.memo.entries;
  }

  /** Threads that parse (workers and the main thread, which parses when they are busy). */
  static parsingThreads(workers: number): number {
    return workers + 1;
  }

  /**
   * Every thread forgets its line memo. Call when the engine drops keys the
   * memo may vouch for (failed merge or run); a worker handles it after the
   * chunks already queued to it, which belong to the abandoned work.
   */
  clearMemo(): void {
    this.local.memo.clear();
    this.unstarted = [];
    this.threads.clearMemos();
  }

  /**
   * Every thread's line memo table, lent without a copy (the main thread's
   * first); give them back with returnMemoTables. The workers answer after
   * the chunks queued to them: call only when none are in flight, or the
   * tables include lines of chunks not yet routed. Empty when the memos are
   * off or the pool has failed.
   */
  async lendMemoTables(): Promise<Uint32Array[]> {
    if (!this.local.memo.enabled || this.threads.failed) return [];
    const own = this.local.memo.tableView();
    if (!this.started) return [own, ...this.unstarted];
    const tables = [own, ...(await this.threads.lendMemos())];
    // A worker that died meanwhile answered with an empty table: a failed pool lends nothing (it parses nothing more either).
    return this.threads.failed ? [] : tables;
  }

  /** Gives the tables lendMemoTables lent back to their workers (the main thread's never left). */
  returnMemoTables(tables: readonly Uint32Array[]): void {
    if (!this.started) return; // the unstarted workers' tables never left
    this.threads.giveMemos(tables.slice(1).map((t) => (t.length > 0 ? t : undefined)));
  }

  /**
   * Takes saved memo tables as the threads' own (no copy): the main thread's
   * memo the first, worker i the (i + 2)th; extra tables are dropped.
   */
  loadMemoTables(tables: readonly Uint32Array[]): void {
    if (tables.length === 0 || !this.local.memo.enabled) return;
    this.local.memo.adoptTable(tables[0]!);
    if (!this.started) {
      this.unstarted = tables.slice(1, 1 + this.planned);
      return;
    }
    this.threads.giveMemos(tables.slice(1));
  }

  /**
   * Parses a chunk. Inline: synchronously, and the result is only valid until
   * the next call. Pooled: the chunk is copied to a worker (round robin), so
   * the caller may reuse the chunk's memory as soon as this returns.
   * `learn` false: the line memos answer but remember nothing (a check);
   * `memo` false: they are not asked (ingest --graph).
   */
  parse(chunk: LineChunk, learn = true, memo = true): Promise<ParsedChunk> | ParsedChunk {
    if (this.threads.failed) throw this.threads.failed;
    if (this.inline !== null) {
      const t = performance.now();
      const r = this.inline.parse(chunk, learn, memo);
      r.parseMs = performance.now() - t;
      return r;
    }
    return this.post(chunk, learn, memo).promise;
  }

  /** Copies the chunk into a slab and posts it to a worker (started now if need be). */
  private post(chunk: LineChunk, learn: boolean, memo: boolean): { promise: Promise<ParsedChunk>; worker: number; nth: number } {
    this.start();
    const slab = this.slabs.take(chunkSlabBytes(chunk));
    const out = this.slabs.take(parsedSlabGuess(chunk));
    return this.threads.parse({ chunk: packChunk(chunk, slab), slab, out, learn, memo });
  }

  /**
   * Work sharing: sends the chunk to a worker, or with `here` (the caller
   * would otherwise wait for a worker: readLoop) parses it on this thread,
   * so both cores stay busy whichever stage is the slower one. Parsed here
   * too while the workers have not started. The job's result is its own
   * copy, valid until release()d; the chunk is not referenced once this
   * returns.
   */
  submit(chunk: LineChunk, learn = true, memo = true, here = false): ParseJob {
    if (this.threads.failed) throw this.threads.failed;
    // A second chunk while the first is still in flight: an input of several chunks, worth a worker.
    if (this.held > 0) this.start();
    if (this.running === 0 || here) {
      const t = performance.now();
      // With workers planned, results are packed copies: a later chunk may be parsed here before this one is routed.
      const r = this.planned === 0 ? this.local.parse(chunk, learn, memo) : this.pack(this.local.parse(chunk, learn, memo));
      r.parseMs = performance.now() - t;
      this.inlineChunks++;
      if (!this.started) this.held++;
      return { result: r, promise: null, worker: -1, nth: 0 };
    }
    const posted = this.post(chunk, learn, memo);
    const job: ParseJob = { result: null, promise: null, worker: posted.worker, nth: posted.nth };
    job.promise = posted.promise.then((r) => (job.result = r));
    return job;
  }

  /** Whether the job's chunk is parsed: its result taken, or its worker done with it and the reply on its way. */
  isParsed(job: ParseJob): boolean {
    return job.result !== null || (job.worker >= 0 && this.threads.isParsed(job.worker, job.nth));
  }

  /**
   * Has worker 0 sort a merge round's unit in place (sortUnique over
   * SharedArrayBuffer views, so nothing is copied); resolves with the number
   * of unique keys. The caller must not touch the arrays until it settles.
   */
  sortKeys(job: Omit<SortMessage, 'sortId'>): Promise<number> {
    if (this.threads.failed) return Promise.reject(this.threads.failed);
    this.start();
    return this.threads.sort(job);
  }

  /** Has worker 0 scan a round's aux log (dispatch.ts WorkerScans: block order, recycling, errors). */
  scanAux(req: ScanRequest, onBlock: (b: DispatchBlock) => void, sizes: { blockBytes?: number; blockUrls?: number } = {}): Promise<ScanResult> {
    if (this.threads.failed) return Promise.reject(this.threads.failed);
    this.start();
    return this.threads.scan(req, onBlock, sizes);
  }

  /**
   * The consumer is done with a result: its slab goes back to the pool and
   * its arrays detach (length 0), so a stale use reads nothing rather than
   * another chunk's data. A no-op for results that own no slab (inline
   * parsing with 0 workers). Call at most once per result.
   */
  release(p: ParsedChunk): void {
    if (!this.started && this.held > 0) this.held--;
    if (p.slab === null) return;
    const slab = p.slab;
    p.slab = null;
    this.slabs.give(slab);
  }

  private pack(p: ParsedChunk): ParsedChunk {
    return packParsed(p, this.slabs.take(parsedSlabBytes(p)));
  }

  async close(): Promise<void> {
    await this.threads.close();
    this.slabs.clear();
  }
}
