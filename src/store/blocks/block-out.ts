// The body of a block-framed store file (key files and values files alike,
// docs/file-format.md): each block's bytes followed by their CRC-32 (u32
// little-endian), gathered in one write buffer and written at increasing
// offsets after the header; keeps the running CRC of every body byte,
// carried from each block's CRC (crc-combine.ts) rather than read again. Does
// not write the header, fsync, close or rename (the writers do).
// REQUIRES: `out` at least one whole block plus its CRC long; one writer per fd.

import { crc32 } from 'node:zlib';
import type { DrumFs } from '../../io/fs.js';
import { BLOCK_CRC_BYTES } from '../keys/format.js';
import { crc32Combine } from './crc-combine.js';

export class BlockOut {
  private used = 0;
  /** CRC of every body byte written so far. */
  bodyCrc = 0;
  /** File offset of the next byte written: the file's length once flushed. */
  pos: number;

  constructor(private readonly fs: DrumFs, private readonly fd: number, private readonly out: Uint8Array, headerBytes: number) {
    this.pos = headerBytes;
  }

  /** Appends one block's bytes and their CRC, writing the buffer first when it is full. */
  appendBlock(data: Uint8Array): void {
    if (this.used + data.length + BLOCK_CRC_BYTES > this.out.length) this.flush();
    this.out.set(data, this.used);
    const c = crc32(data);
    const o = this.used + data.length;
    this.out[o] = c & 0xff;
    this.out[o + 1] = (c >>> 8) & 0xff;
    this.out[o + 2] = (c >>> 16) & 0xff;
    this.out[o + 3] = c >>> 24;
    this.bodyCrc = crc32(this.out.subarray(o, o + BLOCK_CRC_BYTES), crc32Combine(this.bodyCrc, c, data.length));
    this.used = o + BLOCK_CRC_BYTES;
  }

  /** Writes what the buffer holds. */
  flush(): void {
    if (this.used === 0) return;
    const bytes = this.out.subarray(0, this.used);
    this.fs.write(this.fd, bytes, 0, bytes.length, this.pos);
    this.pos += bytes.length;
    this.used = 0;
  }
}
