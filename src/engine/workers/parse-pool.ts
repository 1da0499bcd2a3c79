// Runs the parse stage on worker threads so canonicalize + hash use the
// other cores while the main thread routes keys, merges and writes. Results
// come back in submission order. With 0 workers it parses inline. Also lends
// worker 0 to a merge round: its sort units (sortKeys, sort-stage.ts) and
// its dispatch (scanAux, dispatch-worker.ts). Does not read inputs or touch
// the store.
// Memory: chunks and results cross threads packed in slabs of one SlabPool
// (main thread). A chunk's slab comes back with its result; a result's slab
// comes back when the consumer calls release() (optional: an unreleased one
// is just garbage). So the steady state allocates no chunk-sized buffers.

import { Worker } from 'node:worker_threads';
import type { CanonicalPolicy } from '../../canonicalize/types.js';
import { DrumError } from '../../errors.js';
import type { LineChunk } from '../../input/types.js';
import type { DispatchBlock, ScanRequest, ScanResult } from './dispatch-scan.js';
import type { DispatchReply } from './dispatch-worker.js';
import { WorkerScans } from './dispatch.js';
import { chunkSlabBytes, packChunk, packParsed, parsedSlabBytes, parsedSlabGuess, unpackParsed } from '../pipeline/pack.js';
import { Parser, type ParsedChunk } from '../pipeline/parse.js';
import type { SortMessage, SortReply, WorkerJob } from './parse-worker.js';
import { SlabPool } from './slab-pool.js';

interface Pending<T = ParsedChunk> {
  resolve: (p: T) => void;
  reject: (e: unknown) => void;
}

/** A parse in progress or done; `result` is set once it is done. */
export interface ParseJob {
  result: ParsedChunk | null;
  promise: Promise<ParsedChunk> | null;
}

/** Chunks a worker may have queued before the main thread parses the next one itself. */
const WORKER_BACKLOG = 3; // 10 M links, quiet machine: 2 -> 4.29-4.66 s, 3 -> 4.00-4.16 s (the worker idled between chunks)

/**
 * Free slabs kept per worker: enough for the chunks and results of a read
 * loop's in-flight jobs (each holds at most a chunk slab and a result slab).
 */
const SLABS_PER_WORKER = 8;

interface WorkerReply {
  id: number;
  parsed?: ParsedChunk;
  slab?: ArrayBuffer;
  error?: { message: string };
}

export class ParsePool {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, Pending>();
  private readonly scans = new WorkerScans();
  private readonly memoGets = new Map<number, (t: Uint32Array) => void>();
  private readonly sorts = new Map<number, Pending<number>>();
  private closing = false;
  private readonly inline: Parser | null;
  private nextId = 0;
  private failed: unknown = null;
  private started = false;
  /** Workers' memo tables loaded before the workers started (worker i's at i). */
  private unstarted: Uint32Array[] = [];
  /** Results parsed here before the workers started and not yet released: a chunk submitted while one is held starts them. */
  private held = 0;

  /** Chunks parsed on the main thread while the workers were busy (work sharing). */
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
  ) {
    this.inline = planned === 0 ? new Parser(policy, hostBits, memoCount) : null;
    this.local = this.inline ?? new Parser(policy, hostBits, memoCount);
    this.slabs = new SlabPool(SLABS_PER_WORKER * planned);
    if (!lazy) this.start();
  }

  /** Starts lazy workers now (a job that knows its input is bigger than a chunk), so they load while it sets up. */
  warm(): void {
    this.start();
  }

  /** Starts the planned workers (once) and hands them the memo tables loaded before they ran. */
  private start(): void {
    if (this.started || this.closing) return;
    this.started = true;
    for (let i = 0; i < this.planned; i++) {
      const w = new Worker(new URL('./parse-worker.js', import.meta.url), {
        workerData: { policy: this.policy, hostBits: this.hostBits, memoEntries: this.memoCount },
        // A small young generation keeps the worker's heap (and so drum's RSS) small; it only holds a few chunks.
        resourceLimits: { maxYoungGenerationSizeMb: 16 },
      });
      w.on('message', (msg: WorkerReply | DispatchReply | SortReply) => {
        if ('sortId' in msg) {
          const p = this.sorts.get(msg.sortId);
          this.sorts.delete(msg.sortId);
          if ('error' in msg) p?.reject(new DrumError('DRUM_INTERNAL', `sort worker: ${msg.error.message}`));
          else p?.resolve(msg.unique);
          return;
        }
        if (this.scans.has(msg.id)) {
          this.scans.reply(msg as DispatchReply);
          return;
        }
        if ('memo' in msg) {
          this.memoGets.get(msg.id)?.((msg as { memo: Uint32Array }).memo);
          this.memoGets.delete(msg.id);
          return;
        }
        const m = msg as WorkerReply;
        if (m.slab !== undefined) this.slabs.give(m.slab); // the chunk's: the worker is done with it
        const p = this.waiting.get(m.id);
        if (!p) return;
        this.waiting.delete(m.id);
        if (m.error) p.reject(new DrumError('DRUM_INTERNAL', `parse worker: ${m.error.message}`));
        else p.resolve(unpackParsed(m.parsed!));
      });
      w.on('error', (e) => this.fail(e));
      // A worker that exits on its own (not terminated by close()) would leave every request to it waiting.
      w.on('exit', (code) => {
        if (!this.closing) this.fail(new Error(`exited with code ${code}`));
      });
      this.workers.push(w);
    }
    const tables = this.unstarted;
    this.unstarted = [];
    this.workers.forEach((w, i) => {
      const t = tables[i];
      if (t !== undefined) w.postMessage({ memoBack: t }, [t.buffer as ArrayBuffer]);
    });
  }

  /** Worker threads this pool parses with (started or not yet). */
  get size(): number {
    return this.planned;
  }

  /** Worker threads running now: sorts and dispatch scans go to a worker only when one already runs. */
  get running(): number {
    return this.workers.length;
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
    for (const w of this.workers) w.postMessage({ clear: true });
  }

  /**
   * Every thread's line memo table, lent without a copy (the main thread's
   * first); give them back with returnMemoTables. The workers answer after
   * the chunks queued to them: call only when none are in flight, or the
   * tables include lines of chunks not yet routed. Empty when the memos are
   * off or the pool has failed.
   */
  async lendMemoTables(): Promise<Uint32Array[]> {
    if (!this.local.memo.enabled || this.failed) return [];
    const own = this.local.memo.tableView();
    if (!this.started) return [own, ...this.unstarted];
    const theirs = this.workers.map((w) => {
      const id = this.nextId++;
      return new Promise<Uint32Array>((resolve) => {
        this.memoGets.set(id, resolve);
        w.postMessage({ memoGet: id });
      });
    });
    const tables = [own, ...(await Promise.all(theirs))];
    // A worker that died meanwhile answered with an empty table: a failed pool lends nothing (it parses nothing more either).
    return this.failed ? [] : tables;
  }

  /** Gives the tables lendMemoTables lent back to their workers (the main thread's never left). */
  returnMemoTables(tables: readonly Uint32Array[]): void {
    if (!this.started) return; // the unstarted workers' tables never left
    this.workers.forEach((w, i) => {
      const t = tables[i + 1];
      if (t !== undefined && t.length > 0) w.postMessage({ memoBack: t }, [t.buffer as ArrayBuffer]);
    });
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
    this.workers.forEach((w, i) => {
      const t = tables[i + 1];
      if (t !== undefined) w.postMessage({ memoBack: t }, [t.buffer as ArrayBuffer]);
    });
  }

  /**
   * Parses a chunk. Inline: synchronously, and the result is only valid until
   * the next call. Pooled: the chunk is copied to a worker (round robin), so
   * the caller may reuse the chunk's memory as soon as this returns.
   * `learn` false: the line memos answer but remember nothing (a check);
   * `memo` false: they are not asked (ingest --graph).
   */
  parse(chunk: LineChunk, learn = true, memo = true): Promise<ParsedChunk> | ParsedChunk {
    if (this.failed) throw this.failed;
    if (this.inline !== null) {
      const t = performance.now();
      const r = this.inline.parse(chunk, learn, memo);
      r.parseMs = performance.now() - t;
      return r;
    }
    this.start();
    const id = this.nextId++;
    const w = this.workers[id % this.workers.length]!;
    const slab = this.slabs.take(chunkSlabBytes(chunk));
    const out = this.slabs.take(parsedSlabGuess(chunk));
    const job: WorkerJob = { id, chunk: packChunk(chunk, slab), slab, out, learn, memo };
    return new Promise<ParsedChunk>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      w.postMessage(job, [slab, out]);
    });
  }

  /**
   * Work sharing: sends the chunk to a worker unless every worker already has
   * WORKER_BACKLOG chunks queued; then the calling (main) thread parses it
   * itself, so both cores stay busy whichever stage is the slower one. The
   * job's result is its own copy, valid until release()d; the chunk is not
   * referenced once this returns.
   */
  submit(chunk: LineChunk, learn = true, memo = true): ParseJob {
    if (this.failed) throw this.failed;
    // A second chunk while the first is still in flight: an input of several chunks, worth a worker.
    if (this.held > 0) this.start();
    if (this.workers.length === 0 || this.waiting.size >= this.workers.length * WORKER_BACKLOG) {
      const t = performance.now();
      // With workers planned, results are packed copies: a later chunk may be parsed here before this one is routed.
      const r = this.planned === 0 ? this.local.parse(chunk, learn, memo) : this.pack(this.local.parse(chunk, learn, memo));
      r.parseMs = performance.now() - t;
      this.inlineChunks++;
      if (!this.started) this.held++;
      return { result: r, promise: null };
    }
    const job: ParseJob = { result: null, promise: null };
    job.promise = (this.parse(chunk, learn, memo) as Promise<ParsedChunk>).then((r) => (job.result = r));
    return job;
  }

  /**
   * Has worker 0 sort a merge round's unit in place (sortUnique over
   * SharedArrayBuffer views, so nothing is copied); resolves with the number
   * of unique keys. The caller must not touch the arrays until it settles.
   */
  sortKeys(job: Omit<SortMessage, 'sortId'>): Promise<number> {
    if (this.failed) return Promise.reject(this.failed);
    this.start();
    const w = this.workers[0];
    if (w === undefined) return Promise.reject(new DrumError('DRUM_INTERNAL', 'sortKeys needs a worker thread'));
    const sortId = this.nextId++;
    return new Promise<number>((resolve, reject) => {
      this.sorts.set(sortId, { resolve, reject });
      const msg: SortMessage = { sortId, ...job };
      w.postMessage(msg);
    });
  }

  /** Has worker 0 scan a round's aux log (dispatch.ts WorkerScans: block order, recycling, errors). */
  scanAux(req: ScanRequest, onBlock: (b: DispatchBlock) => void, sizes: { blockBytes?: number; blockUrls?: number } = {}): Promise<ScanResult> {
    if (this.failed) return Promise.reject(this.failed);
    this.start();
    const w = this.workers[0];
    if (w === undefined) return Promise.reject(new DrumError('DRUM_INTERNAL', 'scanAux needs a worker thread'));
    return this.scans.start(w, this.nextId++, req, onBlock, sizes);
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

  private fail(e: unknown): void {
    this.failed = new DrumError('DRUM_INTERNAL', `parse worker died: ${(e as Error).message}`, { cause: e });
    for (const p of this.waiting.values()) p.reject(this.failed);
    this.waiting.clear();
    this.scans.failAll(this.failed);
    // A sort in progress writes into shared memory on a worker that may still be alive (another one died):
    // its caller must not hear of the failure (and reuse the arrays) before every worker has stopped.
    if (this.sorts.size > 0) {
      const sorts = [...this.sorts.values()];
      this.sorts.clear();
      const failed = this.failed;
      void Promise.allSettled(this.workers.map((w) => w.terminate())).then(() => {
        for (const p of sorts) p.reject(failed);
      });
    }
    // An empty table: the caller's save finds it the wrong size and skips the file (a cache).
    for (const r of this.memoGets.values()) r(new Uint32Array(0));
    this.memoGets.clear();
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
    this.slabs.clear();
  }
}
