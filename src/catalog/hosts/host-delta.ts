// Compact binary encoding of one round's per-host new-URL counts, as the
// host table stores it (one value per round; see Catalog.applyHostCounts):
//   n u32 | counts f64 × n | nameEnd u32 × n | name bytes (latin1)
// HOST_DELTA_HEADER_BYTES = 4. Little-endian. No JS object per host, so a
// round with millions of hosts stays tens of MB. Pure functions; no IO.
// A host's fold slice (hostSlice) is murmur3 of its name bytes modulo the
// slice count, so a fold can take the hosts one slice at a time.

import { DrumError } from '../../errors.js';
import { murmur3 } from '../../fingerprint/hash.js';

const SLICE_SEED = 0x68737473;

/** The fold slice of a host name (latin1 bytes), 0 <= slice < slices. */
export function hostSlice(host: string, slices: number): number {
  if (slices <= 1) return 0;
  const b = Buffer.from(host, 'latin1');
  return entrySlice(b, 0, b.length, slices);
}

/** hostSlice of the name in b[start, end). */
export function entrySlice(b: Uint8Array, start: number, end: number, slices: number): number {
  return slices <= 1 ? 0 : murmur3(b, start, end, SLICE_SEED) % slices;
}

export const HOST_DELTA_HEADER_BYTES = 4; // n

/** Bytes of the encoding of n hosts whose names take nameBytes. */
export function hostDeltaBytes(n: number, nameBytes: number): number {
  return HOST_DELTA_HEADER_BYTES + 8 * n + 4 * n + nameBytes;
}

/**
 * Encodes n hosts: name i is names[i === 0 ? 0 : ends[i-1], ends[i]). Into
 * a new Buffer, or into the start of `into` when it is long enough (every
 * byte of the part is written): then the result is a view of it.
 */
export function encodeHostDelta(n: number, counts: Float64Array, ends: Uint32Array, names: Uint8Array, into?: Buffer): Buffer {
  const nameBytes = n === 0 ? 0 : ends[n - 1]!;
  const len = hostDeltaBytes(n, nameBytes);
  const out = into !== undefined && into.length >= len ? into.subarray(0, len) : Buffer.alloc(len);
  out.writeUInt32LE(n, 0);
  let at = HOST_DELTA_HEADER_BYTES;
  for (let i = 0; i < n; i++, at += 8) out.writeDoubleLE(counts[i]!, at);
  for (let i = 0; i < n; i++, at += 4) out.writeUInt32LE(ends[i]!, at);
  out.set(names.subarray(0, nameBytes), at);
  return out;
}

export function encodeHostMap(m: ReadonlyMap<string, number>): Buffer {
  const n = m.size;
  const counts = new Float64Array(n);
  const ends = new Uint32Array(n);
  const parts: Buffer[] = [];
  let i = 0;
  let end = 0;
  for (const [host, c] of m) {
    const b = Buffer.from(host, 'latin1');
    parts.push(b);
    end += b.length;
    counts[i] = c;
    ends[i++] = end;
  }
  return encodeHostDelta(n, counts, ends, Buffer.concat(parts));
}

/** Calls fn for each (host, count) of an encoded delta. DRUM_CORRUPT_FILE if malformed. */
export function forEachHost(b: Uint8Array, fn: (host: string, count: number) => void, file = 'catalog'): void {
  forEachHostIn(b, 0, 1, fn, file);
}

/**
 * Calls fn for each entry of an encoded delta with its name's byte range in
 * `v` (names are never decoded: a fold that only places or copies them pays
 * no string per host). DRUM_CORRUPT_FILE if malformed.
 */
export function forEachEntry(b: Uint8Array, fn: (v: Buffer, nameStart: number, nameEnd: number, count: number) => void, file = 'catalog'): void {
  const v = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const bad = (): never => {
    throw new DrumError('DRUM_CORRUPT_FILE', `${file}: malformed host-count delta`, { file });
  };
  if (v.length < HOST_DELTA_HEADER_BYTES) bad();
  const n = v.readUInt32LE(0);
  const countsAt = HOST_DELTA_HEADER_BYTES;
  const endsAt = countsAt + 8 * n;
  const namesAt = endsAt + 4 * n;
  if (namesAt > v.length) bad();
  let start = 0;
  for (let i = 0; i < n; i++) {
    const end = v.readUInt32LE(endsAt + 4 * i);
    if (end < start || namesAt + end > v.length) bad();
    fn(v, namesAt + start, namesAt + end, v.readDoubleLE(countsAt + 8 * i));
    start = end;
  }
}

/**
 * Calls fn for each (host, count) of an encoded delta whose hostSlice(host,
 * slices) is `slice`; names of other slices are hashed, never decoded.
 */
export function forEachHostIn(b: Uint8Array, slice: number, slices: number, fn: (host: string, count: number) => void, file = 'catalog'): void {
  forEachEntry(b, (v, s, e, count) => {
    if (entrySlice(v, s, e, slices) === slice) fn(v.toString('latin1', s, e), count);
  }, file);
}
