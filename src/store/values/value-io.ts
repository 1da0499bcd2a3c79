// Sequential reader and writer of store values files (values-format.ts),
// and of values delta files (the same layout under DELTA_MAGIC).
// ValueReader checks the header against the manifest (bucket, count, width,
// exact length) and every block's CRC, and hands out values through a
// cursor: copy(n) to a writer, take() one value into a caller's array.
// ValueWriter writes `<name>.tmp` in CRC'd blocks, then the header, fsync,
// rename (LevelDB's way). Values are u32 words (width = valueBytes / 4).
// ValueSource is what every reader of a bucket's values takes: one file
// (ValueReader) or a base file through its deltas (value-chain.ts).
// Does not know what the words mean (the client does).
// REQUIRES: one reader or writer per file; values pushed in key order.

import { crc32 } from 'node:zlib';
import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import { TmpFileWriter, type WrittenFile } from '../blocks/tmp-file-writer.js';
import { BlockOut } from '../blocks/block-out.js';
import { copyWords } from '../blocks/word-copy.js';
import {
  DELTA_POSITION_BYTES, VALUE_BLOCK, VALUE_CRC_BYTES, VALUES_HEADER_BYTES, VALUES_MAGIC, decodeValuesHeader, encodeValuesHeader, valuesFileBytes, type ValuesHeader,
} from './values-format.js';

const IO_BLOCKS = 4; // blocks per read or write

/** A reader's and a writer's buffers for one value width; one set is lent to every bucket's reader and writer in turn (no garbage per bucket). */
export interface ValueBuffers {
  valueBytes: number;
  chunk: Uint8Array;
  block: Uint32Array;
  out: Uint8Array;
  /**
   * Read chunks of one delta block each, the k-th lent to the reader of a
   * chain's k-th delta (value-chain.ts): a chain's readers are open at once,
   * so without them every bucket read through k deltas allocated k chunks of
   * up to IO_BLOCKS blocks, garbage that piled up over a round until the GC.
   */
  deltaChunks: Uint8Array[];
}

/** Bytes of one full block of delta entries (`valueBytes` values, each after its position). */
export function deltaBlockBytes(valueBytes: number): number {
  return VALUE_BLOCK * (valueBytes + DELTA_POSITION_BYTES) + VALUE_CRC_BYTES;
}

/**
 * `ioBlocks`: blocks per read or write (a delta writer's few entries per
 * bucket need one); `deltaReaders`: deltas of a chain that read into a lent
 * chunk of one block (deltaChunks).
 */
export function newValueBuffers(valueBytes: number, ioBlocks = IO_BLOCKS, deltaReaders = 0): ValueBuffers {
  const io = (VALUE_BLOCK * valueBytes + VALUE_CRC_BYTES) * ioBlocks;
  const deltaChunks = Array.from({ length: deltaReaders }, () => new Uint8Array(deltaBlockBytes(valueBytes)));
  return { valueBytes, chunk: new Uint8Array(io), block: new Uint32Array((VALUE_BLOCK * valueBytes) / 4), out: new Uint8Array(io), deltaChunks };
}

/** Where copied values go: a ValueWriter, or a block collector (value-chain.ts). */
export interface ValueSink {
  /** Pushes vals[from, to) (in values, `words` u32 each). */
  pushRange(vals: Uint32Array, from: number, to: number): void;
  /** Pushes one value, v[at, at + words). */
  push(v: Uint32Array, at: number): void;
}

/** A bucket's values in key order, read once front to back: one values file, or a base file through its deltas. */
export interface ValueSource {
  /** The file named in errors (a chain's base). */
  readonly path: string;
  /** u32 words per value. */
  readonly words: number;
  /** Values not yet handed out. */
  readonly remaining: number;
  /** Copies the next `count` values to `w` (or drops them when w is null). */
  copy(count: number, w: ValueSink | null): void;
  /** Reads the next value into out[at, at + words). */
  take(out: Uint32Array, at: number): void;
  /** Reads every value to the end, a block at a time, each block to `sink`. */
  forEachBlock(sink: (vals: Uint32Array, n: number) => void): void;
  close(): void;
}

export class ValueReader implements ValueSource {
  /** Values of the current block, `words` u32 each. */
  private vals: Uint32Array = new Uint32Array(0);
  private n = 0; // values in the current block
  private at = 0; // next value of the current block
  private delivered = 0; // values read from the file so far (whole blocks)
  private filePos = VALUES_HEADER_BYTES;
  private readonly chunk: Uint8Array;
  private chunkBlocks = 0;
  private chunkAt = 0;
  private readonly blockBytes: number;
  /** Blocks per read: IO_BLOCKS, or as many as a lent chunk of fewer holds. */
  private readonly readBlocks: number;
  readonly words: number;

  private constructor(private readonly fs: DrumFs, readonly path: string, private readonly fd: number, readonly header: ValuesHeader, chunk?: Uint8Array) {
    this.words = header.valueBytes / 4;
    this.blockBytes = header.blockValues * header.valueBytes + VALUE_CRC_BYTES;
    const need = this.blockBytes * IO_BLOCKS;
    // A file shorter than IO_BLOCKS blocks (a small delta) is read in one step into a chunk its size.
    const body = valuesFileBytes(header.count, header.valueBytes, header.blockValues) - VALUES_HEADER_BYTES;
    // A lent chunk of at least one block is read a block (or as many as it holds) at a time.
    const lent = chunk !== undefined && chunk.length >= Math.min(this.blockBytes, body);
    this.chunk = lent ? chunk : new Uint8Array(Math.min(need, body));
    this.readBlocks = lent ? Math.max(1, Math.min(IO_BLOCKS, Math.floor(chunk.length / this.blockBytes))) : IO_BLOCKS;
  }

  /**
   * `chunk`, when given and at least one block long (or the whole file),
   * is lent as the read chunk (buffers.chunk for a values file of their
   * width, one of buffers.deltaChunks for a delta).
   * `magic`: DELTA_MAGIC to open a values delta file (`valueBytes` then an entry's width).
   */
  static open(
    fs: DrumFs, path: string, expect: { bucket: number; count: number; valueBytes: number }, fileBytes: number, chunk?: Uint8Array, magic = VALUES_MAGIC,
  ): ValueReader {
    const fd = fs.open(path, 'r');
    try {
      const hb = new Uint8Array(VALUES_HEADER_BYTES);
      fs.readFully(fd, hb, 0, VALUES_HEADER_BYTES, 0);
      const h = decodeValuesHeader(hb, path, magic);
      const corrupt = (what: string): never => {
        throw new DrumError('DRUM_CORRUPT_FILE', `${path}: ${what}`, { file: path });
      };
      if (h.bucket !== expect.bucket) corrupt(`holds bucket ${h.bucket}, manifest says ${expect.bucket}`);
      if (h.count !== expect.count) corrupt(`holds ${h.count} values, the key file ${expect.count} keys`);
      if (h.valueBytes !== expect.valueBytes) corrupt(`values of ${h.valueBytes} bytes, the store's are ${expect.valueBytes}`);
      const want = valuesFileBytes(h.count, h.valueBytes, h.blockValues);
      if (fileBytes !== want) corrupt(`is ${fileBytes} bytes, ${want} expected (truncated or padded)`);
      return new ValueReader(fs, path, fd, h, chunk);
    } catch (e) {
      fs.close(fd);
      throw e;
    }
  }

  /** Values not yet handed out. */
  get remaining(): number {
    return this.header.count - this.delivered + (this.n - this.at);
  }

  /** Next block into vals; false at end of file. */
  private nextBlock(): boolean {
    const left = this.header.count - this.delivered;
    if (left <= 0) return false;
    if (this.chunkAt >= this.chunkBlocks) this.fill(left);
    const n = Math.min(this.header.blockValues, left);
    const off = this.chunkAt * this.blockBytes;
    const dataBytes = n * this.header.valueBytes;
    const data = this.chunk.subarray(off, off + dataBytes);
    const c = this.chunk;
    const stored = (c[off + dataBytes]! | (c[off + dataBytes + 1]! << 8) | (c[off + dataBytes + 2]! << 16) | (c[off + dataBytes + 3]! << 24)) >>> 0;
    if (crc32(data) !== stored) {
      throw new DrumError('DRUM_CORRUPT_FILE', `${this.path}: block ${Math.floor(this.delivered / this.header.blockValues)} checksum mismatch`, { file: this.path });
    }
    // A view (blocks are 4-byte aligned: valueBytes is a multiple of 4); callers copy out before the next block.
    this.vals = new Uint32Array(this.chunk.buffer, this.chunk.byteOffset + off, n * this.words);
    this.n = n;
    this.at = 0;
    this.delivered += n;
    this.chunkAt++;
    return true;
  }

  private fill(left: number): void {
    const blocksLeft = Math.ceil(left / this.header.blockValues);
    const blocks = Math.min(this.readBlocks, blocksLeft);
    const want = blocks === blocksLeft ? left * this.header.valueBytes + blocks * VALUE_CRC_BYTES : blocks * this.blockBytes;
    const got = this.fs.readFully(this.fd, this.chunk, 0, want, this.filePos);
    if (got !== want) throw new DrumError('DRUM_CORRUPT_FILE', `${this.path}: ends early (truncated)`, { file: this.path });
    this.filePos += got;
    this.chunkBlocks = blocks;
    this.chunkAt = 0;
  }

  /** Copies the next `count` values to `w` (or drops them when w is null). */
  copy(count: number, w: ValueSink | null): void {
    while (count > 0) {
      if (this.at >= this.n && !this.nextBlock()) throw new DrumError('DRUM_CORRUPT_FILE', `${this.path}: fewer values than keys`, { file: this.path });
      const take = Math.min(count, this.n - this.at);
      w?.pushRange(this.vals, this.at, this.at + take);
      this.at += take;
      count -= take;
    }
  }

  /** Reads the next value into out[at, at + words). */
  take(out: Uint32Array, at: number): void {
    if (this.at >= this.n && !this.nextBlock()) throw new DrumError('DRUM_CORRUPT_FILE', `${this.path}: fewer values than keys`, { file: this.path });
    const w = this.words;
    for (let k = 0; k < w; k++) out[at + k] = this.vals[this.at * w + k]!;
    this.at++;
  }

  /** Reads every value to the end, block by block (verify, upgrade checks): each block to `sink`. */
  forEachBlock(sink: (vals: Uint32Array, n: number) => void): void {
    if (this.at < this.n) {
      sink(this.vals.subarray(this.at * this.words), this.n - this.at);
      this.at = this.n;
    }
    while (this.nextBlock()) {
      sink(this.vals, this.n);
      this.at = this.n;
    }
  }

  close(): void {
    this.fs.close(this.fd);
  }
}

export class ValueWriter extends TmpFileWriter implements ValueSink {
  /** The block being filled: value k of it at block[k * words]. slot() hands out the next one. */
  readonly block: Uint32Array;
  private readonly body: BlockOut;
  private inBlock = 0;
  private count = 0;
  readonly words: number;

  /** `magic`: DELTA_MAGIC writes a values delta file (each value an entry: position and value). */
  constructor(
    fs: DrumFs, path: string, readonly bucket: number, readonly valueBytes: number, doFsync: boolean, buffers?: ValueBuffers, private readonly magic = VALUES_MAGIC,
  ) {
    super(fs, path, doFsync);
    this.words = valueBytes / 4;
    const b = buffers !== undefined && buffers.valueBytes === valueBytes ? buffers : newValueBuffers(valueBytes);
    this.block = b.block;
    this.body = new BlockOut(fs, this.fd, b.out, VALUES_HEADER_BYTES);
  }

  /** Offset in `block` of the next value; write it there, then call advance(). */
  slot(): number {
    return this.inBlock * this.words;
  }

  /** The value at slot() is complete. */
  advance(): void {
    if (++this.inBlock === VALUE_BLOCK) this.endBlock();
  }

  /** Values pushed so far. */
  get pushed(): number {
    return this.count + this.inBlock;
  }

  /** Pushes vals[from, to) (in values, `words` u32 each). */
  pushRange(vals: Uint32Array, from: number, to: number): void {
    const w = this.words;
    while (from < to) {
      const take = Math.min(to - from, VALUE_BLOCK - this.inBlock);
      copyWords(vals, from * w, (from + take) * w, this.block, this.inBlock * w);
      this.inBlock += take;
      from += take;
      if (this.inBlock === VALUE_BLOCK) this.endBlock();
    }
  }

  /** Pushes one value, v[at, at + words). */
  push(v: Uint32Array, at: number): void {
    const w = this.words;
    const o = this.inBlock * w;
    for (let k = 0; k < w; k++) this.block[o + k] = v[at + k]!;
    if (++this.inBlock === VALUE_BLOCK) this.endBlock();
  }

  private endBlock(): void {
    const n = this.inBlock;
    if (n === 0) return;
    this.body.appendBlock(new Uint8Array(this.block.buffer, 0, n * this.valueBytes));
    this.count += n;
    this.inBlock = 0;
  }

  /** The last block and the header; `keys` counts the values. */
  protected written(): WrittenFile {
    this.endBlock();
    this.body.flush();
    const header = encodeValuesHeader({ bucket: this.bucket, blockValues: VALUE_BLOCK, valueBytes: this.valueBytes, count: this.count }, this.magic);
    this.fs.write(this.fd, header, 0, header.length, 0);
    return { keys: this.count, bytes: this.body.pos, crc: this.body.bodyCrc };
  }
}
