// The line memo: the first tier, run by each parse thread before it
// canonicalizes. Remembers 64-bit hashes of raw input lines whose URL that
// same thread accepted in an earlier chunk (a table of 4-way sets, 32 bytes
// each, LRU by shifting the ways: a new line enters at the front and pushes
// the oldest out, a hit moves its line to the front; one probe touches one
// cache line),
// and spots raw lines repeated inside the chunk. A line found either way is
// a certain duplicate — an identical line came earlier in the stream, and
// the same bytes canonicalize to the same URL — so it is neither
// canonicalized, hashed nor sent to the main thread. Only lines whose URL
// was accepted are remembered (rejects are not: their repeats must be
// rejected too). Equality is by hash, like every drum key: two different
// lines share a 64-bit hash with odds ~2^-64 per pair (docs/design.md).
// Does not canonicalize; knows nothing of the store.
// REQUIRES: a thread's chunks are marked in arrival order; the caller
// clears the memo whenever the engine forgets keys it had vouched for.

import { hashRanges } from '../fingerprint/key.js';
import { murmur3x2 } from '../fingerprint/hash.js';
import type { LineChunk } from '../input/types.js';
import { ChunkSet } from './chunk-set.js';

const SEED_A = 0x3c6ef372;
const SEED_B = 0xa54ff53a;

/** Ways per set: 4 × [hi, lo] = 32 bytes, most recently used first. An all-zero way is empty (a zero hash is stored as lo = 1). */
export const MEMO_WAYS = 4;

/** skip[i] values written by mark(). */
export const SKIP_NONE = 0;
/** The line repeats a line remembered from an earlier chunk. */
export const SKIP_MEMO = 1;
/** The line repeats an earlier line of the same chunk (valid only if that line is accepted). */
export const SKIP_LOCAL = 2;

export class LineMemo {
  /** Lines probed. */
  lookups = 0;
  /** Lines answered: remembered from an earlier chunk or repeated inside their chunk. */
  hits = 0;
  /** SKIP_LOCAL marks made by the last mark(). */
  lastLocals = 0;
  /** Capacity in entries (a power of two, 0 when off). */
  readonly entries: number;
  private table: Uint32Array;
  private readonly setMask: number;
  private readonly chunkSet = new ChunkSet();
  private hashes = new Uint32Array(0);
  private readonly baseHashes = new Uint32Array(2);
  private local = new Uint8Array(0);
  /** Keeps the warm-up loads of mark() observable (so they are not optimized away). */
  private warmSink = 0;

  /** Entries a request for `entries` becomes: a power of two of at least MEMO_WAYS, or 0. */
  static capacityFor(entries: number): number {
    if (entries <= 0) return 0;
    let cap = MEMO_WAYS;
    while (cap * 2 <= entries) cap *= 2;
    return cap;
  }

  /** Bytes of typed-array memory a memo of `entries` uses (what the engine budgets). */
  static bytesFor(entries: number): number {
    return LineMemo.capacityFor(entries) * 8;
  }

  constructor(entries: number) {
    this.entries = LineMemo.capacityFor(entries);
    this.table = new Uint32Array(this.entries * 2);
    this.setMask = this.entries / MEMO_WAYS - 1;
  }

  get enabled(): boolean {
    return this.entries > 0;
  }

  /**
   * Hashes every line of the chunk and sets skip[i] to SKIP_MEMO, SKIP_LOCAL
   * or SKIP_NONE; with `learn`, remembers each SKIP_NONE line at once (the
   * caller forgets the ones that turn out rejected). Without it the memo only
   * answers (a check, whose URLs are never stored, must not be vouched for).
   * Returns how many lines are marked. One method on purpose: its loop
   * hashes every byte of every line.
   */
  mark(chunk: LineChunk, skip: Uint8Array, learn = true): number {
    const n = chunk.count;
    if (this.hashes.length < 2 * n) this.hashes = new Uint32Array(Math.max(2 * n, 2 * this.hashes.length));
    if (this.local.length < n) this.local = new Uint8Array(Math.max(n, 2 * this.local.length));
    const h = this.hashes;
    const buf = chunk.buf;
    const { baseStarts, baseEnds, urlStarts, urlEnds } = chunk;
    hashRanges(buf, n, urlStarts, urlEnds, SEED_A, SEED_B, h);
    const bh = this.baseHashes;
    for (let i = 0; i < n; i++) {
      // A relative target means what its base says: then the base is part of the line's identity.
      const bs = baseStarts[i]!;
      const be = baseEnds[i]!;
      if (bs < be && !absoluteHttp(buf, urlStarts[i]!, urlEnds[i]!)) {
        murmur3x2(buf, bs, be, SEED_B, SEED_A, bh, 0);
        h[2 * i] = (h[2 * i]! ^ Math.imul(bh[0]!, 0x9e3779b1)) >>> 0;
        h[2 * i + 1] = (h[2 * i + 1]! ^ Math.imul(bh[1]!, 0x85ebca6b)) >>> 0;
      }
    }
    const local = this.local;
    this.chunkSet.mark(h, n, local);
    const t = this.table;
    const mask = this.setMask;
    // Touch every line's set first: independent loads the CPU overlaps, so the probe loop below finds them cached.
    let warm = 0;
    for (let i = 0; i < n; i++) warm ^= t[(h[2 * i + 1]! & mask) << 3]!;
    this.warmSink ^= warm;
    let locals = 0;
    let hits = 0;
    for (let i = 0; i < n; i++) {
      if (local[i] === 1) {
        // Its first occurrence in this chunk probes (and is remembered) for it.
        skip[i] = SKIP_LOCAL;
        locals++;
        continue;
      }
      const hi = h[2 * i]!;
      let lo = h[2 * i + 1]!;
      if (hi === 0 && lo === 0) lo = 1;
      const b = (lo & mask) << 3;
      if (t[b] === hi && t[b + 1] === lo) {
        skip[i] = SKIP_MEMO;
        hits++;
        continue;
      }
      let w = -1;
      if (t[b + 2] === hi && t[b + 3] === lo) w = 2;
      else if (t[b + 4] === hi && t[b + 5] === lo) w = 4;
      else if (t[b + 6] === hi && t[b + 7] === lo) w = 6;
      if (w > 0) {
        // A hit moves its line to the front (LRU): popular lines stay, one-off lines fall out first.
        for (let v = w; v > 0; v -= 2) {
          t[b + v] = t[b + v - 2]!;
          t[b + v + 1] = t[b + v - 1]!;
        }
        t[b] = hi;
        t[b + 1] = lo;
        skip[i] = SKIP_MEMO;
        hits++;
        continue;
      }
      skip[i] = SKIP_NONE;
      if (!learn) continue;
      // Not seen: the oldest way falls out, the others move down one.
      t[b + 6] = t[b + 4]!;
      t[b + 7] = t[b + 5]!;
      t[b + 4] = t[b + 2]!;
      t[b + 5] = t[b + 3]!;
      t[b + 2] = t[b]!;
      t[b + 3] = t[b + 1]!;
      t[b] = hi;
      t[b + 1] = lo;
    }
    this.lookups += n;
    this.hits += hits + locals;
    this.lastLocals = locals;
    return hits + locals;
  }

  /** Identity of line i of the last marked chunk, as a string (for the rare reject bookkeeping, not hot paths). */
  keyOf(i: number): string {
    return `${this.hashes[2 * i]}:${this.hashes[2 * i + 1]}`;
  }

  /** Undoes SKIP_LOCAL marks (when a line they point at was rejected, the chunk is parsed again without them). */
  unmarkLocal(n: number, skip: Uint8Array): void {
    for (let i = 0; i < n; i++) if (skip[i] === SKIP_LOCAL) skip[i] = SKIP_NONE;
    this.hits -= this.lastLocals;
    this.lastLocals = 0;
  }

  /**
   * Forgets line i of the last marked chunk (its URL was rejected, so its
   * repeats must be rejected too, not answered). REQUIRES: skip[i] was SKIP_NONE.
   */
  forget(i: number): void {
    const hi = this.hashes[2 * i]!;
    let lo = this.hashes[2 * i + 1]!;
    if (hi === 0 && lo === 0) lo = 1;
    const t = this.table;
    const b = (lo & this.setMask) << 3;
    for (let w = 0; w < MEMO_WAYS; w++) {
      if (t[b + 2 * w] !== hi || t[b + 2 * w + 1] !== lo) continue;
      // Close the gap: later (older) ways move up, the last becomes empty.
      for (let v = w; v < MEMO_WAYS - 1; v++) {
        t[b + 2 * v] = t[b + 2 * v + 2]!;
        t[b + 2 * v + 1] = t[b + 2 * v + 3]!;
      }
      t[b + 2 * MEMO_WAYS - 2] = 0;
      t[b + 2 * MEMO_WAYS - 1] = 0;
      return;
    }
  }

  /** Forgets every line (counters are kept). */
  clear(): void {
    this.table.fill(0);
  }

  /**
   * The table itself, to save it (memo-file.ts) without a copy. Read it only
   * while this memo marks nothing; a lent table that is transferred away
   * leaves this memo empty (every line a miss) until adoptTable gives one back.
   */
  tableView(): Uint32Array {
    return this.table;
  }

  /** Takes a table of this memo's size as its own (a lent table coming back); false (nothing changed) otherwise. */
  adoptTable(t: Uint32Array): boolean {
    if (t.length !== this.entries * 2) return false;
    this.table = t;
    return true;
  }
}

/** True if b[s, e) starts with "http://" or "https://" (then no base can change what it means). */
function absoluteHttp(b: Uint8Array, s: number, e: number): boolean {
  if (e - s < 7 || b[s] !== 104 || b[s + 1] !== 116 || b[s + 2] !== 116 || b[s + 3] !== 112) return false;
  let j = s + 4;
  if (b[j] === 115) j++;
  return j + 3 <= e && b[j] === 58 && b[j + 1] === 47 && b[j + 2] === 47;
}
