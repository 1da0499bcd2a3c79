// Saves and loads the hot cache and the recent table between processes, so a
// crawl's next batch starts with warm tiers. The file is a cache, not state:
// it is written after a commit (when every key in both tables is stored), is
// tied to that committed state (its number and manifest CRC, Store.committed),
// and is ignored — never trusted — when its state, geometry, length or CRC
// disagree. Layout (little-endian; the envelope is cache-file.ts's):
//   TIER_MAGIC u32 | version u16 | flags u16 | commit u32 | stateId u32 | crc u32 (whole file) | then per table:
//   sets u32 | ways u32 | occupied u32 | keys (sets·ways·2 u32) | meta (sets u32)
// TIER_HEADER_BYTES = 4 + 2 + 2 + 4 + 4 + 4; TABLE_HEADER_BYTES = 4 + 4 + 4.

import * as fs from 'node:fs';
import { crc32 } from 'node:zlib';
import type { SetAssocTable } from './set-assoc.js';
import type { CommitId } from '../store/store.js';
import type { DrumFs } from '../io/fs.js';
import { cacheCrcStart, cacheHeaderBytes, readCacheHeader, writeCacheFile } from './cache-file.js';

export const TIER_FILE = 'tiers.cache';
export const TIER_MAGIC = 0x54524444; // "DDRT" read as little-endian u32
export const TIER_VERSION = 3; // 2: the state id joined the commit number; 3: the CRC covers the header too
export const TIER_HEADER_BYTES = cacheHeaderBytes(0); // magic, version, flags, commit, stateId, crc of the rest
const TABLE_HEADER_BYTES = 4 + 4 + 4; // sets, ways, occupied

type Table = SetAssocTable;

/**
 * Writes both tables (tmp + rename; no fsync: a lost or torn file is simply
 * ignored next time): the tables' own arrays one after another, no copy.
 */
export function saveTiers(dfs: DrumFs, path: string, at: CommitId, tables: Table[]): void {
  const body = tables.flatMap((t) => {
    const s = t.snapshot();
    const h = Buffer.alloc(TABLE_HEADER_BYTES);
    h.writeUInt32LE(s.sets, 0);
    h.writeUInt32LE(s.ways, 4);
    h.writeUInt32LE(s.occupied, 8);
    return [h, new Uint8Array(s.keys.buffer, s.keys.byteOffset, s.keys.byteLength), new Uint8Array(s.meta.buffer, s.meta.byteOffset, s.meta.byteLength)];
  });
  writeCacheFile(dfs, path, TIER_MAGIC, TIER_VERSION, at, [], body);
}

/** Loads both tables if the file matches the committed state `at` and checks out; returns whether it did. */
export function loadTiers(path: string, committed: CommitId, tables: Table[]): boolean {
  let b: Buffer;
  try {
    b = fs.readFileSync(path);
  } catch {
    return false;
  }
  const head = readCacheHeader(b, TIER_MAGIC, TIER_VERSION, committed, 0);
  if (head === null || crc32(b.subarray(TIER_HEADER_BYTES), cacheCrcStart(b, TIER_HEADER_BYTES)) !== head.crc) return false;
  // Parse everything first; restore only if every table fits.
  const parsed: { sets: number; ways: number; occupied: number; keys: Uint32Array; meta: Uint32Array }[] = [];
  let at = TIER_HEADER_BYTES;
  for (let i = 0; i < tables.length; i++) {
    if (at + TABLE_HEADER_BYTES > b.length) return false;
    const sets = b.readUInt32LE(at);
    const ways = b.readUInt32LE(at + 4);
    const occupied = b.readUInt32LE(at + 8);
    at += TABLE_HEADER_BYTES;
    const keyBytes = sets * ways * 8;
    if (at + keyBytes + sets * 4 > b.length) return false;
    // Views into the file's bytes (every offset is a multiple of 4); restore() copies them into the tables.
    const keys = u32View(b, at, keyBytes);
    at += keyBytes;
    const meta = u32View(b, at, sets * 4);
    at += sets * 4;
    parsed.push({ sets, ways, occupied, keys, meta });
  }
  if (at !== b.length) return false;
  const s0 = tables.map((t) => t.snapshot());
  if (!parsed.every((p, i) => p.sets === s0[i]!.sets && p.ways === s0[i]!.ways)) return false;
  parsed.forEach((p, i) => tables[i]!.restore(p.sets, p.ways, p.keys, p.meta, p.occupied));
  return true;
}

/** b[at, at + bytes) as a Uint32Array: a view when aligned (the usual case), else a copy. */
function u32View(b: Buffer, at: number, bytes: number): Uint32Array {
  if (((b.byteOffset + at) & 3) === 0) return new Uint32Array(b.buffer, b.byteOffset + at, bytes >>> 2);
  return new Uint32Array(Uint8Array.prototype.slice.call(b, at, at + bytes).buffer);
}
