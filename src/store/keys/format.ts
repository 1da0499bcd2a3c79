// Byte layout of a store key file (docs/file-format.md, "Store key file"):
// constants, header encoding and checks, and the exact file length. Pure
// functions; no IO. Every constant here is spelled out in the doc.

import { crc32 } from 'node:zlib';
import { DrumError } from '../../errors.js';

export const KEYS_MAGIC = 0x4b4d5244; // "DRMK" read as little-endian u32
export const KEYS_VERSION = 1;
export const KEYS_HEADER_BYTES = 4 + 2 + 2 + 4 + 4 + 4 + 4 + 4 + 4; // magic, version, flags, bucket, blockKeys, countLo, countHi, headerCrc, reserved
export const KEY_BYTES = 4 + 4; // hi, lo
export const BLOCK_KEYS = 8192;
export const BLOCK_CRC_BYTES = 4;
export const BLOCK_BYTES = BLOCK_KEYS * KEY_BYTES + BLOCK_CRC_BYTES;

export interface KeysHeader {
  bucket: number;
  blockKeys: number;
  count: number;
}

export function encodeKeysHeader(h: KeysHeader): Buffer {
  const b = Buffer.alloc(KEYS_HEADER_BYTES);
  b.writeUInt32LE(KEYS_MAGIC, 0);
  b.writeUInt16LE(KEYS_VERSION, 4);
  b.writeUInt16LE(0, 6);
  b.writeUInt32LE(h.bucket, 8);
  b.writeUInt32LE(h.blockKeys, 12);
  b.writeUInt32LE(h.count % 2 ** 32, 16);
  b.writeUInt32LE(Math.floor(h.count / 2 ** 32), 20);
  b.writeUInt32LE(crc32(b.subarray(0, 24)), 24);
  return b;
}

export function decodeKeysHeader(b: Uint8Array, file: string): KeysHeader {
  const corrupt = (what: string): never => {
    throw new DrumError('DRUM_CORRUPT_FILE', `${file}: ${what}`, { file });
  };
  if (b.length < KEYS_HEADER_BYTES) corrupt('shorter than its header');
  const v = Buffer.from(b.buffer, b.byteOffset, KEYS_HEADER_BYTES);
  if (v.readUInt32LE(0) !== KEYS_MAGIC) corrupt('bad magic (not a drum key file)');
  if (v.readUInt16LE(4) !== KEYS_VERSION) corrupt(`unsupported version ${v.readUInt16LE(4)}`);
  if (v.readUInt32LE(24) !== crc32(v.subarray(0, 24))) corrupt('header checksum mismatch');
  const blockKeys = v.readUInt32LE(12);
  if (blockKeys === 0) corrupt('zero block size');
  return {
    bucket: v.readUInt32LE(8),
    blockKeys,
    count: v.readUInt32LE(16) + v.readUInt32LE(20) * 2 ** 32,
  };
}

/** Exact length of a key file holding `count` keys in blocks of `blockKeys`. */
export function keysFileBytes(count: number, blockKeys = BLOCK_KEYS): number {
  return KEYS_HEADER_BYTES + count * KEY_BYTES + Math.ceil(count / blockKeys) * BLOCK_CRC_BYTES;
}

/** Name of bucket b's key file written by commit g, relative to the state dir. */
export function keysFileName(bucket: number, commit: number): string {
  return `store/b${String(bucket).padStart(4, '0')}-g${String(commit).padStart(6, '0')}.keys`;
}
