// Writes a new store key file the LevelDB way (blocks/tmp-file-writer.ts): to
// `<name>.tmp`, in CRC'd blocks through one large buffer, then the real
// header, fsync, rename to the final name. Reports each completed block to an optional sink (the
// Bloom rebuild). Does not check order. REQUIRES: keys pushed ascending.

import type { DrumFs } from '../../io/fs.js';
import { BLOCK_CRC_BYTES, BLOCK_KEYS, KEY_BYTES, KEYS_HEADER_BYTES, encodeKeysHeader } from './format.js';
import { BlockOut } from '../blocks/block-out.js';
import { TmpFileWriter, type WrittenFile } from '../blocks/tmp-file-writer.js';
import { copyWords } from '../blocks/word-copy.js';

const WRITE_BLOCKS = 16;

export type BlockSink = (keys: Uint32Array, n: number) => void;

/** A writer's buffers; one set can be lent to many writers in turn (no garbage per bucket). */
export interface WriteBuffers {
  out: Uint8Array;
  block: Uint32Array;
}

export function newWriteBuffers(): WriteBuffers {
  return { out: new Uint8Array((BLOCK_KEYS * KEY_BYTES + BLOCK_CRC_BYTES) * WRITE_BLOCKS), block: new Uint32Array(BLOCK_KEYS * 2) };
}

export type { WrittenFile };

export class KeyWriter extends TmpFileWriter {
  private readonly block: Uint32Array; // interleaved hi/lo of the block being filled
  private inBlock = 0;
  private count = 0;
  private readonly body: BlockOut;

  constructor(fs: DrumFs, path: string, readonly bucket: number, private readonly sink: BlockSink | null, doFsync: boolean, buffers?: WriteBuffers) {
    super(fs, path, doFsync);
    const b = buffers ?? newWriteBuffers();
    this.body = new BlockOut(fs, this.fd, b.out, KEYS_HEADER_BYTES);
    this.block = b.block;
  }

  /** Keys pushed so far: the position in the file of the next key pushed. */
  get pushed(): number {
    return this.count + this.inBlock;
  }

  push(hi: number, lo: number): void {
    const at = this.inBlock * 2;
    this.block[at] = hi;
    this.block[at + 1] = lo;
    if (++this.inBlock === BLOCK_KEYS) this.endBlock();
  }

  /** Pushes keys[from, to) of an interleaved hi/lo array. */
  pushRange(keys: Uint32Array, from: number, to: number): void {
    while (from < to) {
      const take = Math.min(to - from, BLOCK_KEYS - this.inBlock);
      copyWords(keys, 2 * from, 2 * (from + take), this.block, this.inBlock * 2);
      this.inBlock += take;
      from += take;
      if (this.inBlock === BLOCK_KEYS) this.endBlock();
    }
  }

  private endBlock(): void {
    const n = this.inBlock;
    if (n === 0) return;
    this.body.appendBlock(new Uint8Array(this.block.buffer, 0, n * KEY_BYTES));
    if (this.sink !== null) this.sink(this.block, n);
    this.count += n;
    this.inBlock = 0;
  }

  protected written(): WrittenFile {
    this.endBlock();
    this.body.flush();
    const header = encodeKeysHeader({ bucket: this.bucket, blockKeys: BLOCK_KEYS, count: this.count });
    this.fs.write(this.fd, header, 0, header.length, 0);
    return { keys: this.count, bytes: this.body.pos, crc: this.body.bodyCrc };
  }
}
