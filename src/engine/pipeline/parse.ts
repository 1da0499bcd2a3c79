// The parse stage of one chunk: drop the lines the line memo answers,
// canonicalize the rest and fingerprint the canonical URLs into 64-bit keys,
// then mark in-chunk repeats. Self-contained so it runs the same inline or in
// a worker thread (parse-worker.ts); its only state across chunks is the
// thread's line memo. Also merges the reader's and canonicalizer's rejects
// into line order. No shared tiers, no IO.

import { canonicalizeBatch, BatchScratch, rejectLine } from '../../canonicalize/batch.js';
import type { CanonicalBatch, CanonicalPolicy } from '../../canonicalize/types.js';
import { AUX_MAX_URL_BYTES } from '../../bucket/aux-log.js';
import { keysOfBatch } from '../../fingerprint/key.js';
import type { LineChunk, Reject, RejectReason } from '../../input/types.js';
import { ChunkSet } from '../../tiers/chunk-set.js';
import { LineMemo, SKIP_LOCAL, SKIP_NONE } from '../../tiers/line-memo.js';

export interface ParsedChunk {
  batch: CanonicalBatch;
  /** keys[2i], keys[2i+1] = hi, lo of URL i. */
  keys: Uint32Array;
  /** repeats[i] = 1 when URL i repeats an earlier URL of the same chunk (a certain duplicate). */
  repeats: Uint8Array;
  /** How many repeats[i] are 1. */
  repeatCount: number;
  /** Lines the line memo answered as duplicates before canonicalizing: they have no entry in `batch`. */
  lineRepeats: number;
  /** Lines the line memo looked up. */
  lineLookups: number;
  /** Milliseconds the parse took on its thread (set by the pool; 0 when parsed outside it). */
  parseMs: number;
  /** Parsed on a worker thread (else on the main thread). */
  onWorker: boolean;
  /** Every rejected line of the chunk, in line order. */
  rejects: Reject[];
  input: number;
  endOffset: number;
  endLine: number;
  /** The slab every array above is a view of (pack.ts), or null when they are a Parser's own reusable arrays. */
  slab: ArrayBuffer | null;
}

export class Parser {
  private readonly scratch = new BatchScratch();
  private keys = new Uint32Array(0);
  private repeats = new Uint8Array(0);
  private readonly chunkSet = new ChunkSet();
  private skip = new Uint8Array(0);
  readonly memo: LineMemo;

  /** `memoEntries`: size of this thread's line memo (0 = off). `wasm` false: the TypeScript canonicalization fast path only. */
  constructor(
    private readonly policy: CanonicalPolicy,
    private readonly hostBits: number,
    memoEntries = 0,
    private readonly wasm = true,
  ) {
    this.memo = new LineMemo(memoEntries);
  }

  /**
   * Parses a chunk; the result's arrays are reused by the next call (copy
   * them to keep them). `learn` false: the line memo answers but remembers
   * nothing (LineMemo.mark). `useMemo` false: the line memo is not asked
   * (every accepted line's URL is in the batch: ingest --graph needs each).
   */
  parse(chunk: LineChunk, learn = true, useMemo = true): ParsedChunk {
    const memo = useMemo && this.memo.enabled ? this.memo : null;
    let skip: Uint8Array | null = null;
    let lineRepeats = 0;
    if (memo !== null) {
      if (this.skip.length < chunk.count) this.skip = new Uint8Array(Math.max(chunk.count, 2 * this.skip.length));
      skip = this.skip;
      lineRepeats = memo.mark(chunk, skip, learn);
    }
    let batch = canonicalizeBatch(chunk, this.policy, this.scratch, { skip, wasm: this.wasm });
    if (memo !== null && (batch.rejects.length > 0 || anyLonger(batch.ends, batch.count, AUX_MAX_URL_BYTES))) {
      // Rare: some line was rejected or is too long for the aux log. It must not be remembered, and its repeats
      // in this chunk (marked SKIP_LOCAL) are rejected too, not answered.
      const rejected = forgetRejected(memo, chunk.count, skip!, this.scratch.from, batch.ends, batch.count, batch.rejects);
      if (memo.lastLocals > 0) {
        if (rejected === null) {
          // A URL longer than the aux log takes: the router rejects it, so parse again without in-chunk answers.
          lineRepeats -= memo.lastLocals;
          memo.unmarkLocal(chunk.count, skip!);
          batch = canonicalizeBatch(chunk, this.policy, this.scratch, { skip, wasm: this.wasm });
        } else if (rejected.size > 0) {
          lineRepeats -= rejectRepeats(memo, chunk, skip!, rejected, batch.rejects);
        }
      }
    }
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
      batch, keys: this.keys, repeats: this.repeats, repeatCount, lineRepeats, lineLookups: memo === null ? 0 : chunk.count, parseMs: 0, onWorker: false, rejects,
      input: chunk.input, endOffset: chunk.endOffset, endLine: chunk.endLine, slab: null,
    };
  }
}

/**
 * Makes the memo forget the lines of the chunk it remembered while marking
 * that did not give an accepted URL: rejected by the canonicalizer (no batch
 * entry; its reject is the next of `rejects`, which are in line order) or
 * longer than the aux log takes. Returns each rejected line's identity and
 * reason, or null if some URL was too long.
 */
function forgetRejected(
  memo: LineMemo, n: number, skip: Uint8Array, from: Uint32Array, ends: Uint32Array, count: number, rejects: readonly Reject[],
): Map<string, RejectReason> | null {
  const rejected = new Map<string, RejectReason>();
  let tooLong = false;
  let k = 0;
  let r = 0;
  let start = 0;
  for (let i = 0; i < n; i++) {
    if (skip[i] !== SKIP_NONE) continue;
    if (k < count && from[k] === i) {
      const end = ends[k]!;
      if (end - start > AUX_MAX_URL_BYTES) {
        memo.forget(i);
        tooLong = true;
      }
      start = end;
      k++;
    } else {
      memo.forget(i);
      rejected.set(memo.keyOf(i), rejects[r++]!.reason);
    }
  }
  return tooLong ? null : rejected;
}

/**
 * Turns each SKIP_LOCAL line that repeats a rejected line into the same
 * reject (appended to `rejects`, kept in line order). A SKIP_LOCAL line whose
 * first occurrence was accepted stays answered. Returns how many were turned.
 */
function rejectRepeats(memo: LineMemo, chunk: LineChunk, skip: Uint8Array, rejected: Map<string, RejectReason>, rejects: Reject[]): number {
  let turned = 0;
  for (let i = 0; i < chunk.count; i++) {
    if (skip[i] !== SKIP_LOCAL) continue;
    const reason = rejected.get(memo.keyOf(i));
    if (reason === undefined) continue;
    rejects.push(rejectLine(chunk, i, reason));
    turned++;
  }
  if (turned > 0) {
    rejects.sort((a, b) => a.line - b.line);
    memo.hits -= turned;
  }
  return turned;
}

/** True if some URL of the batch is longer than `max` bytes. */
function anyLonger(ends: Uint32Array, n: number, max: number): boolean {
  let start = 0;
  for (let k = 0; k < n; k++) {
    if (ends[k]! - start > max) return true;
    start = ends[k]!;
  }
  return false;
}
