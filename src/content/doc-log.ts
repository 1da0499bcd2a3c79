// The content store's document log: docID -> URL. `docs.urls` holds the
// URLs one after another (each followed by "\n"), `docs.idx` the byte offset
// of each docID's URL as a u64 (two little-endian u32 words). Both are only
// appended to; the manifest records their committed lengths, and opening
// cuts away whatever a crash left beyond them. Lookups read two index
// entries and the URL bytes per docID (positional reads), batch at a time.
// Does not commit (content-store.ts writes the manifest).
// REQUIRES: the writer lock for append() and truncate(); docIDs < committed docs for lookups.

import { join } from 'node:path';
import { DrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';

export const URLS_FILE = 'docs.urls';
export const IDX_FILE = 'docs.idx';
export const IDX_ENTRY_BYTES = 8; // u64 offset as lo u32, hi u32

export class DocLog {
  private readonly urlsFd: number;
  private readonly idxFd: number;

  /** Opens (creating) the log in dir with `docs` documents and `urlBytes` URL bytes committed. */
  constructor(private readonly dfs: DrumFs, dir: string, public docs: number, public urlBytes: number, writable: boolean) {
    const open = (name: string): number => {
      const path = join(dir, name);
      if (writable) dfs.close(dfs.open(path, 'a')); // create when missing
      return dfs.open(path, writable ? 'r+' : 'r');
    };
    this.urlsFd = open(URLS_FILE);
    this.idxFd = open(IDX_FILE);
    const { urls, idx } = this.sizes();
    if (urls < urlBytes || idx < docs * IDX_ENTRY_BYTES) {
      this.close();
      throw new DrumError('DRUM_CORRUPT_FILE', `content document log in ${dir} is shorter than its manifest says (${urls} < ${urlBytes} or ${idx} < ${docs * IDX_ENTRY_BYTES})`, { file: join(dir, URLS_FILE) });
    }
    if (writable) {
      dfs.truncate(this.urlsFd, urlBytes);
      dfs.truncate(this.idxFd, docs * IDX_ENTRY_BYTES);
    }
  }

  /** Appends the URLs of docIDs docs, docs + 1, ...; fsyncs when asked. Not committed until the manifest says so. */
  append(urls: readonly string[], fsync: boolean): void {
    if (urls.length === 0) return;
    const idx = Buffer.alloc(urls.length * IDX_ENTRY_BYTES);
    const text = Buffer.from(urls.join('\n') + '\n');
    let off = this.urlBytes;
    for (let i = 0; i < urls.length; i++) {
      idx.writeUInt32LE(off % 0x100000000, i * 8);
      idx.writeUInt32LE(Math.floor(off / 0x100000000), i * 8 + 4);
      off += Buffer.byteLength(urls[i]!) + 1;
    }
    this.dfs.write(this.urlsFd, text, 0, text.length, this.urlBytes);
    this.dfs.write(this.idxFd, idx, 0, idx.length, this.docs * IDX_ENTRY_BYTES);
    if (fsync) {
      this.dfs.fsync(this.urlsFd);
      this.dfs.fsync(this.idxFd);
    }
    this.docs += urls.length;
    this.urlBytes += text.length;
  }

  /** The URL of a committed docID. */
  url(doc: number): string {
    const e = Buffer.alloc(16);
    const last = doc + 1 >= this.docs;
    this.dfs.readFully(this.idxFd, e, 0, last ? 8 : 16, doc * IDX_ENTRY_BYTES);
    const start = e.readUInt32LE(0) + e.readUInt32LE(4) * 0x100000000;
    const end = last ? this.urlBytes : e.readUInt32LE(8) + e.readUInt32LE(12) * 0x100000000;
    const b = Buffer.alloc(Math.max(0, end - start - 1));
    this.dfs.readFully(this.urlsFd, b, 0, b.length, start);
    return b.toString();
  }

  /** Sizes on disk (for verify). */
  sizes(): { urls: number; idx: number } {
    return { urls: this.dfs.sizeOf(this.urlsFd), idx: this.dfs.sizeOf(this.idxFd) };
  }

  close(): void {
    this.dfs.close(this.urlsFd);
    this.dfs.close(this.idxFd);
  }
}
