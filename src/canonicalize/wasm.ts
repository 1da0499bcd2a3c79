// Runs the WebAssembly build of the canonicalization fast path
// (assembly/fast-canonical.ts, built to fast-canonical.wasm beside this file)
// over a whole chunk in one call: copies the chunk's bytes, URL ranges and
// skip flags into linear memory, runs every line, and hands back views of the
// canonical bytes, per-line ends (-1 = declined) and host ranges. Loads the
// module once per thread, lazily; when it cannot be loaded (not built,
// unreadable, no WebAssembly) it says so and the caller keeps the TypeScript
// path. Does not take the full path for declined lines (batch.ts does).
// REQUIRES: the memory layout run() expects (assembly/fast-canonical.ts).

import { readFileSync } from 'node:fs';
import type { CompiledPolicy } from './compiled.js';
import type { LineChunk } from '../input/types.js';
import { policyBlob } from './wasm-policy.js';

// The part of the WebAssembly global used here (lib ES2022 and @types/node do not declare it).
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
};

interface FastExports {
  memory: WasmMemory;
  heapBase(): number;
  run(
    pol: number, src: number, starts: number, ends: number, skip: number, n: number,
    out: number, outEnds: number, hostStarts: number, hostEnds: number, scratch: number,
  ): number;
}

/** One chunk's results: views into linear memory, valid until the next runFastWasm on this thread. */
export interface WasmBatch {
  /** Canonical bytes of the accepted lines, back to back. */
  bytes: Uint8Array;
  /** ends[i]: end of line i's canonical bytes in `bytes`, or -1 (declined, passed over, or empty). */
  ends: Int32Array;
  hostStarts: Int32Array;
  hostEnds: Int32Array;
}

export const WASM_FILE = new URL('./fast-canonical.wasm', import.meta.url);

let fast: FastExports | null | undefined;
let loadError = '';

/** Loads the module from `file` (once; `file` is for tests of the fallback). Returns null when it cannot be used. */
export function loadFastWasm(file: URL = WASM_FILE): FastExports | null {
  if (fast !== undefined) return fast;
  try {
    const mod = new WebAssembly.Module(readFileSync(file));
    fast = new WebAssembly.Instance(mod, {}).exports as unknown as FastExports;
  } catch (e) {
    fast = null;
    loadError = (e as Error).message;
  }
  return fast;
}

/** Which fast path this thread runs: 'wasm' once the module loaded, else 'ts' (and why). */
export function fastPathKind(): { kind: 'wasm' | 'ts'; reason: string } {
  const f = loadFastWasm();
  return f === null ? { kind: 'ts', reason: loadError } : { kind: 'wasm', reason: '' };
}

/** Forgets the loaded module (tests of the fallback only). */
export function resetFastWasm(): void {
  fast = undefined;
  loadError = '';
}

/** Linear memory the module may use: its offsets are i32, so a chunk needing more takes the TypeScript path. */
const MAX_MEMORY = 1 << 30;

/** Grows the memory to `top` bytes; false when that is over MAX_MEMORY or the engine refuses. */
function ensureMemory(mem: WasmMemory, top: number): boolean {
  const have = mem.buffer.byteLength;
  if (top <= have) return true;
  if (top > MAX_MEMORY) return false;
  try {
    mem.grow(Math.ceil((top - have) / 65536));
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs the fast path over every line of `chunk` (lines with skip[i] !== 0
 * passed over) under policy `c`, or returns null when the module is not
 * loaded or the chunk does not fit its memory (the caller then runs the
 * TypeScript fast path).
 */
export function runFastWasm(chunk: LineChunk, c: CompiledPolicy, skip: Uint8Array | null): WasmBatch | null {
  const f = loadFastWasm();
  if (f === null) return null;
  const n = chunk.count;
  const blob = policyBlob(c);
  const len = chunk.buf.length;
  const pol = f.heapBase();
  const src = pol + ((blob.length + 7) & ~7);
  const starts = src + ((len + 7) & ~7);
  const ends = starts + 4 * n;
  const skipAt = ends + 4 * n;
  const out = skipAt + ((n + 7) & ~7);
  const outLen = len + 2 * n + 64; // the URL ranges are disjoint in buf: at most len bytes, plus 2 per line of growth
  const outEnds = out + ((outLen + 7) & ~7);
  const hostStarts = outEnds + 4 * n;
  const hostEnds = hostStarts + 4 * n;
  const scratch = hostEnds + 4 * n;
  if (!ensureMemory(f.memory, scratch + len + 64)) return null;
  const buf = f.memory.buffer;
  const u8 = new Uint8Array(buf);
  u8.set(blob, pol);
  u8.set(chunk.buf, src);
  new Uint32Array(buf, starts, n).set(chunk.urlStarts.subarray(0, n));
  new Uint32Array(buf, ends, n).set(chunk.urlEnds.subarray(0, n));
  if (skip !== null) u8.set(skip.subarray(0, n), skipAt);
  f.run(pol, src, starts, ends, skip === null ? 0 : skipAt, n, out, outEnds, hostStarts, hostEnds, scratch);
  return {
    bytes: new Uint8Array(buf, out, outLen),
    ends: new Int32Array(buf, outEnds, n),
    hostStarts: new Int32Array(buf, hostStarts, n),
    hostEnds: new Int32Array(buf, hostEnds, n),
  };
}
