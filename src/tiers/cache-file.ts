// The envelope the saved tiers share (tiers.cache, memo.cache): a header of
//   magic u32 | version u16 | flags u16 | commit u32 | stateId u32 | fields u32 × k | crc u32
// (the CRC covers the whole file: the header's bytes before the CRC field,
// which tie the file to this store and commit, then everything after the
// header), written to `*.tmp` and
// renamed through DrumFs, without fsync and with the old file deleted just
// before the rename (replace-file.ts says why): a cache, never state — a
// lost or torn file is ignored next time. Does not know what the body holds; each
// file module does (tier-file.ts, memo-file.ts, docs/file-format.md).

import { crc32 } from 'node:zlib';
import { isDrumError, type DrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { replaceFile } from '../io/replace-file.js';
import type { CommitId } from '../store/store.js';

/** Bytes of the header with `fields` file-specific u32 fields. */
export function cacheHeaderBytes(fields: number): number {
  return 4 + 2 + 2 + 4 + 4 + 4 * fields + 4; // magic, version, flags, commit, stateId, fields, crc
}

/**
 * Writes the body parts (with a running CRC, no copy of them) after the
 * header, then the header, replacing `path` through io/replace-file.ts (no
 * fsync). Callers treat DRUM_IO as "no cache this time" (saveCache) and let
 * anything else (a simulated crash) through.
 */
export function writeCacheFile(dfs: DrumFs, path: string, magic: number, version: number, at: CommitId, fields: readonly number[], body: Iterable<Uint8Array>): void {
  const headBytes = cacheHeaderBytes(fields.length);
  replaceFile(dfs, path, (fd) => {
    const h = Buffer.alloc(headBytes);
    h.writeUInt32LE(magic, 0);
    h.writeUInt16LE(version, 4);
    h.writeUInt16LE(0, 6);
    h.writeUInt32LE(at.commit >>> 0, 8);
    h.writeUInt32LE(at.stateId >>> 0, 12);
    fields.forEach((f, i) => h.writeUInt32LE(f >>> 0, 16 + 4 * i));
    let crc = cacheCrcStart(h, headBytes);
    let pos = headBytes;
    for (const b of body) {
      dfs.write(fd, b, 0, b.length, pos);
      pos += b.length;
      crc = crc32(b, crc);
    }
    h.writeUInt32LE(crc >>> 0, headBytes - 4);
    dfs.write(fd, h, 0, h.length, 0);
  }, { cache: true });
}

/** The CRC32 of a header's bytes before its CRC field: where the whole-file CRC starts (the body follows). */
export function cacheCrcStart(h: Uint8Array, headBytes: number): number {
  return crc32(h.subarray(0, headBytes - 4));
}

/**
 * Runs a cache save: an IO failure (DRUM_IO) only means no cache this time,
 * handed to `skipped` when given; anything else propagates.
 */
export function saveCache(save: () => void, skipped?: (e: DrumError) => void): void {
  try {
    save();
  } catch (e) {
    if (!isDrumError(e, 'DRUM_IO')) throw e;
    skipped?.(e);
  }
}

/**
 * The header's file-specific fields and body CRC if `h` (at least the
 * header's bytes) has this magic and version and was written after exactly
 * the committed state `at`; else null (the file is to be ignored).
 */
export function readCacheHeader(h: Uint8Array, magic: number, version: number, at: CommitId, fields: number): { fields: number[]; crc: number } | null {
  const headBytes = cacheHeaderBytes(fields);
  if (h.length < headBytes) return null;
  const b = Buffer.from(h.buffer, h.byteOffset, headBytes);
  if (b.readUInt32LE(0) !== magic || b.readUInt16LE(4) !== version) return null;
  if (b.readUInt32LE(8) !== at.commit >>> 0 || b.readUInt32LE(12) !== at.stateId >>> 0) return null;
  const out: number[] = [];
  for (let i = 0; i < fields; i++) out.push(b.readUInt32LE(16 + 4 * i));
  return { fields: out, crc: b.readUInt32LE(headBytes - 4) };
}
