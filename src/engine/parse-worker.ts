// Worker-thread body of the parse pool: receives chunks, runs the parse
// stage (canonicalize + fingerprint) and posts the result back with its
// arrays transferred. Holds no state beyond its Parser's scratch buffers.
// REQUIRES: workerData = { policy: CanonicalPolicy, hostBits: number }.

import { parentPort, workerData } from 'node:worker_threads';
import type { CanonicalPolicy } from '../canonicalize/types.js';
import type { LineChunk } from '../input/types.js';
import { Parser, attachChunk, detach } from './parse.js';

const { policy, hostBits } = workerData as { policy: CanonicalPolicy; hostBits: number };
const parser = new Parser(policy, hostBits);

parentPort!.on('message', (msg: { id: number; chunk: LineChunk }) => {
  try {
    const { parsed, transfer } = detach(parser.parse(attachChunk(msg.chunk)));
    parentPort!.postMessage({ id: msg.id, parsed }, transfer);
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: { message: (e as Error).message, stack: (e as Error).stack } });
  }
});
