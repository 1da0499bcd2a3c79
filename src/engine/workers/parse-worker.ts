// Worker-thread body of the parse pool: receives a chunk packed in a slab
// (plus an empty slab for the result), runs the parse stage (line memo,
// canonicalize, fingerprint), packs the result and posts it back with both
// slabs transferred, so their memory returns to the main thread's pool.
// Holds no state beyond its Parser's scratch buffers and line memo, which a
// { clear: true } message empties (memoGet lends it out, memoBack hands it one: lent back or loaded),
// and the dispatch service's blocks
// (dispatch-worker.ts: scans a round's aux log for the main thread); also
// sorts a merge round's units in shared memory (sort-stage.ts; the radix
// sort keeps its 1 MiB of histograms between calls); keeps no slab
// between messages.
// Counts each chunk it has parsed in its slot of a shared counter, which the
// main thread's work sharing reads.
// REQUIRES: workerData = ParseWorkerData & ParseWorkerSlot (parse-threads.ts).

import { parentPort, workerData } from 'node:worker_threads';
import { sortUnique } from '../../bucket/radix-sort.js';
import type { LineChunk } from '../../input/types.js';
import { DispatchService } from './dispatch-worker.js';
import type { ParseWorkerData, ParseWorkerSlot } from './parse-threads.js';
import { packParsed, parsedSlabBytes, unpackChunk } from '../pipeline/pack.js';
import { Parser } from '../pipeline/parse.js';
import { slabBytesFor } from './slab-pool.js';

/** A chunk to parse: `chunk` is packed in `slab`; `out` is a free slab for the result (too small: a new one is made). */
export interface WorkerJob {
  id: number;
  chunk: LineChunk;
  slab: ArrayBuffer;
  out: ArrayBuffer;
  /** False: the line memo answers but remembers nothing (Parser.parse). */
  learn: boolean;
  /** False: the line memo is not asked (Parser.parse). */
  memo: boolean;
}

const { policy, hostBits, memoEntries, wasm, parsed: parsedCount, slot } = workerData as ParseWorkerData & ParseWorkerSlot;
const parser = new Parser(policy, hostBits, memoEntries, wasm);
const dispatch = new DispatchService((m, transfer) => parentPort!.postMessage(m, transfer));

/** A merge round's sort unit (sort-stage.ts): SharedArrayBuffer views, sorted and deduplicated in place. */
export interface SortMessage {
  sortId: number;
  hi: Uint32Array;
  lo: Uint32Array;
  ord: Uint32Array;
  tHi: Uint32Array;
  tLo: Uint32Array;
  tOrd: Uint32Array;
  /** The keys' seeds and their scratch (stores with values), or null. */
  seed: Uint32Array | null;
  tSeed: Uint32Array | null;
  n: number;
}

/** The worker's answer to a SortMessage: the unique keys left, or an error. */
export type SortReply = { sortId: number; unique: number } | { sortId: number; error: { message: string } };

/** Line memo transfer (memo-file.ts): lend this thread's table out, or take a table (lent back or loaded) as its own. */
export type MemoMessage = { memoGet: number } | { memoBack: Uint32Array };

parentPort!.on('message', (msg: WorkerJob | { clear: true } | MemoMessage | SortMessage) => {
  if (dispatch.handle(msg)) return;
  if ('sortId' in msg) {
    let reply: SortReply;
    try {
      reply = { sortId: msg.sortId, unique: sortUnique(msg.hi, msg.lo, msg.ord, msg.n, msg.tHi, msg.tLo, msg.tOrd, msg.seed, msg.tSeed) };
    } catch (e) {
      reply = { sortId: msg.sortId, error: { message: (e as Error).message } };
    }
    parentPort!.postMessage(reply);
    return;
  }
  if ('clear' in msg) {
    parser.memo.clear();
    return;
  }
  if ('memoGet' in msg) {
    // Lent, not copied: no chunk is being parsed while the main thread saves it, and it comes back as memoBack.
    const t = parser.memo.tableView();
    parentPort!.postMessage({ id: msg.memoGet, memo: t }, [t.buffer as ArrayBuffer]);
    return;
  }
  if ('memoBack' in msg) {
    parser.memo.adoptTable(msg.memoBack);
    return;
  }
  try {
    const t = performance.now();
    const p = parser.parse(unpackChunk(msg.chunk), msg.learn, msg.memo);
    const need = parsedSlabBytes(p);
    const out = msg.out.byteLength >= need ? msg.out : new ArrayBuffer(slabBytesFor(need));
    const parsed = packParsed(p, out);
    parsed.parseMs = performance.now() - t;
    parsed.onWorker = true;
    // The chunk's slab goes back too: nothing here refers to it once parse() returned.
    parentPort!.postMessage({ id: msg.id, parsed, slab: msg.slab }, [out, msg.slab]);
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: { message: (e as Error).message, stack: (e as Error).stack } });
  }
  // Parsed: the main thread's work sharing reads this without waiting for the reply's message.
  Atomics.add(parsedCount, slot, 1);
});
