// Worker-thread body of the parse pool: receives chunks, runs the parse
// stage (line memo, canonicalize, fingerprint) and posts the result back with
// its arrays transferred. Holds no state beyond its Parser's scratch buffers
// and line memo, which a { clear: true } message empties, and the dispatch
// service's blocks (dispatch-worker.ts: scan a round's aux log for the main thread).
// REQUIRES: workerData = { policy: CanonicalPolicy, hostBits: number, memoEntries: number }.

import { parentPort, workerData } from 'node:worker_threads';
import type { CanonicalPolicy } from '../canonicalize/types.js';
import type { LineChunk } from '../input/types.js';
import { Parser, attachChunk, detach } from './parse.js';
import { DispatchService } from './dispatch-worker.js';

const { policy, hostBits, memoEntries } = workerData as { policy: CanonicalPolicy; hostBits: number; memoEntries: number };
const parser = new Parser(policy, hostBits, memoEntries);
const dispatch = new DispatchService((m, transfer) => parentPort!.postMessage(m, transfer));

parentPort!.on('message', (msg: { id: number; chunk: LineChunk } | { clear: true }) => {
  if (dispatch.handle(msg)) return;
  if ('clear' in msg) {
    parser.memo.clear();
    return;
  }
  try {
    const t = performance.now();
    const { parsed, transfer } = detach(parser.parse(attachChunk(msg.chunk)));
    parsed.parseMs = performance.now() - t;
    parsed.onWorker = true;
    parentPort!.postMessage({ id: msg.id, parsed }, transfer);
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: { message: (e as Error).message, stack: (e as Error).stack } });
  }
});
