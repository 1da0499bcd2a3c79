// The parse pool's worker threads and their protocol: starts them, posts
// each request (a packed chunk to parse, a merge round's sort unit, an aux
// log scan, a line memo to lend or take) with an id, and routes each reply
// to the promise waiting for it; each worker counts the chunks it has parsed
// in a shared counter, read without waiting for replies (isParsed). A
// worker that errors or exits on its own fails every request in flight and
// every later one. Does not decide which thread parses a chunk, size or
// pack slabs, or keep the memo tables of workers not yet started
// (parse-pool.ts does).
// REQUIRES: parse-worker.js beside this module; start() at most once, and
// close() when done (it terminates the workers).

import { Worker } from 'node:worker_threads';
import type { CanonicalPolicy } from '../../canonicalize/types.js';
import { DrumError } from '../../errors.js';
import type { DispatchBlock, ScanRequest, ScanResult } from './dispatch-scan.js';
import type { DispatchReply } from './dispatch-worker.js';
import { WorkerScans } from './dispatch.js';
import { unpackParsed } from '../pipeline/pack.js';
import type { ParsedChunk } from '../pipeline/parse.js';
import type { SortMessage, SortReply, WorkerJob } from './parse-worker.js';
import type { SlabPool } from './slab-pool.js';

interface Pending<T = ParsedChunk> {
  resolve: (p: T) => void;
  reject: (e: unknown) => void;
}

interface WorkerReply {
  id: number;
  parsed?: ParsedChunk;
  slab?: ArrayBuffer;
  error?: { message: string };
}

/** What every parse worker starts with (its workerData). */
export interface ParseWorkerData {
  policy: CanonicalPolicy;
  hostBits: number;
  memoEntries: number;
  /** false: the TypeScript canonicalization fast path even where the WebAssembly one loads. */
  wasm: boolean;
}

/** What a worker is given beside ParseWorkerData: where it counts the chunks it has parsed (its own slot). */
export interface ParseWorkerSlot {
  /** One Int32 per worker (SharedArrayBuffer): chunks parsed so far, added to once each result is posted. */
  parsed: Int32Array;
  slot: number;
}

export class ParseThreads {
  readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, Pending>();
  private readonly scans = new WorkerScans();
  private readonly memoGets = new Map<number, (t: Uint32Array) => void>();
  private readonly sorts = new Map<number, Pending<number>>();
  private nextId = 0;
  /** Chunks posted to each worker, and (shared, written by the workers) chunks each has parsed. */
  private posted: number[] = [];
  private parsed: Int32Array<ArrayBufferLike> = new Int32Array(0);
  /** Set by close(): a worker's exit from then on is expected, and nothing starts. */
  closing = false;
  /** Why the threads failed (a worker died); every request from then on fails with it. */
  failed: DrumError | null = null;

  /** `slabs`: where a parsed chunk's slab goes back to once its worker is done with it. */
  constructor(private readonly slabs: SlabPool) {}

  /** Starts `count` workers. */
  start(count: number, data: ParseWorkerData): void {
    this.parsed = new Int32Array(new SharedArrayBuffer(4 * Math.max(1, count)));
    this.posted = new Array<number>(count).fill(0);
    for (let i = 0; i < count; i++) {
      const w = new Worker(new URL('./parse-worker.js', import.meta.url), {
        workerData: { ...data, parsed: this.parsed, slot: i } satisfies ParseWorkerData & ParseWorkerSlot,
        // A small young generation keeps the worker's heap (and so drum's RSS) small; it only holds a few chunks.
        resourceLimits: { maxYoungGenerationSizeMb: 16 },
      });
      w.on('message', (msg: WorkerReply | DispatchReply | SortReply) => this.reply(msg));
      w.on('error', (e) => this.fail(e));
      // A worker that exits on its own (not terminated by close()) would leave every request to it waiting.
      w.on('exit', (code) => {
        if (!this.closing) this.fail(new Error(`exited with code ${code}`));
      });
      this.workers.push(w);
    }
  }

  /**
   * Whether worker `worker` has parsed its `nth` chunk, read from its shared
   * counter: true as soon as it posted the result, even while this thread,
   * busy, has not taken the message yet.
   */
  isParsed(worker: number, nth: number): boolean {
    return Atomics.load(this.parsed, worker) >= nth;
  }

  /** Posts a packed chunk to a worker (round robin); the slabs go with it. `ticket`: the worker and the chunk's number there, for isParsed. */
  parse(job: Omit<WorkerJob, 'id'>): { promise: Promise<ParsedChunk>; worker: number; nth: number } {
    const id = this.nextId++;
    const k = id % this.workers.length;
    const w = this.workers[k]!;
    const nth = ++this.posted[k]!;
    const promise = new Promise<ParsedChunk>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      w.postMessage({ id, ...job } satisfies WorkerJob, [job.slab, job.out]);
    });
    return { promise, worker: k, nth };
  }

  /** Has worker 0 sort a merge round's unit in place; resolves with the number of unique keys. */
  sort(job: Omit<SortMessage, 'sortId'>): Promise<number> {
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
  scan(req: ScanRequest, onBlock: (b: DispatchBlock) => void, sizes: { blockBytes?: number; blockUrls?: number }): Promise<ScanResult> {
    const w = this.workers[0];
    if (w === undefined) return Promise.reject(new DrumError('DRUM_INTERNAL', 'scanAux needs a worker thread'));
    return this.scans.start(w, this.nextId++, req, onBlock, sizes);
  }

  /** Every worker forgets its line memo, after the chunks already queued to it. */
  clearMemos(): void {
    for (const w of this.workers) w.postMessage({ clear: true });
  }

  /** Each worker's line memo table, lent without a copy (in worker order); an empty table from a worker that died. */
  lendMemos(): Promise<Uint32Array[]> {
    return Promise.all(this.workers.map((w) => {
      const id = this.nextId++;
      return new Promise<Uint32Array>((resolve) => {
        this.memoGets.set(id, resolve);
        w.postMessage({ memoGet: id });
      });
    }));
  }

  /** Hands worker i the table at `tables[i]` as its own line memo (no copy); undefined ones are skipped. */
  giveMemos(tables: readonly (Uint32Array | undefined)[]): void {
    this.workers.forEach((w, i) => {
      const t = tables[i];
      if (t !== undefined) w.postMessage({ memoBack: t }, [t.buffer as ArrayBuffer]);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }

  private reply(msg: WorkerReply | DispatchReply | SortReply): void {
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
}
