// The 16-byte header the URL log's files and the key journal share
// (docs/file-format.md): magic, version, flags 0, one u32 word of the
// file's own (a segment number, 0, a value width) and the CRC-32 of the 12
// bytes before it. Encodes and checks it; a mismatch is DRUM_CORRUPT_FILE
// naming the file. Pure functions; no IO.

import { crc32 } from 'node:zlib';
import { DrumError } from '../../errors.js';

export const TAGGED_HEADER_BYTES = 4 + 2 + 2 + 4 + 4; // magic, version, flags, word, headerCrc

export function encodeTaggedHeader(magic: number, version: number, word: number): Buffer {
  const b = Buffer.alloc(TAGGED_HEADER_BYTES);
  b.writeUInt32LE(magic, 0);
  b.writeUInt16LE(version, 4);
  b.writeUInt16LE(0, 6);
  b.writeUInt32LE(word, 8);
  b.writeUInt32LE(crc32(b.subarray(0, 12)), 12);
  return b;
}

/** Checks magic, version and CRC (`what` names the kind of file for a wrong magic); returns the header's word. */
export function checkTaggedHeader(b: Uint8Array, magic: number, version: number, file: string, what: string): number {
  const corrupt = (why: string): never => {
    throw new DrumError('DRUM_CORRUPT_FILE', `${file}: ${why}`, { file });
  };
  if (b.length < TAGGED_HEADER_BYTES) corrupt('shorter than its header');
  const v = Buffer.from(b.buffer, b.byteOffset, TAGGED_HEADER_BYTES);
  if (v.readUInt32LE(0) !== magic) corrupt(`bad magic (not a drum ${what})`);
  if (v.readUInt16LE(4) !== version) corrupt(`unsupported version ${v.readUInt16LE(4)}`);
  if (v.readUInt32LE(12) !== crc32(v.subarray(0, 12))) corrupt('header checksum mismatch');
  return v.readUInt32LE(8);
}
