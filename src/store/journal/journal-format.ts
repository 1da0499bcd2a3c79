// Byte layout of the key journal (docs/file-format.md, "Key journal"): the
// keys a small round found new, with their values, appended batch by batch
// to one file until a fold merges them into the bucket files. Constants, the
// file name, header and batch-header encoding and checks, and the committed
// point the manifest names. Pure functions; no IO (journal-file.ts reads and
// appends, journal-table.ts keeps the keys in RAM).

import { crc32 } from 'node:zlib';
import { DrumError } from '../../errors.js';

export const JOURNAL_MAGIC = 0x4a4d5244; // "DRMJ" read as little-endian u32
export const JOURNAL_VERSION = 1;
export const JOURNAL_HEADER_BYTES = 4 + 2 + 2 + 4 + 4; // magic, version, flags, value words, headerCrc
export const JOURNAL_BATCH_HEADER_BYTES = 4 + 4; // entries, crc of the entries' bytes
/** u32 words of one entry before its value: key hi, key lo. */
export const JOURNAL_KEY_WORDS = 2;

/** The journal's committed state, as the manifest's `journal` names it. */
export interface JournalPoint {
  /** The file, relative to the state directory (store/journal-g<commit>.jnl). */
  file: string;
  /** Entries committed (each a distinct key stored in no bucket file). */
  keys: number;
  /** Committed bytes: the header and every committed batch. Bytes past it belong to no commit. */
  bytes: number;
}

/** Name (relative to the state directory) of a journal started by commit `commit`. */
export function journalFileName(commit: number): string {
  return `store/journal-g${String(commit).padStart(6, '0')}.jnl`;
}

/** u32 words of one entry: the key and `valueWords` value words. */
export function entryWords(valueWords: number): number {
  return JOURNAL_KEY_WORDS + valueWords;
}

/** Bytes of a batch of `entries` entries (its header included). */
export function batchBytes(entries: number, valueWords: number): number {
  return JOURNAL_BATCH_HEADER_BYTES + 4 * entries * entryWords(valueWords);
}

export function encodeJournalHeader(valueWords: number): Uint8Array {
  const b = Buffer.alloc(JOURNAL_HEADER_BYTES);
  b.writeUInt32LE(JOURNAL_MAGIC, 0);
  b.writeUInt16LE(JOURNAL_VERSION, 4);
  b.writeUInt16LE(0, 6);
  b.writeUInt32LE(valueWords, 8);
  b.writeUInt32LE(crc32(b.subarray(0, 12)), 12);
  return b;
}

/** Checks a journal header against the store's value width; DRUM_CORRUPT_FILE naming `file` otherwise. */
export function checkJournalHeader(h: Uint8Array, valueWords: number, file: string): void {
  const b = Buffer.from(h.buffer, h.byteOffset, h.byteLength);
  const corrupt = (what: string): never => {
    throw new DrumError('DRUM_CORRUPT_FILE', `${file}: ${what}`, { file });
  };
  if (b.length < JOURNAL_HEADER_BYTES) corrupt('shorter than its header');
  if (b.readUInt32LE(0) !== JOURNAL_MAGIC) corrupt('bad magic (not a drum key journal)');
  if (crc32(b.subarray(0, 12)) !== b.readUInt32LE(12)) corrupt('header checksum mismatch');
  if (b.readUInt16LE(4) !== JOURNAL_VERSION) corrupt(`unsupported version ${b.readUInt16LE(4)}`);
  if (b.readUInt32LE(8) !== valueWords) corrupt(`holds ${b.readUInt32LE(8)} value words per key, the store keeps ${valueWords}`);
}

/** Writes a batch header for `entries` entries whose bytes are `body` into `out` at `at`. */
export function encodeBatchHeader(out: Buffer, at: number, entries: number, body: Uint8Array): void {
  out.writeUInt32LE(entries, at);
  out.writeUInt32LE(crc32(body), at + 4);
}
