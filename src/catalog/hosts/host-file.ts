// The host table's file: every host with its unique-URL count, sorted by
// name, in CRC-checked blocks with an index at the end (bytes in
// docs/file-format.md, "Host table file"). A fold writes a whole new file
// beside the old one (host-fold.ts); lookups read one block through the
// index, scans read the blocks in order. Read with positional reads, never
// mapped, so a scan of a large table costs a block buffer, not its size in
// RSS. Does not decide which file is current (the catalog's pointer does),
// does not add pending deltas (host-table.ts does).
// REQUIRES: names are latin1 strings of at most MAX_NAME_BYTES bytes, added
// in strictly increasing order; one writer per file.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';

export const HOST_FILE_MAGIC = 0x54485244; // "DRHT" little-endian
export const HOST_FILE_VERSION = 1;
export const HEADER_BYTES = 4 + 2 + 2 + 8; // magic, version, flags, hosts
export const TRAILER_BYTES = 8 + 4 + 4; // index offset, block count, magic
export const BLOCK_HEADER_BYTES = 4; // records in the block
export const RECORD_FIXED_BYTES = 2 + 8; // name length, count (f64)
export const CRC_BYTES = 4;
/** Records are gathered into blocks of about this many bytes. */
export const BLOCK_TARGET_BYTES = 32 << 10;
export const MAX_NAME_BYTES = 0xffff;
const WRITE_BUFFER_BYTES = 1 << 20;

function corrupt(file: string, what: string): never {
  throw new DrumError('DRUM_CORRUPT_FILE', `${file}: ${what}`, { file });
}

/** Writes a host file at `path` (the caller renames it into place). */
export class HostFileWriter {
  private readonly fd: number;
  private readonly out = Buffer.allocUnsafe(WRITE_BUFFER_BYTES);
  private used = 0;
  private pos = HEADER_BYTES;
  private block = Buffer.allocUnsafe(BLOCK_TARGET_BYTES + RECORD_FIXED_BYTES + MAX_NAME_BYTES);
  private blockUsed = BLOCK_HEADER_BYTES;
  private blockRecords = 0;
  private blockFirst = '';
  private readonly index: { offset: number; bytes: number; first: string }[] = [];
  private last: string | null = null;
  hosts = 0;

  constructor(private readonly fs: DrumFs, readonly path: string) {
    this.fd = fs.open(path, 'w');
  }

  add(host: string, count: number): void {
    if (this.last !== null && !(host > this.last)) throw new DrumError('DRUM_INTERNAL', `host file: ${host} after ${this.last}`);
    const len = Buffer.byteLength(host, 'latin1');
    if (len > MAX_NAME_BYTES) throw new DrumError('DRUM_INTERNAL', `host name of ${len} bytes`);
    if (this.blockRecords === 0) this.blockFirst = host;
    const b = this.block;
    b.writeUInt16LE(len, this.blockUsed);
    b.write(host, this.blockUsed + 2, 'latin1');
    b.writeDoubleLE(count, this.blockUsed + 2 + len);
    this.blockUsed += RECORD_FIXED_BYTES + len;
    this.blockRecords++;
    this.hosts++;
    this.last = host;
    if (this.blockUsed >= BLOCK_TARGET_BYTES) this.endBlock();
  }

  private endBlock(): void {
    if (this.blockRecords === 0) return;
    this.block.writeUInt32LE(this.blockRecords, 0);
    const body = this.block.subarray(0, this.blockUsed);
    this.index.push({ offset: this.pos + this.used, bytes: body.length + CRC_BYTES, first: this.blockFirst });
    this.put(body);
    const c = Buffer.allocUnsafe(CRC_BYTES);
    c.writeUInt32LE(crc32(body), 0);
    this.put(c);
    this.blockUsed = BLOCK_HEADER_BYTES;
    this.blockRecords = 0;
  }

  private put(data: Uint8Array): void {
    if (this.used + data.length > this.out.length) this.flush();
    if (data.length > this.out.length) {
      this.fs.write(this.fd, data, 0, data.length, this.pos);
      this.pos += data.length;
      return;
    }
    this.out.set(data, this.used);
    this.used += data.length;
  }

  private flush(): void {
    if (this.used === 0) return;
    this.fs.write(this.fd, this.out, 0, this.used, this.pos);
    this.pos += this.used;
    this.used = 0;
  }

  /** Writes the index, trailer and header, fsyncs (when asked) and closes. Returns the file's bytes. */
  finish(fsync: boolean): number {
    this.endBlock();
    const indexOffset = this.pos + this.used;
    // Index entry: offset u64, bytes u32, first name length u16, first name.
    let ib = 0;
    for (const e of this.index) ib += 8 + 4 + 2 + Buffer.byteLength(e.first, 'latin1');
    const idx = Buffer.allocUnsafe(ib + CRC_BYTES);
    let at = 0;
    for (const e of this.index) {
      idx.writeBigUInt64LE(BigInt(e.offset), at);
      idx.writeUInt32LE(e.bytes, at + 8);
      const n = idx.write(e.first, at + 14, 'latin1');
      idx.writeUInt16LE(n, at + 12);
      at += 14 + n;
    }
    idx.writeUInt32LE(crc32(idx.subarray(0, ib)), ib);
    this.put(idx);
    const tr = Buffer.allocUnsafe(TRAILER_BYTES);
    tr.writeBigUInt64LE(BigInt(indexOffset), 0);
    tr.writeUInt32LE(this.index.length, 8);
    tr.writeUInt32LE(HOST_FILE_MAGIC, 12);
    this.put(tr);
    this.flush();
    const hd = Buffer.allocUnsafe(HEADER_BYTES);
    hd.writeUInt32LE(HOST_FILE_MAGIC, 0);
    hd.writeUInt16LE(HOST_FILE_VERSION, 4);
    hd.writeUInt16LE(0, 6);
    hd.writeBigUInt64LE(BigInt(this.hosts), 8);
    this.fs.write(this.fd, hd, 0, HEADER_BYTES, 0);
    if (fsync) this.fs.fsync(this.fd);
    this.fs.close(this.fd);
    return this.pos;
  }

  /** Closes without finishing (the caller removes the file). */
  abandon(): void {
    try {
      this.fs.close(this.fd);
    } catch {
      // already closed or gone: nothing more to do
    }
  }
}

interface IndexEntry {
  offset: number;
  bytes: number;
  first: string;
}

/** Reads a host file: its index on open, then blocks by positional reads. */
export class HostFileReader {
  readonly hosts: number;
  private readonly index: IndexEntry[] = [];

  private constructor(private readonly fd: number, readonly path: string) {
    const size = fstatSync(fd).size;
    if (size < HEADER_BYTES + TRAILER_BYTES) corrupt(path, 'host table file too short');
    const hd = this.read(0, HEADER_BYTES);
    if (hd.readUInt32LE(0) !== HOST_FILE_MAGIC) corrupt(path, 'not a host table file (bad magic)');
    if (hd.readUInt16LE(4) !== HOST_FILE_VERSION) corrupt(path, `host table file version ${hd.readUInt16LE(4)} is not ${HOST_FILE_VERSION}`);
    this.hosts = Number(hd.readBigUInt64LE(8));
    const tr = this.read(size - TRAILER_BYTES, TRAILER_BYTES);
    const indexOffset = Number(tr.readBigUInt64LE(0));
    const blocks = tr.readUInt32LE(8);
    if (tr.readUInt32LE(12) !== HOST_FILE_MAGIC || indexOffset < HEADER_BYTES || indexOffset > size - TRAILER_BYTES - CRC_BYTES) corrupt(path, 'bad host table trailer');
    const idx = this.read(indexOffset, size - TRAILER_BYTES - indexOffset);
    const ib = idx.length - CRC_BYTES;
    if (crc32(idx.subarray(0, ib)) !== idx.readUInt32LE(ib)) corrupt(path, 'host table index fails its CRC');
    let at = 0;
    for (let i = 0; i < blocks; i++) {
      if (at + 14 > ib) corrupt(path, 'host table index too short');
      const n = idx.readUInt16LE(at + 12);
      this.index.push({ offset: Number(idx.readBigUInt64LE(at)), bytes: idx.readUInt32LE(at + 8), first: idx.toString('latin1', at + 14, at + 14 + n) });
      at += 14 + n;
    }
    if (at !== ib) corrupt(path, 'host table index length does not match its block count');
  }

  static open(path: string): HostFileReader {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new DrumError(code === 'ENOENT' ? 'DRUM_CORRUPT_FILE' : 'DRUM_IO', `cannot open the host table file ${path}`, { cause: e, file: path });
    }
    try {
      return new HostFileReader(fd, path);
    } catch (e) {
      closeSync(fd);
      throw e;
    }
  }

  close(): void {
    closeSync(this.fd);
  }

  private read(at: number, len: number): Buffer {
    const b = Buffer.allocUnsafe(len);
    let got = 0;
    while (got < len) {
      const n = readSync(this.fd, b, got, len - got, at + got);
      if (n === 0) corrupt(this.path, 'host table file ends early');
      got += n;
    }
    return b;
  }

  /** Decodes block i after checking its CRC; calls fn per record. */
  private block(i: number, fn: (host: string, count: number) => void): void {
    this.rawBlock(i, (b, s, e, count) => fn(b.toString('latin1', s, e), count));
  }

  /** Block i's records after checking its CRC, each as its name's byte range in the block and its count. */
  private rawBlock(i: number, fn: (b: Buffer, nameStart: number, nameEnd: number, count: number) => void): void {
    const e = this.index[i]!;
    const b = this.read(e.offset, e.bytes);
    const body = e.bytes - CRC_BYTES;
    if (body < BLOCK_HEADER_BYTES || crc32(b.subarray(0, body)) !== b.readUInt32LE(body)) corrupt(this.path, `host table block ${i} fails its CRC`);
    const n = b.readUInt32LE(0);
    let at = BLOCK_HEADER_BYTES;
    for (let r = 0; r < n; r++) {
      if (at + RECORD_FIXED_BYTES > body) corrupt(this.path, `host table block ${i} too short`);
      const len = b.readUInt16LE(at);
      if (at + RECORD_FIXED_BYTES + len > body) corrupt(this.path, `host table block ${i} too short`);
      fn(b, at + 2, at + 2 + len, b.readDoubleLE(at + 2 + len));
      at += RECORD_FIXED_BYTES + len;
    }
  }

  /** The index of the last block whose first name is <= host (-1: before all). */
  private blockOf(host: string): number {
    let lo = 0;
    let hi = this.index.length - 1;
    let ans = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.index[mid]!.first <= host) {
        ans = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return ans;
  }

  /** The count stored for host, 0 when absent. One block read. */
  get(host: string): number {
    const i = this.blockOf(host);
    if (i < 0) return 0;
    let found = 0;
    this.block(i, (h, c) => {
      if (h === host) found = c;
    });
    return found;
  }

  /** Every (host, count) in name order, a block at a time; from the first host >= `from` when given. */
  *entries(from?: string): Generator<[string, number]> {
    const start = from === undefined ? 0 : Math.max(0, this.blockOf(from));
    const buf: [string, number][] = [];
    for (let i = start; i < this.index.length; i++) {
      buf.length = 0;
      this.block(i, (h, c) => {
        if (from === undefined || h >= from) buf.push([h, c]);
      });
      yield* buf;
    }
  }

  /** Calls fn with every (host, count) in name order, a block at a time. */
  forEach(fn: (host: string, count: number) => void): void {
    for (let i = 0; i < this.index.length; i++) this.block(i, fn);
  }

  /** forEach with each name as its byte range in a block buffer (valid only during fn): a scan that decodes no name. */
  forEachEntry(fn: (b: Buffer, nameStart: number, nameEnd: number, count: number) => void): void {
    for (let i = 0; i < this.index.length; i++) this.rawBlock(i, fn);
  }

  /** The first name of every k-th block: range boundaries for a fold. */
  firstNames(): string[] {
    return this.index.map((e) => e.first);
  }
}
