// The parse stage of one chunk: canonicalize its lines and fingerprint the
// canonical URLs into 64-bit keys. Pure and self-contained so it runs the
// same inline or in a worker thread (parse-worker.ts). Also merges the
// reader's and canonicalizer's rejects into line order. No tiers, no IO.

import { canonicalizeBatch, BatchScratch } from '../canonicalize/batch.js';
import type { CanonicalBatch, CanonicalPolicy } from '../canonicalize/types.js';
import { keysOfBatch } from '../fingerprint/key.js';
import type { LineChunk, Reject } from '../input/types.js';
import { ChunkSet } from '../tiers/chunk-set.js';

export interface ParsedChunk {
  batch: CanonicalBatch;
  /** keys[2i], keys[2i+1] = hi, lo of URL i. */
  keys: Uint32Array;
  /** repeats[i] = 1 when URL i repeats an earlier URL of the same chunk (a certain duplicate). */
  repeats: Uint8Array;
  /** How many repeats[i] are 1. */
  repeatCount: number;
  /** Every rejected line of the chunk, in line order. */
  rejects: Reject[];
  input: number;
  endOffset: number;
  endLine: number;
}

export class Parser {
  private readonly scratch = new BatchScratch();
  private keys = new Uint32Array(0);
  private repeats = new Uint8Array(0);
  private readonly chunkSet = new ChunkSet();

  constructor(
    private readonly policy: CanonicalPolicy,
    private readonly hostBits: number,
  ) {}

  /** Parses a chunk; the result's arrays are reused by the next call (copy them to keep them). */
  parse(chunk: LineChunk): ParsedChunk {
    const batch = canonicalizeBatch(chunk, this.policy, this.scratch);
    if (this.keys.length < 2 * batch.count) this.keys = new Uint32Array(Math.max(2 * batch.count, 2 * this.keys.length));
    keysOfBatch(batch.bytes, batch.count, batch.ends, batch.hostStarts, batch.hostEnds, this.hostBits, this.keys);
    if (this.repeats.length < batch.count) this.repeats = new Uint8Array(Math.max(batch.count, 2 * this.repeats.length));
    const repeatCount = this.chunkSet.mark(this.keys, batch.count, this.repeats);
    let rejects = batch.rejects;
    if (chunk.rejects.length > 0) {
      rejects = chunk.rejects.concat(batch.rejects);
      if (batch.rejects.length > 0) rejects.sort((a, b) => a.line - b.line);
    }
    return {
      batch, keys: this.keys, repeats: this.repeats, repeatCount, rejects,
      input: chunk.input, endOffset: chunk.endOffset, endLine: chunk.endLine,
    };
  }
}

/** Copies a parsed chunk into exact-size arrays of its own (for transfer between threads). */
export function detach(p: ParsedChunk): { parsed: ParsedChunk; transfer: ArrayBuffer[] } {
  const b = p.batch;
  const n = b.count;
  const used = n === 0 ? 0 : b.ends[n - 1]!;
  const bytes = Buffer.from(Uint8Array.prototype.slice.call(b.bytes, 0, used).buffer);
  const batch: CanonicalBatch = {
    input: b.input, count: n, bytes,
    ends: b.ends.slice(0, n), hostStarts: b.hostStarts.slice(0, n), hostEnds: b.hostEnds.slice(0, n),
    lines: b.lines.slice(0, n), rejects: [], endOffset: b.endOffset, endLine: b.endLine,
  };
  const keys = p.keys.slice(0, 2 * n);
  const repeats = p.repeats.slice(0, n);
  const rejects = p.rejects.map((r) => ({ ...r, excerpt: Buffer.from(r.excerpt) }));
  return {
    parsed: { batch, keys, repeats, repeatCount: p.repeatCount, rejects, input: p.input, endOffset: p.endOffset, endLine: p.endLine },
    transfer: [bytes.buffer as ArrayBuffer, batch.ends.buffer as ArrayBuffer, batch.hostStarts.buffer as ArrayBuffer,
      batch.hostEnds.buffer as ArrayBuffer, batch.lines.buffer as ArrayBuffer, keys.buffer as ArrayBuffer, repeats.buffer as ArrayBuffer],
  };
}

/** Re-wraps arrays that crossed a thread boundary (Buffers arrive as plain Uint8Arrays). */
export function attach(p: ParsedChunk): ParsedChunk {
  const asBuf = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  p.batch.bytes = asBuf(p.batch.bytes);
  for (const r of p.rejects) r.excerpt = asBuf(r.excerpt);
  return p;
}

/** Copies a chunk into arrays of its own so it can be transferred to a worker. */
export function detachChunk(c: LineChunk): { chunk: LineChunk; transfer: ArrayBuffer[] } {
  const n = c.count;
  const buf = Buffer.from(Uint8Array.prototype.slice.call(c.buf).buffer);
  const chunk: LineChunk = {
    input: c.input, buf, count: n,
    urlStarts: c.urlStarts.slice(0, n), urlEnds: c.urlEnds.slice(0, n),
    baseStarts: c.baseStarts.slice(0, n), baseEnds: c.baseEnds.slice(0, n),
    lines: c.lines.slice(0, n),
    rejects: c.rejects.map((r) => ({ ...r, excerpt: Buffer.from(r.excerpt) })),
    endOffset: c.endOffset, endLine: c.endLine,
  };
  return {
    chunk,
    transfer: [buf.buffer as ArrayBuffer, chunk.urlStarts.buffer as ArrayBuffer, chunk.urlEnds.buffer as ArrayBuffer,
      chunk.baseStarts.buffer as ArrayBuffer, chunk.baseEnds.buffer as ArrayBuffer, chunk.lines.buffer as ArrayBuffer],
  };
}

export function attachChunk(c: LineChunk): LineChunk {
  const asBuf = (u: Uint8Array): Buffer => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  c.buf = asBuf(c.buf);
  for (const r of c.rejects) r.excerpt = asBuf(r.excerpt);
  return c;
}
