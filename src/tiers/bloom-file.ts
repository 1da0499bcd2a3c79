// Persistence of a BlockedBloom in the state directory: writeBloom writes
// `path.tmp`, fsyncs it, renames it over `path` and fsyncs the directory;
// readBloom checks magic, version, flags, header CRC, length and the CRC32 of
// the bit array and throws DRUM_CORRUPT_FILE on any mismatch (never returns an
// empty filter for a bad file). Both go through DrumFs. Byte layout (all
// little-endian, docs/tiers.md):
//   0  magic "DRBF"         4
//   4  version u16 = 1      2   (also pins mix.ts hashing and the bit layout)
//   6  flags u16 = 0        2   (reserved; a reader rejects unknown flags)
//   8  k u16                2
//  10  bitsPerKey u16       2   (informational: the budget it was sized for)
//  12  blocks u32           4
//  16  keys u64             8
//  24  CRC32 of bit array   4
//  28  CRC32 of bytes 0-27  4
//  32  bit array: blocks × 64 bytes, 16 u32 words per block
// Does not decide when to rebuild or where the file lives (the engine does).
// Errors: DRUM_CORRUPT_FILE (bad content), DRUM_IO (the OS refused, incl. ENOENT).

import { dirname } from 'node:path';
import { endianness } from 'node:os';
import { crc32 } from 'node:zlib';
import { DrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { replaceFile } from '../io/replace-file.js';
import { BLOCK_BYTES, BLOCK_WORDS, BlockedBloom, MAX_BLOCKS, MAX_K } from './bloom.js';

export const BLOOM_MAGIC = 0x46425244; // "DRBF" read as a little-endian u32
export const BLOOM_FORMAT_VERSION = 1;
export const HEADER_BYTES = 4 + 2 + 2 + 2 + 2 + 4 + 8 + 4 + 4; // = 32
/** Bytes per read/write/CRC step, so no single call nears the 2 GiB I/O limit. */
const CHUNK = 64 * 1024 * 1024;
const BIG_ENDIAN = endianness() === 'BE';

export interface WriteBloomOptions {
  /** fsync the file before the rename and the directory after it. Default true. */
  fsync?: boolean;
}

/** The bit array's bytes [start, end) as little-endian words (a swapped copy on big-endian hosts). */
function leBytes(words: Uint32Array, start: number, end: number): Buffer {
  const b = Buffer.from(words.buffer, words.byteOffset + start, end - start);
  return BIG_ENDIAN ? Buffer.from(b).swap32() : b;
}

function crcOfWords(words: Uint32Array): number {
  let crc = 0;
  for (let off = 0; off < words.byteLength; off += CHUNK) {
    crc = crc32(leBytes(words, off, Math.min(words.byteLength, off + CHUNK)), crc);
  }
  return crc >>> 0;
}

function header(bloom: BlockedBloom, dataCrc: number): Buffer {
  const h = Buffer.alloc(HEADER_BYTES);
  h.writeUInt32LE(BLOOM_MAGIC, 0);
  h.writeUInt16LE(BLOOM_FORMAT_VERSION, 4);
  h.writeUInt16LE(0, 6);
  h.writeUInt16LE(bloom.k, 8);
  h.writeUInt16LE(Math.min(0xffff, Math.round(bloom.bitsPerKey)), 10);
  h.writeUInt32LE(bloom.blocks, 12);
  h.writeBigUInt64LE(BigInt(bloom.keys), 16);
  h.writeUInt32LE(dataCrc, 24);
  h.writeUInt32LE(crc32(h.subarray(0, 28)) >>> 0, 28);
  return h;
}

/**
 * Writes the filter atomically through `dfs` (counted, and seen by the fault
 * seam): path.tmp, fsync, rename, fsync of the directory (io/replace-file.ts).
 */
export async function writeBloom(dfs: DrumFs, path: string, bloom: BlockedBloom, opts: WriteBloomOptions = {}): Promise<void> {
  const fsync = opts.fsync ?? true;
  replaceFile(dfs, path, (fd) => {
    dfs.write(fd, header(bloom, crcOfWords(bloom.words)), 0, HEADER_BYTES, 0);
    const words = bloom.words;
    for (let off = 0; off < words.byteLength; off += CHUNK) {
      const chunk = leBytes(words, off, Math.min(words.byteLength, off + CHUNK));
      dfs.write(fd, chunk, 0, chunk.length, HEADER_BYTES + off);
    }
  }, { fsync, fsyncDir: fsync ? dirname(path) : undefined });
}

function corrupt(path: string, why: string): never {
  throw new DrumError('DRUM_CORRUPT_FILE', `bloom filter ${path}: ${why}`, { file: path });
}

/**
 * Reads and fully verifies a filter written by writeBloom, through `dfs` (a
 * file the reader pinned is read from its pinned descriptor, even if a
 * writer has since replaced it).
 */
export async function readBloom(dfs: DrumFs, path: string): Promise<BlockedBloom> {
  const fd = dfs.open(path, 'r');
  try {
    const size = dfs.sizeOf(fd);
    if (size < HEADER_BYTES) corrupt(path, `${size} bytes, shorter than the ${HEADER_BYTES}-byte header`);
    const h = Buffer.alloc(HEADER_BYTES);
    readFully(dfs, fd, h, 0, path);
    if (h.readUInt32LE(0) !== BLOOM_MAGIC) corrupt(path, 'bad magic (not a drum bloom file)');
    if ((crc32(h.subarray(0, 28)) >>> 0) !== h.readUInt32LE(28)) corrupt(path, 'header checksum mismatch');
    const version = h.readUInt16LE(4);
    if (version !== BLOOM_FORMAT_VERSION) corrupt(path, `unsupported version ${version}`);
    if (h.readUInt16LE(6) !== 0) corrupt(path, `unknown flags ${h.readUInt16LE(6)}`);
    const k = h.readUInt16LE(8);
    const bitsPerKey = h.readUInt16LE(10);
    const blocks = h.readUInt32LE(12);
    const keys = Number(h.readBigUInt64LE(16));
    if (k < 1 || k > MAX_K) corrupt(path, `k = ${k} out of range`);
    if (blocks < 1 || blocks > MAX_BLOCKS) corrupt(path, `${blocks} blocks out of range`);
    const expected = HEADER_BYTES + blocks * BLOCK_BYTES;
    if (size !== expected) corrupt(path, `${size} bytes, expected ${expected} for ${blocks} blocks`);
    const words = new Uint32Array(blocks * BLOCK_WORDS);
    const bytes = Buffer.from(words.buffer, words.byteOffset, words.byteLength);
    for (let off = 0; off < bytes.length; off += CHUNK) {
      readFully(dfs, fd, bytes.subarray(off, Math.min(bytes.length, off + CHUNK)), HEADER_BYTES + off, path);
    }
    if (crcOfBytes(bytes) !== h.readUInt32LE(24)) corrupt(path, 'bit array checksum mismatch');
    if (BIG_ENDIAN) bytes.swap32();
    return new BlockedBloom(blocks, k, bitsPerKey, words, keys);
  } finally {
    dfs.close(fd);
  }
}

function crcOfBytes(bytes: Buffer): number {
  let crc = 0;
  for (let off = 0; off < bytes.length; off += CHUNK) {
    crc = crc32(bytes.subarray(off, Math.min(bytes.length, off + CHUNK)), crc);
  }
  return crc >>> 0;
}

function readFully(dfs: DrumFs, fd: number, buf: Buffer, position: number, path: string): void {
  const got = dfs.readFully(fd, buf, 0, buf.length, position);
  if (got !== buf.length) corrupt(path, `ended early at byte ${position + got}`);
}
