// Lays out a compiled policy as the byte blob the WebAssembly fast path
// (assembly/fast-canonical.ts) reads: flags, the fast path's byte tables, the
// query-name candidate filter and the name lists (tracking and session
// parameters, index files) as length-prefixed bytes. Built once per policy
// object; it does no URL work and does not touch linear memory itself.
// REQUIRES: the header order below to match setBatch() in
// assembly/fast-bytes.ts word for word.

import type { CompiledPolicy } from './compiled.js';
import { HOST_MAP, PATH_MAP, PATH_MAP_LOWER, QUERY_MAP } from './fast-bytes.js';
import { UNRESERVED } from './percent.js';

const HEADER = 64;
const cache = new WeakMap<CompiledPolicy, Uint8Array>();

/** u32 count, then per name a u32 byte length and its UTF-8 bytes (a non-ASCII name then never equals an ASCII one). */
function list(names: Iterable<string | Uint8Array>): Buffer {
  const parts = [...names].map((n) => (typeof n === 'string' ? Buffer.from(n, 'utf8') : n));
  const b = Buffer.alloc(4 + parts.reduce((a, p) => a + 4 + p.length, 0));
  b.writeUInt32LE(parts.length, 0);
  let o = 4;
  for (const p of parts) {
    b.writeUInt32LE(p.length, o);
    b.set(p, o + 4);
    o += 4 + p.length;
  }
  return b;
}

/** The policy blob of `c` (cached): header words are offsets from the blob's start. */
export function policyBlob(c: CompiledPolicy): Uint8Array {
  let blob = cache.get(c);
  if (blob !== undefined) return blob;
  const p = c.policy;
  const flags = (p.foldHttps ? 1 : 0) | (p.stripWww ? 2 : 0) | (p.lowercasePath ? 4 : 0) | (p.stripIndex ? 8 : 0);
  const cand = Buffer.from(c.fastQueryCand.buffer, c.fastQueryCand.byteOffset, c.fastQueryCand.byteLength);
  const sections: Uint8Array[] = [
    HOST_MAP, PATH_MAP, PATH_MAP_LOWER, QUERY_MAP, UNRESERVED, cand,
    list(c.exact), list(c.prefixes), list(c.sessionExact), list(c.sessionPrefixes),
    list(c.fastIndex),
  ];
  const head = Buffer.alloc(HEADER);
  head.writeUInt32LE(flags, 0);
  let off = HEADER;
  const offsets: number[] = [];
  for (const s of sections) {
    offsets.push(off);
    off += (s.length + 7) & ~7;
  }
  offsets.forEach((o, j) => head.writeUInt32LE(o, 4 + 4 * j));
  blob = new Uint8Array(off);
  blob.set(head, 0);
  sections.forEach((s, j) => blob!.set(s, offsets[j]!));
  cache.set(c, blob);
  return blob;
}
