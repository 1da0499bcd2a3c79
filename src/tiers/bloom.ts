// BlockedBloom: a cache-line blocked Bloom filter (Putze, Sanders & Singler
// 2007) over 64-bit keys given as (hi, lo) uint32 halves. A key picks one
// 512-bit block (16 uint32 words = one 64-byte cache line) by a mix of both
// halves, then sets / tests k bits inside that block at positions drawn from a
// second mix stepped by a 32-bit LCG. One probe touches one cache line.
// Never a false negative; false positives at the rate expectedFpRate() gives
// (the paper's Poisson mixture over block loads, not the classic formula).
// Also the FP-rate formulas the engine and the report use.
// Does not read or write files (bloom-file.ts does) and does not decide gate
// vs lossy (the engine does). Not resizable: the engine builds a new filter at
// each merge (forKeys with the new store size) and add()s every key it streams;
// between merges it adds a run's new keys only while `room` lasts.
// Preconditions: hi, lo are uint32 (`>>> 0`). The bit layout and hashing are
// part of the on-disk format (bloom-file.ts FORMAT_VERSION): change them only
// with a version bump.

import { DrumError } from '../errors.js';
import { mixKey, mixKey2, rangeScale } from './mix.js';

/** Bits per block: one 64-byte cache line. */
export const BLOCK_BITS = 512;
/** uint32 words per block. */
export const BLOCK_WORDS = BLOCK_BITS / 32;
/** Bytes per block. */
export const BLOCK_BYTES = BLOCK_BITS / 8;
/** Largest filter: 2^27 blocks = 8 GiB (keeps word indices below 2^31). */
export const MAX_BLOCKS = 2 ** 27;
/** Most hash functions we use (k); bits per key up to 64 gives k ≤ 44. */
export const MAX_K = 64;
/**
 * Bit positions inside a block: the top 9 bits of successive states of a
 * full-period 32-bit LCG (L'Ecuyer's multiplier) seeded by mixKey2. Measured
 * (docs/tiers.md) to match the independent-positions formula within noise,
 * where double hashing (a + i·b) ran 4-30 % above it at 10-20 bits per key.
 */
const LCG_MUL = 0x2c1b3c6d;
const LCG_ADD = 0x297a2d39;

/** k for a bits-per-key budget: round(bitsPerKey · ln 2), at least 1. */
export function optimalK(bitsPerKey: number): number {
  return Math.max(1, Math.min(MAX_K, Math.round(bitsPerKey * Math.LN2)));
}

/** Blocks needed for `keys` keys at `bitsPerKey` bits each (at least 1). */
export function blocksFor(keys: number, bitsPerKey: number): number {
  if (!(keys >= 0) || !(bitsPerKey > 0) || !Number.isFinite(keys * bitsPerKey)) {
    throw new DrumError('DRUM_BAD_OPTION', `bloom size needs keys >= 0 and bitsPerKey > 0, got ${keys}, ${bitsPerKey}`);
  }
  const blocks = Math.max(1, Math.ceil((keys * bitsPerKey) / BLOCK_BITS));
  if (blocks > MAX_BLOCKS) {
    throw new DrumError('DRUM_BAD_OPTION', `bloom filter of ${blocks} blocks exceeds the ${MAX_BLOCKS}-block (8 GiB) limit`);
  }
  return blocks;
}

/** Classic Bloom FP rate (1 − e^{−kn/m})^k for m bits, n keys, k hashes. Underestimates blocked filters. */
export function classicFpRate(mBits: number, keys: number, k: number): number {
  if (keys <= 0) return 0;
  return Math.pow(-Math.expm1((-k * keys) / mBits), k);
}

/** ln(i!) — exact sum for small i, Stirling's series beyond. */
function lnFactorial(i: number): number {
  if (i < 32) {
    let s = 0;
    for (let j = 2; j <= i; j++) s += Math.log(j);
    return s;
  }
  return i * Math.log(i) - i + 0.5 * Math.log(2 * Math.PI * i) + 1 / (12 * i) - 1 / (360 * i * i * i);
}

/**
 * Blocked Bloom FP rate (Putze et al. 2007, eq. for "blocked Bloom filters"):
 * Σ_i Poisson(i; λ = n / blocks) · (1 − (1 − 1/B)^{i·k})^k, B = block bits.
 * The block loads vary, and the overloaded blocks dominate the sum, which is
 * why this exceeds classicFpRate at the same m, n, k.
 */
export function blockedFpRate(blocks: number, keys: number, k: number, blockBits = BLOCK_BITS): number {
  if (keys <= 0) return 0;
  const lambda = keys / blocks;
  const ln1m = Math.log1p(-1 / blockBits);
  const inner = (i: number): number => Math.pow(-Math.expm1(i * k * ln1m), k);
  const mode = Math.floor(lambda);
  const spread = 12 * Math.sqrt(lambda) + 30;
  const first = Math.max(0, Math.floor(lambda - spread));
  const last = Math.ceil(lambda + spread);
  const pMode = Math.exp(-lambda + mode * Math.log(lambda) - lnFactorial(mode));
  let sum = pMode * inner(mode);
  let p = pMode;
  for (let i = mode + 1; i <= last; i++) {
    p *= lambda / i;
    sum += p * inner(i);
  }
  p = pMode;
  for (let i = mode; i > first; i--) {
    p *= i / lambda;
    sum += p * inner(i - 1);
  }
  return Math.min(1, sum);
}

export class BlockedBloom {
  /** 512-bit blocks. */
  readonly blocks: number;
  /** Bits set (and tested) per key. */
  readonly k: number;
  /** The bits-per-key budget it was sized for (informational; recorded in the file). */
  readonly bitsPerKey: number;
  /** add() calls so far (the merge adds each stored key once, so this is the store size). */
  keys: number;
  /** The bit array: block b is words [16b, 16b + 16); bit p of a block is bit p & 31 of word p >>> 5. */
  readonly words: Uint32Array;
  private readonly scale: number;

  /** Bytes a filter for `keys` keys at `bitsPerKey` uses (what the engine budgets). */
  static bytesFor(keys: number, bitsPerKey: number): number {
    return blocksFor(keys, bitsPerKey) * BLOCK_BYTES;
  }

  /** An empty filter sized for `expectedKeys` keys at `bitsPerKey` bits each, k = round(bitsPerKey · ln 2). */
  static forKeys(expectedKeys: number, bitsPerKey: number): BlockedBloom {
    return new BlockedBloom(blocksFor(expectedKeys, bitsPerKey), optimalK(bitsPerKey), bitsPerKey);
  }

  /**
   * The filter a store rebuilds for `keys` keys (a merge, a fold, a forget,
   * a repair): room for 1.5 × them, so the run's new keys fill it only
   * towards the nominal rate, at least 1,024 and at most `maxKeys` (the
   * budget's Bloom share).
   */
  static forStore(keys: number, bitsPerKey: number, maxKeys = Number.MAX_SAFE_INTEGER): BlockedBloom {
    return BlockedBloom.forKeys(Math.min(maxKeys, Math.max(1024, Math.ceil(keys * 1.5))), bitsPerKey);
  }

  /** Low-level: a filter of `blocks` blocks and `k` bits per key, optionally over an existing bit array (readBloom). */
  constructor(blocks: number, k: number, bitsPerKey: number, words?: Uint32Array, keys = 0) {
    if (!Number.isInteger(blocks) || blocks < 1 || blocks > MAX_BLOCKS) {
      throw new DrumError('DRUM_BAD_OPTION', `bloom blocks must be an integer in [1, ${MAX_BLOCKS}], got ${blocks}`);
    }
    if (!Number.isInteger(k) || k < 1 || k > MAX_K) {
      throw new DrumError('DRUM_BAD_OPTION', `bloom k must be an integer in [1, ${MAX_K}], got ${k}`);
    }
    if (words !== undefined && words.length !== blocks * BLOCK_WORDS) {
      throw new DrumError('DRUM_INTERNAL', `bloom bit array has ${words.length} words, expected ${blocks * BLOCK_WORDS}`);
    }
    this.blocks = blocks;
    this.k = k;
    this.bitsPerKey = bitsPerKey;
    this.words = words ?? new Uint32Array(blocks * BLOCK_WORDS);
    this.keys = keys;
    this.scale = rangeScale(blocks);
  }

  /** Bytes of the bit array. */
  get bytes(): number {
    return this.words.byteLength;
  }

  /** Which block a key maps to (exposed for tests of the spread). */
  blockOf(hi: number, lo: number): number {
    return Math.floor(mixKey(hi, lo) * this.scale);
  }

  /** Sets the key's k bits. Allocation-free; the merge calls it for every stored key. */
  add(hi: number, lo: number): void {
    const words = this.words;
    const base = Math.floor(mixKey(hi, lo) * this.scale) * BLOCK_WORDS;
    let x = mixKey2(hi, lo) | 0;
    for (let i = this.k; i > 0; i--) {
      const p = x >>> 23;
      words[base + (p >>> 5)] |= 1 << (p & 31);
      x = (Math.imul(x, LCG_MUL) + LCG_ADD) | 0;
    }
    this.keys++;
  }

  /**
   * Adds n keys stored interleaved [hi0, lo0, hi1, lo1, ...] from index 0: the
   * store's key-block layout, so it can serve as KeyWriter's BlockSink.
   */
  addPairs(keys: Uint32Array, n: number): void {
    for (let i = 0; i < n; i++) this.add(keys[2 * i]!, keys[2 * i + 1]!);
  }

  /** False means the key was certainly never added; true means it may have been. */
  mayContain(hi: number, lo: number): boolean {
    const words = this.words;
    const base = Math.floor(mixKey(hi, lo) * this.scale) * BLOCK_WORDS;
    let x = mixKey2(hi, lo) | 0;
    for (let i = this.k; i > 0; i--) {
      const p = x >>> 23;
      if ((words[base + (p >>> 5)]! & (1 << (p & 31))) === 0) return false;
      x = (Math.imul(x, LCG_MUL) + LCG_ADD) | 0;
    }
    return true;
  }

  /**
   * Keys it was sized for (blocks · 512 / bitsPerKey): filled to them it
   * answers at its design rate, the nominal rate of its bits per key. A run
   * adds no key past them (`room`), so a round bigger than the filter
   * cannot saturate it.
   */
  get capacity(): number {
    const bits = this.bitsPerKey >= 1 ? this.bitsPerKey : this.k / Math.LN2;
    return Math.floor((this.blocks * BLOCK_BITS) / bits);
  }

  /** Keys it can still take within its capacity: 0 once full (or when it holds more, rebuilt from a store bigger than the budget allows). */
  get room(): number {
    return Math.max(0, this.capacity - this.keys);
  }

  /**
   * Expected false positives behind the keys that passed it as "definitely
   * new": `added` of them were added while it filled from `before` keys,
   * then `unadded` met it at its final fill (before + added) without being
   * added. A new key is a false positive with the rate r at its fill, and
   * passes with 1 − r, so each pass stands for r / (1 − r) of them.
   */
  expectedFalsePositives(before: number, added: number, unadded: number): number {
    let e = unadded > 0 ? unadded * this.fpOdds(before + added) : 0;
    if (added > 0) {
      // The rate grows convexly with the fill: a few steps when this fill is a large part of the capacity.
      const steps = added * 16 < this.capacity ? 1 : Math.min(4, added);
      let sum = 0;
      for (let i = 0; i < steps; i++) sum += this.fpOdds(before + ((i + 0.5) * added) / steps);
      e += (added * sum) / steps;
    }
    return e;
  }

  private oddsAt = -1;
  private odds = 0;

  /** r / (1 − r) for the rate r at `keys` keys; the last answer is kept (a full filter is asked at one fill chunk after chunk). */
  private fpOdds(keys: number): number {
    if (keys !== this.oddsAt) {
      const r = blockedFpRate(this.blocks, keys, this.k);
      this.odds = r / Math.max(1e-12, 1 - r);
      this.oddsAt = keys;
    }
    return this.odds;
  }

  /** Expected FP rate once `keys` distinct keys are in (default: the keys added so far). */
  expectedFpRate(keys: number = this.keys): number {
    return blockedFpRate(this.blocks, keys, this.k);
  }

  /** The classic formula at the same size, for comparison only (it underestimates). */
  classicFpRate(keys: number = this.keys): number {
    return classicFpRate(this.blocks * BLOCK_BITS, keys, this.k);
  }

  /** Clears every bit and the key count. */
  clear(): void {
    this.words.fill(0);
    this.keys = 0;
  }
}
