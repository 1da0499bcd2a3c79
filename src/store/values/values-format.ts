// Byte layout of a store values file (docs/file-format.md, "Store values
// file"): one fixed-width value per key of the bucket's key file of the same
// commit, in the same order; and of a values delta file ("Store values delta
// file"), the same layout under another magic, each entry a position and
// the value inserted there. Constants, header encoding and checks, the
// exact file length and the file names. Pure functions; no IO. Keys-only
// stores have no values files (their key files stay version 1, unchanged).

import { crc32 } from 'node:zlib';
import { DrumError } from '../../errors.js';

export const VALUES_MAGIC = 0x564d5244; // "DRMV" read as little-endian u32
export const DELTA_MAGIC = 0x494d5244; // "DRMI" read as little-endian u32: a values delta file (inserts)
/** Bytes of a delta entry's position (u32: a bucket holds fewer than 2^32 keys, as the values pass's events assume) before its value. */
export const DELTA_POSITION_BYTES = 4;
export const VALUES_VERSION = 1;
export const VALUES_HEADER_BYTES = 4 + 2 + 2 + 4 + 4 + 4 + 4 + 4 + 4; // magic, version, flags, bucket, blockValues, valueBytes, countLo, countHi, headerCrc
export const VALUE_BLOCK = 8192; // values per full block (as BLOCK_KEYS)
export const VALUE_CRC_BYTES = 4;

export interface ValuesHeader {
  bucket: number;
  blockValues: number;
  valueBytes: number;
  count: number;
}

/** `magic`: VALUES_MAGIC, or DELTA_MAGIC for a delta file (whose valueBytes is an entry's: position and value). */
export function encodeValuesHeader(h: ValuesHeader, magic = VALUES_MAGIC): Buffer {
  const b = Buffer.alloc(VALUES_HEADER_BYTES);
  b.writeUInt32LE(magic, 0);
  b.writeUInt16LE(VALUES_VERSION, 4);
  b.writeUInt16LE(0, 6);
  b.writeUInt32LE(h.bucket, 8);
  b.writeUInt32LE(h.blockValues, 12);
  b.writeUInt32LE(h.valueBytes, 16);
  b.writeUInt32LE(h.count % 2 ** 32, 20);
  b.writeUInt32LE(Math.floor(h.count / 2 ** 32), 24);
  b.writeUInt32LE(crc32(b.subarray(0, 28)), 28);
  return b;
}

export function decodeValuesHeader(b: Uint8Array, file: string, magic = VALUES_MAGIC): ValuesHeader {
  const corrupt = (what: string): never => {
    throw new DrumError('DRUM_CORRUPT_FILE', `${file}: ${what}`, { file });
  };
  if (b.length < VALUES_HEADER_BYTES) corrupt('shorter than its header');
  const v = Buffer.from(b.buffer, b.byteOffset, VALUES_HEADER_BYTES);
  if (v.readUInt32LE(0) !== magic) corrupt(`bad magic (not a drum values ${magic === DELTA_MAGIC ? 'delta ' : ''}file)`);
  if (v.readUInt16LE(4) !== VALUES_VERSION) corrupt(`unsupported version ${v.readUInt16LE(4)}`);
  if (v.readUInt32LE(28) !== crc32(v.subarray(0, 28))) corrupt('header checksum mismatch');
  const blockValues = v.readUInt32LE(12);
  const valueBytes = v.readUInt32LE(16);
  if (blockValues === 0) corrupt('zero block size');
  if (valueBytes === 0 || valueBytes % 4 !== 0) corrupt(`value width ${valueBytes} is not a positive multiple of 4`);
  return { bucket: v.readUInt32LE(8), blockValues, valueBytes, count: v.readUInt32LE(20) + v.readUInt32LE(24) * 2 ** 32 };
}

/** Exact length of a values file holding `count` values of `valueBytes` in blocks of `blockValues`. */
export function valuesFileBytes(count: number, valueBytes: number, blockValues = VALUE_BLOCK): number {
  return VALUES_HEADER_BYTES + count * valueBytes + Math.ceil(count / blockValues) * VALUE_CRC_BYTES;
}

/** How every values file's name ends (a bucket's other file is its key file). */
export const VALUES_FILE_SUFFIX = '.vals';

/** How every values delta file's name ends. */
export const DELTA_FILE_SUFFIX = '.vdel';

/** Name of bucket b's values file written by commit g, relative to the state dir. */
export function valuesFileName(bucket: number, commit: number): string {
  return `store/b${String(bucket).padStart(4, '0')}-g${String(commit).padStart(6, '0')}${VALUES_FILE_SUFFIX}`;
}

/** Name of bucket b's values delta file written by commit g, relative to the state dir. */
export function deltaFileName(bucket: number, commit: number): string {
  return `store/b${String(bucket).padStart(4, '0')}-g${String(commit).padStart(6, '0')}${DELTA_FILE_SUFFIX}`;
}
