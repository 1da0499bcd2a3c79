// Saves and loads the parse threads' line memos between processes, so the
// next run starts with the raw lines a completed run accepted. A cache, not
// state: tied to the commit it was written after and to the canonicalization
// policy, checked by CRC, and ignored — never trusted — on any mismatch.
// Layout (little-endian, docs/file-format.md "Saved line memos"):
//   MEMO_MAGIC u32 | version u16 | flags u16 | commit u32 | policyHash u32 |
//   entries u32 | tables u32 | crc u32 | tables × (entries × 2 u32)
// MEMO_HEADER_BYTES = 4 + 2 + 2 + 4 + 4 + 4 + 4 + 4.
// Does not decide when saving is safe: the caller saves only after a run's
// final commit, when no parsed-but-uncommitted line is in any memo.

import * as fs from 'node:fs';
import { crc32 } from 'node:zlib';

export const MEMO_FILE = 'memo.cache';
export const MEMO_MAGIC = 0x4d444444; // "DDDM" read as little-endian u32
export const MEMO_VERSION = 1;
export const MEMO_HEADER_BYTES = 4 + 2 + 2 + 4 + 4 + 4 + 4 + 4; // magic, version, flags, commit, policyHash, entries, tables, crc

/** FNV-1a of the policy id: a memo is only valid under the policy that accepted its lines. */
export function policyHash(policyId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < policyId.length; i++) h = Math.imul(h ^ policyId.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Writes the tables (each `entries` × 2 u32) with a running CRC; tmp + rename, no fsync. */
export function saveMemos(path: string, commit: number, policyId: string, entries: number, tables: Uint32Array[]): void {
  const tmp = `${path}.tmp`;
  const fd = fs.openSync(tmp, 'w');
  try {
    let crc = 0;
    let at = MEMO_HEADER_BYTES;
    for (const t of tables) {
      if (t.length !== entries * 2) throw new RangeError(`saveMemos: a table of ${t.length / 2} entries, ${entries} expected`);
      const b = new Uint8Array(t.buffer, t.byteOffset, t.byteLength);
      fs.writeSync(fd, b, 0, b.length, at);
      at += b.length;
      crc = crc32(b, crc);
    }
    const h = Buffer.alloc(MEMO_HEADER_BYTES);
    h.writeUInt32LE(MEMO_MAGIC, 0);
    h.writeUInt16LE(MEMO_VERSION, 4);
    h.writeUInt16LE(0, 6);
    h.writeUInt32LE(commit >>> 0, 8);
    h.writeUInt32LE(policyHash(policyId), 12);
    h.writeUInt32LE(entries, 16);
    h.writeUInt32LE(tables.length, 20);
    h.writeUInt32LE(crc >>> 0, 24);
    fs.writeSync(fd, h, 0, h.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, path);
}

/** The saved tables if the file matches commit, policy and entries and checks out; else [] (start cold). */
export function loadMemos(path: string, commit: number, policyId: string, entries: number): Uint32Array[] {
  let b: Buffer;
  try {
    b = fs.readFileSync(path);
  } catch {
    return [];
  }
  if (entries === 0 || b.length < MEMO_HEADER_BYTES || b.readUInt32LE(0) !== MEMO_MAGIC || b.readUInt16LE(4) !== MEMO_VERSION) return [];
  if (b.readUInt32LE(8) !== commit >>> 0 || b.readUInt32LE(12) !== policyHash(policyId) || b.readUInt32LE(16) !== entries) return [];
  const n = b.readUInt32LE(20);
  const tableBytes = entries * 8;
  if (b.length !== MEMO_HEADER_BYTES + n * tableBytes || crc32(b.subarray(MEMO_HEADER_BYTES)) !== b.readUInt32LE(24)) return [];
  const out: Uint32Array[] = [];
  for (let i = 0; i < n; i++) {
    const at = MEMO_HEADER_BYTES + i * tableBytes;
    // A copy of its own per table: each goes to a different thread.
    out.push(new Uint32Array(Uint8Array.prototype.slice.call(b, at, at + tableBytes).buffer));
  }
  return out;
}
