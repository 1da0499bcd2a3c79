// Reads and appends the key journal file (journal-format.ts). load() reads
// the committed prefix a manifest names into a JournalTable, checking the
// header, every batch's CRC and that the batches end exactly at the
// committed bytes with the committed count; any mismatch is
// DRUM_CORRUPT_FILE naming the file. A writer's JournalLog appends one batch
// per small round at the committed end (bytes a crash left past it belong
// to no commit and are overwritten), fsyncs it, and returns the point the
// next manifest names. Does not decide when to append or fold
// (engine/url-seen/journal-round.ts) and does not write the manifest.
// REQUIRES: one writer (the store's writer lock); the file named by a
// manifest is never rewritten below its committed bytes.

import { dirname, join } from 'node:path';
import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import {
  JOURNAL_BATCH_HEADER_BYTES, JOURNAL_HEADER_BYTES, batchBytes, checkJournalHeader, encodeBatchHeader, encodeJournalHeader,
  entryWords, journalFileName, type JournalPoint,
} from './journal-format.js';
import { JournalTable } from './journal-table.js';
import { crc32 } from 'node:zlib';

/** Reads the committed journal `point` of the store in `dir` into `table` (empty first). */
export function loadJournal(dfs: DrumFs, dir: string, point: JournalPoint, table: JournalTable): void {
  const path = join(dir, point.file);
  const corrupt = (what: string): never => {
    throw new DrumError('DRUM_CORRUPT_FILE', `${path}: ${what}`, { file: path });
  };
  // A reader's pinned journal counts as present even if a writer's fold has since deleted it.
  let size = 0;
  try {
    size = dfs.size(path);
  } catch {
    corrupt('missing (named by the manifest)');
  }
  if (size < point.bytes) corrupt(`${size} bytes, the manifest names ${point.bytes}`);
  if (point.keys > table.capacity) corrupt(`the manifest names ${point.keys} keys, more than a journal holds (${table.capacity}); open with a larger journalKeys`);
  const fd = dfs.open(path, 'r');
  try {
    if (point.bytes < JOURNAL_HEADER_BYTES) corrupt('the manifest names fewer bytes than a header');
    const buf = Buffer.allocUnsafe(point.bytes);
    dfs.readFully(fd, buf, 0, point.bytes, 0);
    checkJournalHeader(buf.subarray(0, JOURNAL_HEADER_BYTES), table.valueWords, path);
    const w = entryWords(table.valueWords);
    let at = JOURNAL_HEADER_BYTES;
    let keys = 0;
    while (at < point.bytes) {
      if (at + JOURNAL_BATCH_HEADER_BYTES > point.bytes) corrupt(`a batch header at byte ${at} runs past the committed ${point.bytes} bytes`);
      const n = buf.readUInt32LE(at);
      const end = at + batchBytes(n, table.valueWords);
      if (n === 0 || end > point.bytes) corrupt(`the batch at byte ${at} (${n} keys) runs past the committed ${point.bytes} bytes`);
      const body = buf.subarray(at + JOURNAL_BATCH_HEADER_BYTES, end);
      if (crc32(body) !== buf.readUInt32LE(at + 4)) corrupt(`checksum mismatch in the batch at byte ${at}`);
      if (keys + n > point.keys) corrupt(`holds more keys than the manifest's ${point.keys}`);
      const words = new Uint32Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength));
      for (let e = 0; e < n; e++) {
        const hi = words[e * w]!, lo = words[e * w + 1]!;
        if (table.has(hi, lo)) corrupt(`key ${hi.toString(16)}:${lo.toString(16)} appears twice`);
        table.add(hi, lo, words, e * w + 2);
      }
      keys += n;
      at = end;
    }
    if (keys !== point.keys) corrupt(`holds ${keys} keys, the manifest says ${point.keys}`);
  } finally {
    dfs.close(fd);
  }
}

/**
 * The key journal's table: the committed journal `point` names read in
 * (DRUM_CORRUPT_FILE if it fails its checks), or an empty table when the
 * journal is on; null when it is off and the store has none. Holds at least
 * what the point names, whatever `journalKeys` says.
 */
export function openJournal(dfs: DrumFs, dir: string, point: JournalPoint | undefined, valueWords: number, journalKeys: number): JournalTable | null {
  if (point === undefined && journalKeys === 0) return null;
  const table = new JournalTable(valueWords, Math.max(journalKeys, point?.keys ?? 0));
  if (point !== undefined) loadJournal(dfs, dir, point, table);
  return table;
}

/** Appends batches to the journal a writer's manifest names (or starts one). */
export class JournalLog {
  private fd: number | null = null;
  private point: JournalPoint | null;

  constructor(
    private readonly dfs: DrumFs,
    private readonly dir: string,
    point: JournalPoint | null,
    private readonly valueWords: number,
    private readonly fsync: boolean,
  ) {
    this.point = point;
  }

  /**
   * Appends `n` entries (`entries`: key hi, lo and value words each) as one
   * batch, durably when fsync is on; `commit` is the next commit's number
   * (names a journal this append starts). Returns the point to commit.
   */
  append(entries: Uint32Array, n: number, commit: number): JournalPoint {
    const w = entryWords(this.valueWords);
    let p = this.point;
    if (p === null || this.fd === null) p = this.openFile(p, commit);
    const bytes = batchBytes(n, this.valueWords);
    const out = Buffer.allocUnsafe(bytes);
    const body = new Uint8Array(entries.buffer, entries.byteOffset, 4 * n * w);
    out.set(body, JOURNAL_BATCH_HEADER_BYTES);
    encodeBatchHeader(out, 0, n, body);
    this.dfs.write(this.fd!, out, 0, bytes, p.bytes);
    if (this.fsync) this.dfs.fsync(this.fd!);
    return { file: p.file, keys: p.keys + n, bytes: p.bytes + bytes };
  }

  /** The manifest committed the point append() returned: the next batch goes after it. */
  committed(point: JournalPoint): void {
    this.point = point;
  }

  /** A fold emptied the journal: the next append starts a new file. */
  reset(): void {
    this.point = null;
    this.closeFile();
  }

  close(): void {
    this.closeFile();
  }

  /** Opens the committed journal (cutting what no commit names) or creates a new one; returns its point. */
  private openFile(p: JournalPoint | null, commit: number): JournalPoint {
    if (p !== null) {
      const path = join(this.dir, p.file);
      this.fd = this.dfs.open(path, 'r+');
      this.dfs.truncate(this.fd, p.bytes);
      return p;
    }
    const file = journalFileName(commit);
    const path = join(this.dir, file);
    this.fd = this.dfs.open(path, 'w');
    const h = encodeJournalHeader(this.valueWords);
    this.dfs.write(this.fd, h, 0, h.length, 0);
    if (this.fsync) {
      this.dfs.fsync(this.fd);
      this.dfs.fsyncDir(dirname(path));
    }
    this.point = { file, keys: 0, bytes: JOURNAL_HEADER_BYTES };
    return this.point;
  }

  private closeFile(): void {
    if (this.fd !== null) {
      const fd = this.fd;
      this.fd = null;
      this.dfs.close(fd);
    }
  }
}
