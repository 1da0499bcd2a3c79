// Saves and loads the parse threads' line memos between processes, so the
// next run starts with the raw lines a completed run accepted. A cache, not
// state: tied to the committed state it was written after (its number and
// manifest CRC, Store.committed) and to the canonicalization policy, checked
// by CRC, and ignored — never trusted — on any mismatch.
// Layout (little-endian, docs/file-format.md "Saved line memos"; the envelope is cache-file.ts's):
//   MEMO_MAGIC u32 | version u16 | flags u16 | commit u32 | stateId u32 |
//   policyHash u32 | entries u32 | tables u32 | crc u32 | tables × (entries × 2 u32)
// MEMO_HEADER_BYTES = 4 + 2 + 2 + 4 + 4 + 4 + 4 + 4 + 4.
// Does not decide when saving is safe: the caller saves only after a run's
// final commit, when no parsed-but-uncommitted line is in any memo.

import * as fs from 'node:fs';
import { crc32 } from 'node:zlib';
import type { CommitId } from '../store/store.js';
import type { DrumFs } from '../io/fs.js';
import { cacheCrcStart, cacheHeaderBytes, readCacheHeader, writeCacheFile } from './cache-file.js';

export const MEMO_FILE = 'memo.cache';
export const MEMO_MAGIC = 0x4d444444; // "DDDM" read as little-endian u32
export const MEMO_VERSION = 2; // 2: the CRC covers the header too
export const MEMO_HEADER_BYTES = cacheHeaderBytes(3); // magic, version, flags, commit, stateId, policyHash, entries, tables, crc

/** FNV-1a of the policy id: a memo is only valid under the policy that accepted its lines. */
export function policyHash(policyId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < policyId.length; i++) h = Math.imul(h ^ policyId.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Writes the tables (each `entries` × 2 u32, written as they are); tmp + rename, no fsync. */
export function saveMemos(dfs: DrumFs, path: string, at: CommitId, policyId: string, entries: number, tables: Uint32Array[]): void {
  for (const t of tables) {
    if (t.length !== entries * 2) throw new RangeError(`saveMemos: a table of ${t.length / 2} entries, ${entries} expected`);
  }
  const body = tables.map((t) => new Uint8Array(t.buffer, t.byteOffset, t.byteLength));
  writeCacheFile(dfs, path, MEMO_MAGIC, MEMO_VERSION, at, [policyHash(policyId), entries, tables.length], body);
}

/**
 * The saved tables if the file matches the committed state, the policy and
 * `entries` and checks out; else [] (start cold). Each table is read straight
 * into an array of its own (they go to different threads): no file-sized copy.
 */
export function loadMemos(path: string, committed: CommitId, policyId: string, entries: number): Uint32Array[] {
  if (entries === 0) return [];
  let fd: number;
  try {
    fd = fs.openSync(path, 'r');
  } catch {
    return [];
  }
  try {
    const h = Buffer.alloc(MEMO_HEADER_BYTES);
    if (fs.readSync(fd, h, 0, h.length, 0) !== h.length) return [];
    const head = readCacheHeader(h, MEMO_MAGIC, MEMO_VERSION, committed, 3);
    if (head === null) return [];
    const [policy, tableEntries, n] = head.fields as [number, number, number];
    if (policy !== policyHash(policyId) || tableEntries !== entries) return [];
    const tableBytes = entries * 8;
    if (fs.fstatSync(fd).size !== MEMO_HEADER_BYTES + n * tableBytes) return [];
    const out: Uint32Array[] = [];
    let crc = cacheCrcStart(h, MEMO_HEADER_BYTES);
    for (let i = 0; i < n; i++) {
      const t = new Uint32Array(entries * 2);
      const b = new Uint8Array(t.buffer);
      if (fs.readSync(fd, b, 0, tableBytes, MEMO_HEADER_BYTES + i * tableBytes) !== tableBytes) return [];
      crc = crc32(b, crc);
      out.push(t);
    }
    return crc >>> 0 === head.crc ? out : [];
  } catch {
    return [];
  } finally {
    fs.closeSync(fd);
  }
}
