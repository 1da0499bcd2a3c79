// Bench-only randomness: a seeded 32-bit PRNG (sfc32), a Zipf-like index
// sampler and a 32-bit integer mixer. Deterministic across platforms (only
// 32-bit integer ops and Math.log/exp on doubles). Not cryptographic, not for
// drum itself. Preconditions: seeds are any integers; n >= 1 for sampling.

/** Small Fast Counter PRNG (Chris Doty-Humphrey's sfc32): 128-bit state, period >= 2^32. */
export class Sfc32 {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seed: number) {
    // Expand the seed with splitmix-like mixing so nearby seeds diverge at once.
    this.a = mix32(seed ^ 0x9e3779b9);
    this.b = mix32(seed + 0x7f4a7c15);
    this.c = mix32(seed ^ 0x85ebca6b);
    this.d = 1;
    for (let i = 0; i < 16; i++) this.next();
  }

  /** Next uint32. */
  next(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform double in [0, 1). */
  float(): number {
    return this.next() / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }
}

/** murmur3 fmix32: a bijective avalanche of a 32-bit integer. */
export function mix32(x: number): number {
  x |= 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Mixes two integers into one uint32 (order matters). */
export function mix2(a: number, b: number): number {
  return mix32(Math.imul(mix32(a), 0x9e3779b1) ^ b);
}

/**
 * Zipf-like rank in [0, n) with exponent ~1: log-uniform, floor(n^u) - 1
 * over (n+1). Rank 0 is the most popular. P(rank < k) = log(k+1)/log(n+1).
 */
export function zipfIndex(u: number, n: number): number {
  const r = Math.floor(Math.exp(u * Math.log(n + 1))) - 1;
  return r < n ? r : n - 1;
}
