// Byte layout of the key journal (docs/file-format.md, "Key journal"): the
// keys a small round found new, with their values, appended batch by batch
// to one file until a fold merges them into the bucket files. Constants, the
// file name, header and batch-header encoding and checks, and the committed
// point the manifest names. Pure functions; no IO (journal-file.ts reads and
// appends, journal-table.ts keeps the keys in RAM).

import { crc32 } from 'node:zlib';
import { DrumError } from '../../errors.js';
import { checkTaggedHeader, encodeTaggedHeader, TAGGED_HEADER_BYTES } from '../blocks/file-header.js';

export const JOURNAL_MAGIC = 0x4a4d5244; // "DRMJ" read as little-endian u32
export const JOURNAL_VERSION = 1;
export const JOURNAL_HEADER_BYTES = TAGGED_HEADER_BYTES; // magic, version, flags, value words, headerCrc (store/blocks/file-header.ts)
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
  return encodeTaggedHeader(JOURNAL_MAGIC, JOURNAL_VERSION, valueWords);
}

/** Checks a journal header against the store's value width; DRUM_CORRUPT_FILE naming `file` otherwise. */
export function checkJournalHeader(h: Uint8Array, valueWords: number, file: string): void {
  const w = checkTaggedHeader(h, JOURNAL_MAGIC, JOURNAL_VERSION, file, 'key journal');
  if (w !== valueWords) throw new DrumError('DRUM_CORRUPT_FILE', `${file}: holds ${w} value words per key, the store keeps ${valueWords}`, { file });
}

/** Writes a batch header for `entries` entries whose bytes are `body` into `out` at `at`. */
export function encodeBatchHeader(out: Buffer, at: number, entries: number, body: Uint8Array): void {
  out.writeUInt32LE(entries, at);
  out.writeUInt32LE(crc32(body), at + 4);
}
