// One committed round's host-count parts as a file of its own under hosts/
// (bytes in docs/file-format.md, "Round delta file"): written whole as
// `*.tmp`, fsynced, renamed, the directory fsynced (and the one above when
// this file created it), and only then named by the catalog (host-table.ts).
// Kept out of LevelDB because LevelDB maps its
// table files into memory when it compacts or scans them: a round of 10^6
// hosts is ~40 MB of parts, and compacting them put 26-33 MB of mapped
// pages in the ingest's RSS at its first round. Read through DrumFs with
// positional reads into one reused buffer, never mapped. Does not decode the parts
// (host-delta.ts does) and does not decide which files count (the catalog's
// records do).
// REQUIRES: parts are encoded by host-delta.ts; one writer per file.

import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import { DrumError, osCode } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';

export const DELTA_FILE_MAGIC = 0x44485244; // "DRHD" little-endian
export const DELTA_FILE_VERSION = 1;
export const HEADER_BYTES = 4 + 2 + 2 + 8; // magic, version, flags, parts
export const PART_LEN_BYTES = 4; // u32 length before each part
export const CRC_BYTES = 4; // CRC-32 of the part's bytes after it
const FIRST_BUFFER_BYTES = 1 << 20;

/** The catalog's record of one round's delta file (sublevel hostDeltaFiles, key: the round marker). */
export interface DeltaFileRecord {
  /** File name under <state>/hosts/. */
  name: string;
  /** Parts in the file. */
  parts: number;
  /** Bytes of parts (without lengths and CRCs). */
  bytes: number;
  /** Host entries over all parts (a host may be in several). */
  hosts: number;
}

/** The file name of a round's deltas: one per round marker (`<runId>|<round>`), so a redo of a crashed apply writes the same name. */
export function deltaFileName(marker: string): string {
  return `delta-${marker.replace(/[^A-Za-z0-9_-]/g, '-')}.hd`;
}

export const DELTA_FILE_PATTERN = /^delta-[A-Za-z0-9_-]+\.hd(\.tmp)?$/;

function corrupt(file: string, what: string): never {
  throw new DrumError('DRUM_CORRUPT_FILE', `${file}: ${what}`, { file });
}

/**
 * Writes `parts` (each copied before the next is requested, so they may be
 * views of one reused buffer) as `<dir>/<name>`: tmp, fsync when `sync`,
 * rename, fsync of the directory; a new directory is made durable first
 * (the first round of a store creates hosts/ after its commit's fsync of
 * the state directory: a power loss would otherwise take hosts/ with the
 * file the catalog names). Returns the record the catalog keeps.
 * A part with no hosts is left out. On an error the tmp file is removed.
 */
export function writeDeltaFile(fs: DrumFs, dir: string, name: string, parts: Iterable<Uint8Array>, sync: boolean): DeltaFileRecord {
  fs.mkdirp(dir, sync);
  const tmp = join(dir, `${name}.tmp`);
  const fd = fs.open(tmp, 'w');
  const rec: DeltaFileRecord = { name, parts: 0, bytes: 0, hosts: 0 };
  const word = Buffer.allocUnsafe(4);
  let pos = HEADER_BYTES;
  try {
    for (const part of parts) {
      const hosts = part.byteLength >= 4 ? Buffer.from(part.buffer, part.byteOffset, 4).readUInt32LE(0) : 0;
      if (hosts === 0) continue;
      word.writeUInt32LE(part.byteLength, 0);
      fs.write(fd, word, 0, PART_LEN_BYTES, pos);
      fs.write(fd, part, 0, part.byteLength, pos + PART_LEN_BYTES);
      word.writeUInt32LE(crc32(part), 0);
      fs.write(fd, word, 0, CRC_BYTES, pos + PART_LEN_BYTES + part.byteLength);
      pos += PART_LEN_BYTES + part.byteLength + CRC_BYTES;
      rec.parts++;
      rec.bytes += part.byteLength;
      rec.hosts += hosts;
    }
    const head = Buffer.alloc(HEADER_BYTES);
    head.writeUInt32LE(DELTA_FILE_MAGIC, 0);
    head.writeUInt16LE(DELTA_FILE_VERSION, 4);
    head.writeUInt16LE(0, 6);
    head.writeBigUInt64LE(BigInt(rec.parts), 8);
    fs.write(fd, head, 0, HEADER_BYTES, 0);
    if (sync) fs.fsync(fd);
  } catch (e) {
    fs.close(fd);
    try {
      fs.unlink(tmp);
    } catch {
      // best effort: the next fold removes files no record names
    }
    throw e;
  }
  fs.close(fd);
  fs.rename(tmp, join(dir, name));
  if (sync) fs.fsyncDir(dir);
  return rec;
}

/**
 * Calls fn with each part of the file at `path`, in order, after checking
 * its CRC. A part is a view of one reused buffer, valid only during fn.
 * DRUM_CORRUPT_FILE (naming the file) when it is missing, short or damaged;
 * DRUM_IO (from `dfs`) when the OS refuses a read.
 */
export function forEachDeltaPart(dfs: DrumFs, path: string, fn: (part: Uint8Array) => void): void {
  let fd: number;
  try {
    fd = dfs.open(path, 'r');
  } catch (e) {
    if (osCode(e) === 'ENOENT') corrupt(path, 'the round delta file the catalog names is missing');
    throw e;
  }
  try {
    const size = dfs.sizeOf(fd, path);
    let buf = Buffer.allocUnsafe(FIRST_BUFFER_BYTES);
    const readAt = (len: number, at: number): Buffer => {
      // A damaged length must not size a buffer past the file.
      if (at + len > size) corrupt(path, 'round delta file ends early');
      if (len > buf.length) buf = Buffer.allocUnsafe(len);
      if (dfs.readFully(fd, buf, 0, len, at) !== len) corrupt(path, 'round delta file ends early');
      return buf;
    };
    const head = readAt(HEADER_BYTES, 0);
    if (head.readUInt32LE(0) !== DELTA_FILE_MAGIC) corrupt(path, 'not a round delta file (bad magic)');
    if (head.readUInt16LE(4) !== DELTA_FILE_VERSION) corrupt(path, `round delta file version ${head.readUInt16LE(4)} is not ${DELTA_FILE_VERSION}`);
    const parts = Number(head.readBigUInt64LE(8));
    let pos = HEADER_BYTES;
    for (let i = 0; i < parts; i++) {
      const len = readAt(PART_LEN_BYTES, pos).readUInt32LE(0);
      const b = readAt(len + CRC_BYTES, pos + PART_LEN_BYTES);
      if (crc32(b.subarray(0, len)) !== b.readUInt32LE(len)) corrupt(path, `round delta part ${i} fails its CRC`);
      fn(b.subarray(0, len));
      pos += PART_LEN_BYTES + len + CRC_BYTES;
    }
  } finally {
    dfs.close(fd);
  }
}
