// Lays a LineChunk or a ParsedChunk out in one slab (an ArrayBuffer from a
// SlabPool) so it crosses to another thread as a single transfer and its
// memory can go back to a pool afterwards: every typed array becomes a view
// at an offset fixed by the count, the bytes follow the arrays. unpack*()
// re-wraps what arrived from another thread (Buffers arrive as Uint8Arrays).
// Does not parse, and does not own slabs: the caller takes and gives them.
// REQUIRES: the slab holds at least chunkSlabBytes / parsedSlabBytes bytes.

import type { CanonicalBatch } from '../../canonicalize/types.js';
import type { LineChunk, Reject } from '../../input/types.js';
import type { ParsedChunk } from './parse.js';

// Chunk layout (n lines, B bytes): lines f64[n] | urlStarts | urlEnds | baseStarts | baseEnds (u32[n] each) | buf[B].
// Result layout (n URLs, U bytes): lines f64[n] | keys u32[2n] | ends | hostStarts | hostEnds (u32[n] each) | repeats u8[n] | bytes[U].

/** Slab bytes a chunk needs. */
export function chunkSlabBytes(c: LineChunk): number {
  return 24 * c.count + c.buf.length;
}

/** Slab bytes a parse result needs. */
export function parsedSlabBytes(p: ParsedChunk): number {
  return 29 * p.batch.count + usedBytes(p.batch);
}

/** A guess at parsedSlabBytes of the chunk's result, before parsing it (canonical URLs are rarely longer than the lines). */
export function parsedSlabGuess(c: LineChunk): number {
  return 29 * c.count + c.buf.length + 64;
}

/** Copies the chunk into `slab`; the copy's arrays are views of the slab (the slab is the one thing to transfer). */
export function packChunk(c: LineChunk, slab: ArrayBuffer): LineChunk {
  const n = c.count;
  const lines = new Float64Array(slab, 0, n);
  lines.set(c.lines.subarray(0, n));
  const u32 = (k: number, src: Uint32Array): Uint32Array => {
    const a = new Uint32Array(slab, 8 * n + 4 * k * n, n);
    a.set(src.subarray(0, n));
    return a;
  };
  const buf = Buffer.from(slab, 24 * n, c.buf.length);
  c.buf.copy(buf);
  return {
    input: c.input, buf, count: n,
    urlStarts: u32(0, c.urlStarts), urlEnds: u32(1, c.urlEnds), baseStarts: u32(2, c.baseStarts), baseEnds: u32(3, c.baseEnds),
    lines, rejects: copyRejects(c.rejects), endOffset: c.endOffset, endLine: c.endLine,
  };
}

/** Copies a parse result (whose arrays a Parser reuses) into `slab`; the copy's `slab` is set to it. */
export function packParsed(p: ParsedChunk, slab: ArrayBuffer): ParsedChunk {
  const b = p.batch;
  const n = b.count;
  const used = usedBytes(b);
  const lines = new Float64Array(slab, 0, n);
  lines.set(b.lines.subarray(0, n));
  const keys = new Uint32Array(slab, 8 * n, 2 * n);
  keys.set(p.keys.subarray(0, 2 * n));
  const u32 = (k: number, src: Uint32Array): Uint32Array => {
    const a = new Uint32Array(slab, 16 * n + 4 * k * n, n);
    a.set(src.subarray(0, n));
    return a;
  };
  const repeats = new Uint8Array(slab, 28 * n, n);
  repeats.set(p.repeats.subarray(0, n));
  const bytes = Buffer.from(slab, 29 * n, used);
  b.bytes.copy(bytes, 0, 0, used);
  const batch: CanonicalBatch = {
    input: b.input, count: n, bytes, ends: u32(0, b.ends), hostStarts: u32(1, b.hostStarts), hostEnds: u32(2, b.hostEnds),
    lines, rejects: [], endOffset: b.endOffset, endLine: b.endLine,
  };
  return {
    batch, keys, repeats, repeatCount: p.repeatCount, lineRepeats: p.lineRepeats, lineLookups: p.lineLookups, parseMs: p.parseMs,
    onWorker: p.onWorker, rejects: copyRejects(p.rejects), input: p.input, endOffset: p.endOffset, endLine: p.endLine, slab,
  };
}

/** Re-wraps a packed result that crossed a thread boundary. */
export function unpackParsed(p: ParsedChunk): ParsedChunk {
  p.batch.bytes = asBuf(p.batch.bytes);
  for (const r of p.rejects) r.excerpt = asBuf(r.excerpt);
  return p;
}

/** Re-wraps a packed chunk that crossed a thread boundary. */
export function unpackChunk(c: LineChunk): LineChunk {
  c.buf = asBuf(c.buf);
  for (const r of c.rejects) r.excerpt = asBuf(r.excerpt);
  return c;
}

function usedBytes(b: CanonicalBatch): number {
  return b.count === 0 ? 0 : b.ends[b.count - 1]!;
}

/** Rejects with excerpts of their own (small, cloned rather than transferred). */
function copyRejects(rs: readonly Reject[]): Reject[] {
  return rs.map((r) => ({ ...r, excerpt: Buffer.from(r.excerpt) }));
}

function asBuf(u: Uint8Array): Buffer {
  return Buffer.from(u.buffer, u.byteOffset, u.byteLength);
}
