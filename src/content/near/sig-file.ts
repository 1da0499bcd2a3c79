// The content store's signatures file, `docs.sigs`: the MinHash signature
// of every docID in docID order, SIG_BYTES each (MINHASH_K little-endian
// u32 minima), so docID d's signature is at byte d * SIG_BYTES. Only
// appended to, one round at a time; the manifest records the committed
// document count and the CRC-32 of the committed bytes (continued over
// each append), and opening cuts away whatever a crash left beyond them.
// Reads serve the candidate check: signatures of docIDs in increasing
// order, each run of nearby docIDs in one positional read of at most
// SIG_PIECE_BYTES (an ordered sweep, no seek back). Does not commit
// (content-store.ts) or choose candidates (band-candidates.ts).
// REQUIRES: a little-endian host; the writer lock for append().

import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import { MINHASH_K } from './minhash.js';

export const SIGS_FILE = 'docs.sigs';
export const SIG_BYTES = MINHASH_K * 4; // 100 minima, u32 each
/** Largest single read of the sweep (~1 MiB). */
export const SIG_PIECE_DOCS = 2621;

export class SigFile {
  private readonly fd: number;
  private readonly piece = new Uint32Array(SIG_PIECE_DOCS * MINHASH_K);
  private readonly pieceBytes = new Uint8Array(this.piece.buffer);
  private pieceFirst = 0;
  private pieceDocs = 0;

  /** Opens (creating when writable) the file in dir with `docs` signatures committed whose bytes have CRC-32 `crc`. */
  constructor(private readonly dfs: DrumFs, readonly dir: string, public docs: number, public crc: number, writable: boolean) {
    const path = join(dir, SIGS_FILE);
    if (writable) dfs.close(dfs.open(path, 'a')); // create when missing
    this.fd = dfs.open(path, writable ? 'r+' : 'r');
    const size = dfs.sizeOf(this.fd, path);
    if (size < docs * SIG_BYTES) {
      this.close();
      throw new DrumError('DRUM_CORRUPT_FILE', `content signatures ${path} are shorter than the manifest says (${size} < ${docs * SIG_BYTES})`, { file: path });
    }
    if (writable) dfs.truncate(this.fd, docs * SIG_BYTES);
  }

  /** Appends n signatures (sigs[0, n * MINHASH_K)) as docIDs docs, docs + 1, ...; fsyncs when asked. Not committed until the manifest says so. */
  append(sigs: Uint32Array, n: number, fsync: boolean): void {
    if (n === 0) return;
    const bytes = new Uint8Array(sigs.buffer, sigs.byteOffset, n * SIG_BYTES);
    this.dfs.write(this.fd, bytes, 0, bytes.length, this.docs * SIG_BYTES);
    if (fsync) this.dfs.fsync(this.fd);
    this.crc = crc32(bytes, this.crc) >>> 0;
    this.docs += n;
    this.pieceDocs = 0;
  }

  /**
   * Makes docID `doc`'s signature readable at piece[at()]: when it is not in
   * the loaded piece, reads docIDs doc .. upTo (upTo < doc + SIG_PIECE_DOCS,
   * the last docID the caller will ask for nearby) in one read.
   */
  load(doc: number, upTo: number): void {
    if (this.loaded(doc)) return;
    if (doc >= this.docs) throw new DrumError('DRUM_INTERNAL', `content signature ${doc} beyond ${this.docs}`);
    const n = Math.max(1, Math.min(upTo - doc + 1, SIG_PIECE_DOCS, this.docs - doc));
    const len = n * SIG_BYTES;
    if (this.dfs.readFully(this.fd, this.pieceBytes, 0, len, doc * SIG_BYTES) !== len) {
      throw new DrumError('DRUM_CORRUPT_FILE', `content signatures ${join(this.dir, SIGS_FILE)}: short read`, { file: join(this.dir, SIGS_FILE) });
    }
    this.pieceFirst = doc;
    this.pieceDocs = n;
  }

  /** Whether docID doc's signature is in the loaded piece. */
  loaded(doc: number): boolean {
    return doc >= this.pieceFirst && doc < this.pieceFirst + this.pieceDocs;
  }

  /** The loaded piece's words (valid until the next load()). */
  get words(): Uint32Array {
    return this.piece;
  }

  /** Where a loaded docID's signature starts in words. */
  at(doc: number): number {
    return (doc - this.pieceFirst) * MINHASH_K;
  }

  /** Reads the committed bytes front to back and returns their CRC-32 (verify). */
  checksum(): number {
    let crc = 0;
    for (let d = 0; d < this.docs; d += SIG_PIECE_DOCS) {
      const len = Math.min(SIG_PIECE_DOCS, this.docs - d) * SIG_BYTES;
      if (this.dfs.readFully(this.fd, this.pieceBytes, 0, len, d * SIG_BYTES) !== len) return -1;
      crc = crc32(this.pieceBytes.subarray(0, len), crc);
    }
    this.pieceDocs = 0;
    return crc >>> 0;
  }

  close(): void {
    this.dfs.close(this.fd);
  }
}
