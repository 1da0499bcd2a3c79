// Builds drum's 64-bit keys: the top H bits from the host's fingerprint, the
// low 64-H bits from the whole URL's (Mercator's locality trick: one host's
// URLs sort together). Works on whole CanonicalBatches into Uint32Array hi/lo
// pairs. Also the collision estimate `drum stats` shows. Does not canonicalize.
// REQUIRES: 0 <= H <= 32; URL bytes are the canonical form.

import { murmur3, murmur3View, murmur3x2, murmur3x2View, viewOf } from './hash.js';

/** Identifies the fingerprint function in the manifest; change it and old stores are refused. */
export const HASH_ID = 'drum-mm3x2/v1';

const SEED_HOST = 0x9747b28c;
const SEED_URL_A = 0x5bd1e995;
const SEED_URL_B = 0x1b873593 ^ 0x7f4a7c15;

/** Mask keeping the top H bits of a 32-bit word. */
export function hostMask(hostBits: number): number {
  return hostBits === 0 ? 0 : (0xffffffff << (32 - hostBits)) >>> 0;
}

const scratch = new Uint32Array(2);

/** The host fingerprint whose top H bits open every key of that host (hostBits >= H). */
export function hostHash(b: Uint8Array, hostStart: number, hostEnd: number): number {
  return murmur3(b, hostStart, hostEnd, SEED_HOST) >>> 0;
}

/** Key of one canonical URL held in b[start,end) with host b[hostStart,hostEnd). Writes hi/lo to out[at], out[at+1]. */
export function keyOf(
  b: Uint8Array,
  start: number,
  end: number,
  hostStart: number,
  hostEnd: number,
  hostBits: number,
  out: Uint32Array,
  at: number,
): void {
  murmur3x2(b, start, end, SEED_URL_A, SEED_URL_B, scratch, 0);
  const mask = hostMask(hostBits);
  const host = mask === 0 ? 0 : murmur3(b, hostStart, hostEnd, SEED_HOST);
  const urlTop = hostBits === 32 ? 0 : scratch[0]! >>> hostBits;
  out[at] = ((host & mask) | urlTop) >>> 0;
  out[at + 1] = scratch[1]!;
}

/**
 * Keys of a batch of n URLs back to back in `bytes` (URL i ends at ends[i]),
 * hosts at [hostStarts[i], hostEnds[i]). Writes hi to keys[2i], lo to keys[2i+1].
 * Same values as keyOf per URL: hashRanges gives both URL lanes, then the
 * host hash replaces hi's top H bits. The host hash is recomputed per URL:
 * measured, that is cheaper than comparing the host bytes with the previous URL's.
 */
export function keysOfBatch(
  bytes: Uint8Array,
  n: number,
  ends: Uint32Array,
  hostStarts: Uint32Array,
  hostEnds: Uint32Array,
  hostBits: number,
  keys: Uint32Array,
): void {
  hashRanges(bytes, n, null, ends, SEED_URL_A, SEED_URL_B, keys);
  const mask = hostMask(hostBits);
  const dv = viewOf(bytes);
  for (let x = 0; x < n; x++) {
    const host = mask === 0 ? 0 : murmur3View(dv, bytes, hostStarts[x]!, hostEnds[x]!, SEED_HOST);
    keys[2 * x] = ((host & mask) | (hostBits === 32 ? 0 : keys[2 * x]! >>> hostBits)) >>> 0;
  }
}

/**
 * murmur3x2 (two 32-bit murmur3 lanes over the same blocks, seeds a and b) of
 * n byte ranges of `bytes`: [starts[x], ends[x]), or back to back from 0 when
 * `starts` is null. Writes lane a to out[2x], lane b to out[2x+1]; equal to
 * murmur3x2 per range, with one DataView for the whole batch.
 */
export function hashRanges(
  bytes: Uint8Array,
  n: number,
  starts: Uint32Array | null,
  ends: Uint32Array,
  seedA: number,
  seedB: number,
  out: Uint32Array,
): void {
  const dv = viewOf(bytes);
  let start = 0;
  for (let x = 0; x < n; x++) {
    if (starts !== null) start = starts[x]!;
    const end = ends[x]!;
    murmur3x2View(dv, bytes, start, end, seedA, seedB, out, 2 * x);
    start = end;
  }
}

/** Key of a canonical URL string (ASCII) as [hi, lo]; for tests and small API calls, not hot paths. */
export function keyOfString(url: string, hostBits: number): [number, number] {
  const b = Buffer.from(url, 'latin1');
  const s = url.indexOf('://');
  let hs = s < 0 ? 0 : s + 3;
  let he = hs;
  while (he < b.length && b[he] !== 0x2f && b[he] !== 0x3f && b[he] !== 0x23) he++;
  if (s < 0) hs = he = 0;
  const out = new Uint32Array(2);
  keyOf(b, 0, b.length, hs, he, hostBits, out, 0);
  return [out[0]!, out[1]!];
}

/**
 * Expected number of colliding key pairs among stored URLs. Two URLs of the
 * same host collide with probability 2^-(64-H); of different hosts 2^-64.
 * `hostCounts` are URLs per host when known; otherwise pass [] and the
 * estimate treats every URL as its own host (a lower bound).
 */
export function expectedCollisions(totalUrls: number, hostBits: number, hostCounts: Iterable<number> = []): number {
  let sameHostPairs = 0;
  for (const c of hostCounts) sameHostPairs += (c * (c - 1)) / 2;
  const allPairs = (totalUrls * (totalUrls - 1)) / 2;
  const crossPairs = Math.max(0, allPairs - sameHostPairs);
  return sameHostPairs * 2 ** -(64 - hostBits) + crossPairs * 2 ** -64;
}

const SEED_HOST_CHECK = 0x2545f491;

/**
 * The host check of a URL's value: a second 32-bit fingerprint of the
 * canonical host[:port] b[hostStart, hostEnd), under another seed than the
 * key's host bits, so a host is told apart exactly enough to forget it
 * (24 key bits alone collide past ~2^12 hosts).
 */
export function hostCheckOf(b: Uint8Array, hostStart: number, hostEnd: number): number {
  return murmur3(b, hostStart, hostEnd, SEED_HOST_CHECK) >>> 0;
}
