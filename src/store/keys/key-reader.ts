// Reads a store key file front to back in large sequential chunks, checking
// the header, every block's CRC and the exact file length, and hands out one
// block at a time as an interleaved [hi, lo, hi, lo, ...] Uint32Array view.
// A skipping reader (seekBlock) jumps forward over blocks and then reads one
// block at a time; firstKeys() gives each block's first key to choose the
// jumps by. Does not check key order (merge and verify do). Any mismatch is
// DRUM_CORRUPT_FILE naming the file; never treated as empty.

import { crc32 } from 'node:zlib';
import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import {
  BLOCK_CRC_BYTES, KEY_BYTES, KEYS_HEADER_BYTES, decodeKeysHeader, keysFileBytes, type KeysHeader,
} from './format.js';

const READ_BLOCKS = 16; // blocks per read (~1 MiB)
/** Bytes of the read buffer a caller may lend to open() (reused across files: no garbage per bucket). */
export const READ_BUFFER_BYTES = READ_BLOCKS * (8192 * KEY_BYTES + BLOCK_CRC_BYTES);

export class KeyReader {
  readonly header: KeysHeader;
  /** Keys of the current block, interleaved hi/lo; valid until the next nextBlock(). */
  keys: Uint32Array = new Uint32Array(0);
  /** Keys in the current block. */
  n = 0;
  /** Keys handed out so far, including the current block. */
  delivered = 0;
  private readonly fd: number;
  private readonly chunk: Uint8Array;
  private readonly blockBytes: number;
  private chunkBlocks = 0;
  private chunkAt = 0;
  private filePos = KEYS_HEADER_BYTES;
  /** Blocks per read: READ_BLOCKS streaming, 1 once the reader skips. */
  private readBlocks = READ_BLOCKS;
  private closed = false;

  private constructor(
    private readonly fs: DrumFs,
    readonly path: string,
    fd: number,
    header: KeysHeader,
    chunk: Uint8Array | undefined,
  ) {
    this.fd = fd;
    this.header = header;
    this.blockBytes = header.blockKeys * KEY_BYTES + BLOCK_CRC_BYTES;
    const need = this.blockBytes * READ_BLOCKS;
    this.chunk = chunk !== undefined && chunk.length >= need ? chunk : new Uint8Array(need);
  }

  /**
   * Opens `path` and checks its header against what the manifest says
   * (bucket, count, byte length). fileBytes is the size on disk.
   */
  static open(fs: DrumFs, path: string, expect: { bucket: number; keys: number }, fileBytes: number, chunk?: Uint8Array): KeyReader {
    const fd = fs.open(path, 'r');
    try {
      const hb = new Uint8Array(KEYS_HEADER_BYTES);
      fs.readFully(fd, hb, 0, KEYS_HEADER_BYTES, 0);
      const h = decodeKeysHeader(hb, path);
      const corrupt = (what: string): never => {
        throw new DrumError('DRUM_CORRUPT_FILE', `${path}: ${what}`, { file: path });
      };
      if (h.bucket !== expect.bucket) corrupt(`holds bucket ${h.bucket}, manifest says ${expect.bucket}`);
      if (h.count !== expect.keys) corrupt(`holds ${h.count} keys, manifest says ${expect.keys}`);
      if (fileBytes !== keysFileBytes(h.count, h.blockKeys)) {
        corrupt(`is ${fileBytes} bytes, ${keysFileBytes(h.count, h.blockKeys)} expected (truncated or padded)`);
      }
      return new KeyReader(fs, path, fd, h, chunk);
    } catch (e) {
      fs.close(fd);
      throw e;
    }
  }

  /** Blocks in the file. */
  get blocks(): number {
    return Math.ceil(this.header.count / this.header.blockKeys);
  }

  /** Index of the block the next nextBlock() returns. */
  get nextBlockIndex(): number {
    return Math.ceil(this.delivered / this.header.blockKeys);
  }

  /**
   * The first key of every block, interleaved hi/lo: one 8-byte positioned
   * read per block, so not CRC-checked. Only for choosing blocks to skip: a
   * caller landing on a block checks its verified first key (BucketMerge).
   */
  firstKeys(): Uint32Array {
    const n = this.blocks;
    const out = new Uint32Array(2 * n);
    const bytes = new Uint8Array(out.buffer); // little-endian words, like nextBlock()'s views
    for (let b = 0; b < n; b++) {
      const got = this.fs.readFully(this.fd, bytes, 8 * b, KEY_BYTES, KEYS_HEADER_BYTES + b * this.blockBytes);
      if (got !== KEY_BYTES) throw new DrumError('DRUM_CORRUPT_FILE', `${this.path}: ends early (truncated)`, { file: this.path });
    }
    return out;
  }

  /**
   * Makes block `b` the next one nextBlock() returns, dropping what was read
   * ahead; from now on the reader reads one block at a time (a skipping
   * reader reads only the blocks it lands on). REQUIRES: nextBlockIndex <= b <= blocks.
   */
  seekBlock(b: number): void {
    if (b < this.nextBlockIndex || b > this.blocks) throw new RangeError(`seekBlock(${b}): next block is ${this.nextBlockIndex} of ${this.blocks}`);
    this.readBlocks = 1;
    this.delivered = Math.min(this.header.count, b * this.header.blockKeys);
    this.filePos = KEYS_HEADER_BYTES + b * this.blockBytes;
    this.chunkBlocks = this.chunkAt = 0;
  }

  /** Advances to the next block; false at end of file. */
  nextBlock(): boolean {
    const remaining = this.header.count - this.delivered;
    if (remaining <= 0) {
      this.n = 0;
      return false;
    }
    if (this.chunkAt >= this.chunkBlocks) this.fill(remaining);
    const keysInBlock = Math.min(this.header.blockKeys, remaining);
    const off = this.chunkAt * this.blockBytes;
    const dataBytes = keysInBlock * KEY_BYTES;
    const data = this.chunk.subarray(off, off + dataBytes);
    const stored =
      (this.chunk[off + dataBytes]! | (this.chunk[off + dataBytes + 1]! << 8) |
        (this.chunk[off + dataBytes + 2]! << 16) | (this.chunk[off + dataBytes + 3]! << 24)) >>> 0;
    if (crc32(data) !== stored) {
      throw new DrumError('DRUM_CORRUPT_FILE', `${this.path}: block ${Math.floor(this.delivered / this.header.blockKeys)} checksum mismatch`, { file: this.path });
    }
    this.keys = new Uint32Array(this.chunk.buffer, this.chunk.byteOffset + off, keysInBlock * 2);
    this.n = keysInBlock;
    this.delivered += keysInBlock;
    this.chunkAt++;
    return true;
  }

  private fill(remainingKeys: number): void {
    const blocksLeft = Math.ceil(remainingKeys / this.header.blockKeys);
    const blocks = Math.min(this.readBlocks, blocksLeft);
    const want = blocks === blocksLeft
      ? (remainingKeys * KEY_BYTES + blocks * BLOCK_CRC_BYTES)
      : blocks * this.blockBytes;
    const got = this.fs.readFully(this.fd, this.chunk, 0, want, this.filePos);
    if (got !== want) {
      throw new DrumError('DRUM_CORRUPT_FILE', `${this.path}: ends early (truncated)`, { file: this.path });
    }
    this.filePos += got;
    this.chunkBlocks = blocks;
    this.chunkAt = 0;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.fs.close(this.fd);
  }
}
