// The content store's sorted table files: the four permuted SimHash tables
// (sim-merge.ts), and the exact and band tables of a `drum-content/1` store,
// read once when it is converted (content-upgrade.ts). A 16-byte header,
// then fixed-width records (key hi u32, key lo u32, docID u32,
// little-endian), strictly ascending by key (the format 1 band table,
// BAND_KIND, by key and docID: one key has many documents), CRC-32 over the
// records. One file per table and generation, written as `*.tmp`, fsynced,
// renamed (the manifest names the committed ones). TableReader streams a
// file front to back in 1 MiB pieces, checking the CRC and the order as it
// goes; TableWriter streams one out. Does not merge (sim-merge.ts) or name
// files (content-store.ts).
// REQUIRES: a little-endian host (typed-array views of the bytes).

import { crc32 } from 'node:zlib';
import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import { BAND_KIND } from '../content-manifest.js';

export const TABLE_MAGIC = 0x54435244; // 'DRCT' read as a little-endian u32
export const TABLE_VERSION = 1;
export const HEADER_BYTES = 4 + 2 + 2 + 4 + 4; // magic, version, kind, record count, CRC-32 of the records
export const RECORD_WORDS = 3; // key hi, key lo, docID
export const RECORD_BYTES = RECORD_WORDS * 4;
/** Records per read or write piece (~1 MiB). */
const PIECE_RECORDS = 87381;

function corrupt(path: string, what: string): DrumError {
  return new DrumError('DRUM_CORRUPT_FILE', `content table ${path}: ${what}`, { file: path });
}

export class TableReader {
  private readonly fd: number;
  readonly count: number;
  private readonly crc: number;
  private readonly buf = new Uint32Array(PIECE_RECORDS * RECORD_WORDS);
  private readonly bytes = new Uint8Array(this.buf.buffer);
  private n = 0;
  private i = 0;
  private read = 0;
  private runningCrc = 0;
  private lastHi = -1;
  private lastLo = -1;
  private lastDoc = -1;
  private readonly manyDocs: boolean;
  hi = 0;
  lo = 0;
  doc = 0;
  /** False once every record was consumed. */
  has = false;

  /** Opens `path`, or an empty table when path is null. */
  constructor(private readonly dfs: DrumFs, readonly path: string | null, readonly kind: number) {
    this.manyDocs = kind === BAND_KIND;
    if (path === null) {
      this.fd = -1;
      this.count = 0;
      this.crc = 0;
      return;
    }
    this.fd = dfs.open(path, 'r');
    const h = Buffer.alloc(HEADER_BYTES);
    if (dfs.readFully(this.fd, h, 0, HEADER_BYTES, 0) !== HEADER_BYTES) throw corrupt(path, 'short header');
    if (h.readUInt32LE(0) !== TABLE_MAGIC || h.readUInt16LE(4) !== TABLE_VERSION) throw corrupt(path, 'bad magic or version');
    if (h.readUInt16LE(6) !== kind) throw corrupt(path, `kind ${h.readUInt16LE(6)}, expected ${kind}`);
    this.count = h.readUInt32LE(8);
    this.crc = h.readUInt32LE(12);
    if (dfs.sizeOf(this.fd, path) !== HEADER_BYTES + this.count * RECORD_BYTES) throw corrupt(path, 'length does not match its record count');
    this.next();
  }

  /** Moves to the next record (sets hi, lo, doc, has). */
  next(): void {
    if (this.i === this.n) {
      if (this.read === this.count) {
        this.has = false;
        if (this.path !== null && this.runningCrc !== this.crc) throw corrupt(this.path, 'CRC mismatch');
        return;
      }
      const take = Math.min(PIECE_RECORDS, this.count - this.read);
      const len = take * RECORD_BYTES;
      if (this.dfs.readFully(this.fd, this.bytes, 0, len, HEADER_BYTES + this.read * RECORD_BYTES) !== len) throw corrupt(this.path!, 'short read');
      this.runningCrc = crc32(this.bytes.subarray(0, len), this.runningCrc);
      this.read += take;
      this.n = take;
      this.i = 0;
    }
    const b = this.buf;
    const k = this.i * RECORD_WORDS;
    this.hi = b[k]!;
    this.lo = b[k + 1]!;
    this.doc = b[k + 2]!;
    this.i++;
    this.has = true;
    if (this.hi < this.lastHi || (this.hi === this.lastHi && this.lo <= this.lastLo)) {
      if (!this.manyDocs || this.hi !== this.lastHi || this.lo !== this.lastLo || this.doc <= this.lastDoc) throw corrupt(this.path!, 'keys out of order');
    }
    this.lastHi = this.hi;
    this.lastLo = this.lo;
    this.lastDoc = this.doc;
  }

  close(): void {
    if (this.fd >= 0) this.dfs.close(this.fd);
  }
}

export class TableWriter {
  private readonly fd: number;
  private readonly tmp: string;
  private readonly buf = new Uint32Array(PIECE_RECORDS * RECORD_WORDS);
  private readonly bytes = new Uint8Array(this.buf.buffer);
  private n = 0;
  private pos = HEADER_BYTES;
  private crc = 0;
  count = 0;

  constructor(private readonly dfs: DrumFs, readonly path: string, readonly kind: number) {
    this.tmp = `${path}.tmp`;
    this.fd = dfs.open(this.tmp, 'w');
  }

  /** Appends a record; keys must be strictly ascending (the merge guarantees it). */
  push(hi: number, lo: number, doc: number): void {
    const k = this.n * RECORD_WORDS;
    this.buf[k] = hi;
    this.buf[k + 1] = lo;
    this.buf[k + 2] = doc;
    this.count++;
    if (++this.n === PIECE_RECORDS) this.flush();
  }

  private flush(): void {
    const len = this.n * RECORD_BYTES;
    if (len === 0) return;
    this.crc = crc32(this.bytes.subarray(0, len), this.crc);
    this.dfs.write(this.fd, this.bytes, 0, len, this.pos);
    this.pos += len;
    this.n = 0;
  }

  /** Writes the header, fsyncs (when asked), closes and renames over `path`. */
  finish(fsync: boolean): void {
    this.flush();
    const h = Buffer.alloc(HEADER_BYTES);
    h.writeUInt32LE(TABLE_MAGIC, 0);
    h.writeUInt16LE(TABLE_VERSION, 4);
    h.writeUInt16LE(this.kind, 6);
    h.writeUInt32LE(this.count, 8);
    h.writeUInt32LE(this.crc >>> 0, 12);
    this.dfs.write(this.fd, h, 0, HEADER_BYTES, 0);
    if (fsync) this.dfs.fsync(this.fd);
    this.dfs.close(this.fd);
    this.dfs.rename(this.tmp, this.path);
  }

  /** Gives up: closes and removes the tmp file. */
  abort(): void {
    try {
      this.dfs.close(this.fd);
    } catch {
      // already closed
    }
    this.dfs.unlink(this.tmp);
  }
}
