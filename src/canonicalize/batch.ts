// The stage entry: canonicalizes every line of a LineChunk into one
// CanonicalBatch (canonical bytes back to back, ends, host ranges, line
// numbers, rejects). Tries the byte fast path first — the WebAssembly build
// over the whole chunk when it is loaded, else the TypeScript one per URL —
// and falls back to the full path per URL. Does not read input or hash;
// never throws on URL content.
// Precondition: `policy` comes from resolvePolicy. With a BatchScratch, the
// returned arrays are views into it, valid until the next call with it.

import { isUtf8 } from 'node:buffer';
import type { LineChunk, Reject, RejectReason } from '../input/types.js';
import { compile } from './compiled.js';
import { fastCanonical } from './fast.js';
import { canonicalizeString } from './full.js';
import type { CanonicalBatch, CanonicalPolicy } from './types.js';
import { runFastWasm, type WasmBatch } from './wasm.js';

/** Bytes of a rejected line kept in its excerpt. */
export const EXCERPT_BYTES = 200;

/** Reusable output buffers; pass the same one to successive calls once the previous batch is consumed. */
export class BatchScratch {
  bytes: Buffer = Buffer.allocUnsafe(0);
  ends = new Uint32Array(0);
  hostStarts = new Uint32Array(0);
  hostEnds = new Uint32Array(0);
  lines = new Float64Array(0);
  /** from[k] = index in the chunk of the line that produced URL k. */
  from = new Uint32Array(0);

  ensureCount(n: number): void {
    if (this.ends.length >= n) return;
    const cap = Math.max(n, this.ends.length * 2, 256);
    this.ends = new Uint32Array(cap);
    this.hostStarts = new Uint32Array(cap);
    this.hostEnds = new Uint32Array(cap);
    this.lines = new Float64Array(cap);
    this.from = new Uint32Array(cap);
  }

  /** Grows `bytes` to at least `n`, keeping its first `keep` bytes. */
  ensureBytes(n: number, keep: number): Buffer {
    if (this.bytes.length >= n) return this.bytes;
    const next = Buffer.allocUnsafe(Math.max(n, this.bytes.length * 2, 4096));
    this.bytes.copy(next, 0, 0, keep);
    this.bytes = next;
    return next;
  }
}

export interface BatchOptions {
  /** Internal switch for measurement and tests: false forces the full path for every URL. Default true. */
  fast?: boolean;
  /** false: the TypeScript fast path even when the WebAssembly one is loaded (measurement, tests). Default true. */
  wasm?: boolean;
  /** Lines i with skip[i] !== 0 are passed over: no URL, no reject (the line memo answered them). */
  skip?: Uint8Array | null;
}

function reject(chunk: LineChunk, i: number, s: number, e: number, reason: RejectReason): Reject {
  const excerpt = Buffer.from(chunk.buf.subarray(s, Math.min(e, s + EXCERPT_BYTES)));
  return { line: chunk.lines[i]!, input: chunk.input, reason, excerpt };
}

/** The reject canonicalizeBatch gives line i of the chunk for `reason` (for a repeat of a rejected line). */
export function rejectLine(chunk: LineChunk, i: number, reason: RejectReason): Reject {
  return reject(chunk, i, chunk.urlStarts[i]!, chunk.urlEnds[i]!, reason);
}

/**
 * Raw mode: copies b[s, e) to out at pos (a byte loop: for URL-sized copies
 * it beats Buffer.copy, a native call per URL) and writes the host range —
 * after the first `://` up to `/ ? #` or the end; empty (at the URL start)
 * without `://` — to hostStarts[k]/hostEnds[k]. Returns the end in `out`.
 */
function rawCopy(b: Uint8Array, s: number, e: number, out: Uint8Array, pos: number, hostStarts: Uint32Array, hostEnds: Uint32Array, k: number): number {
  let o = pos;
  let hs = -1;
  let j = s;
  for (; j < e; j++) {
    const x = b[j]!;
    out[o++] = x;
    if (x === 47 && j >= s + 2 && b[j - 1] === 47 && b[j - 2] === 58) {
      hs = j + 1;
      break;
    }
  }
  if (hs < 0) {
    hostStarts[k] = pos;
    hostEnds[k] = pos;
    return o;
  }
  for (j++; j < e; j++) {
    const x = b[j]!;
    if (x === 47 || x === 63 || x === 35) break;
    out[o++] = x;
  }
  hostStarts[k] = pos + hs - s;
  hostEnds[k] = o;
  for (; j < e; j++) out[o++] = b[j]!;
  return o;
}

/** Full path for line i (its URL field at src[s, e)): writes it at pos and returns the new end, or -1 after pushing its reject. May grow scratch.bytes, keeping [0, pos) and room for `need` more. */
function fullPath(
  chunk: LineChunk, i: number, s: number, e: number, policy: CanonicalPolicy, scratch: BatchScratch, pos: number, need: number, k: number, rejects: Reject[],
): number {
  const src = chunk.buf;
  if (!isUtf8(src.subarray(s, e))) {
    rejects.push(reject(chunk, i, s, e, 'invalid-utf8'));
    return -1;
  }
  const bs = chunk.baseStarts[i]!;
  const be = chunk.baseEnds[i]!;
  const base = bs < be ? src.toString('utf8', bs, be) : null;
  const res = canonicalizeString(src.toString('utf8', s, e), base, policy);
  if (typeof res === 'string') {
    rejects.push(reject(chunk, i, s, e, res));
    return -1;
  }
  const len = res.url.length;
  // Keep room for this URL plus the worst fast-path growth of every later line.
  const out = pos + len + need > scratch.bytes.length ? scratch.ensureBytes(pos + len + need, pos) : scratch.bytes;
  out.write(res.url, pos, len, 'latin1');
  scratch.hostStarts[k] = pos + res.hostStart;
  scratch.hostEnds[k] = pos + res.hostEnd;
  return pos + len;
}

/**
 * Canonicalizes one chunk. Rejects carry the chunk's line numbers and the
 * first 200 raw bytes of the URL field. One function on purpose: its loop runs
 * once per line of the chunk, its outputs in locals.
 */
export function canonicalizeBatch(
  chunk: LineChunk, policy: CanonicalPolicy, scratch: BatchScratch = new BatchScratch(), opts: BatchOptions = {},
): CanonicalBatch {
  const n = chunk.count;
  const src = chunk.buf;
  const { urlStarts, urlEnds } = chunk;
  scratch.ensureCount(n);
  let need = 64;
  for (let i = 0; i < n; i++) need += urlEnds[i]! - urlStarts[i]! + 2;
  scratch.ensureBytes(need, 0);
  const skip = opts.skip ?? null;
  const rejects: Reject[] = [];
  const raw = policy.mode === 'none';
  // Only the plain drum profile has a byte fast path; the others take the full path.
  const useFast = opts.fast !== false && policy.profile === 'drum' && policy.rules === null && !policy.surt;
  const c = compile(policy);
  const w = useFast && !raw && opts.wasm !== false ? runFastWasm(chunk, c, skip) : null;
  if (w !== null) return result(chunk, scratch, fromWasm(chunk, policy, scratch, skip, need, w, rejects), rejects);
  const { ends, hostStarts, hostEnds, lines, from } = scratch;
  let pos = 0;
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (skip !== null && skip[i] !== 0) continue;
    const s = urlStarts[i]!;
    const e = urlEnds[i]!;
    if (s >= e) {
      rejects.push(reject(chunk, i, s, e, 'empty'));
      continue;
    }
    if (raw) {
      pos = rawCopy(src, s, e, scratch.bytes, pos, hostStarts, hostEnds, k);
    } else {
      const r = useFast ? fastCanonical(src, s, e, scratch.bytes, pos, c, hostStarts, hostEnds, k) : -1;
      const p = r >= 0 ? r : fullPath(chunk, i, s, e, policy, scratch, pos, need, k, rejects);
      if (p < 0) continue;
      pos = p;
    }
    ends[k] = pos;
    lines[k] = chunk.lines[i]!;
    from[k] = i;
    k++;
  }
  return result(chunk, scratch, { pos, k }, rejects);
}

/**
 * The per-line pass after the WebAssembly fast path ran the whole chunk:
 * accepted lines' bytes are copied from linear memory in runs (one copy per
 * run between declined lines), declined ones take the full path in between.
 */
function fromWasm(
  chunk: LineChunk, policy: CanonicalPolicy, scratch: BatchScratch, skip: Uint8Array | null, need: number, w: WasmBatch, rejects: Reject[],
): { pos: number; k: number } {
  const { ends, hostStarts, hostEnds, lines, from } = scratch;
  const { ends: we, hostStarts: whs, hostEnds: whe, bytes: wb } = w;
  let pos = 0;
  let k = 0;
  let wpos = 0; // end in wb of the last accepted line
  let runW = 0; // start in wb of the bytes not yet copied, which go to runP
  let runP = 0;
  for (let i = 0; i < chunk.count; i++) {
    if (skip !== null && skip[i] !== 0) continue;
    const r = we[i]!;
    if (r >= 0) {
      const shift = pos - wpos;
      hostStarts[k] = whs[i]! + shift;
      hostEnds[k] = whe[i]! + shift;
      pos += r - wpos;
      wpos = r;
    } else {
      const s = chunk.urlStarts[i]!;
      const e = chunk.urlEnds[i]!;
      if (s >= e) {
        rejects.push(reject(chunk, i, s, e, 'empty'));
        continue;
      }
      scratch.bytes.set(wb.subarray(runW, wpos), runP);
      runW = wpos;
      const p = fullPath(chunk, i, s, e, policy, scratch, pos, need, k, rejects);
      if (p >= 0) pos = p;
      runP = pos;
      if (p < 0) continue;
    }
    ends[k] = pos;
    lines[k] = chunk.lines[i]!;
    from[k] = i;
    k++;
  }
  scratch.bytes.set(wb.subarray(runW, wpos), runP);
  return { pos, k };
}

function result(chunk: LineChunk, scratch: BatchScratch, r: { pos: number; k: number }, rejects: Reject[]): CanonicalBatch {
  const { pos, k } = r;
  return {
    input: chunk.input,
    count: k,
    bytes: scratch.bytes.subarray(0, pos),
    ends: scratch.ends.subarray(0, k),
    hostStarts: scratch.hostStarts.subarray(0, k),
    hostEnds: scratch.hostEnds.subarray(0, k),
    lines: scratch.lines.subarray(0, k),
    rejects,
    endOffset: chunk.endOffset,
    endLine: chunk.endLine,
  };
}
