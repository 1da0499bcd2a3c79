// Deterministic key generators for the tier tests: a seeded uint32 stream
// (splitmix32) and helpers that fill parallel hi/lo arrays. Not a test file
// itself; no assertions. Keys are 64-bit fingerprints as two uint32 halves.

/** splitmix32: a seeded uint32 stream, good enough to draw test keys. */
export function uint32s(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x9e3779b9) | 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** n random keys as parallel hi/lo arrays. */
export function randomKeys(n: number, seed: number): { hi: Uint32Array; lo: Uint32Array } {
  const next = uint32s(seed);
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    hi[i] = next();
    lo[i] = next();
  }
  return { hi, lo };
}

/** The key as a Set-model string. */
export function id(hi: number, lo: number): string {
  return `${hi >>> 0}:${lo >>> 0}`;
}

/**
 * Key families that differ in one part only, for spread tests: count keys
 * varying only the low bits of lo, only the top bits of lo, only the host
 * bits (top 24 of hi), only the low 8 bits of hi plus lo's top bits.
 */
export function narrowFamilies(count: number): Record<string, [number, number][]> {
  const f: Record<string, [number, number][]> = {
    'only the low bits of lo': [],
    'only the high bits of lo': [],
    'only the host bits (top 24 of hi)': [],
    'only the low bits of hi': [],
  };
  const shift = 32 - Math.ceil(Math.log2(count));
  for (let i = 0; i < count; i++) {
    f['only the low bits of lo']!.push([0x12345600, i >>> 0]);
    f['only the high bits of lo']!.push([0x12345600, (i << shift) >>> 0]);
    f['only the host bits (top 24 of hi)']!.push([(i << 8) >>> 0, 0xabcdef01]);
    f['only the low bits of hi']!.push([(0x12345600 | (i & 0xff)) >>> 0, ((i >>> 8) << 24) >>> 0]);
  }
  return f;
}
