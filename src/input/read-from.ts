// An opened input's bytes from a resume offset: a plain file split into
// chunks as it is read (two reads in flight, optionally two buffers that
// alternate), a plain file's bytes as fresh buffers (for the WARC reader),
// or a stream with its first bytes dropped. Counts and shows every raw byte
// read (onBytes, onRead); a read error or an offset past the end is
// DRUM_INPUT naming the file, after every complete line before it. Does not
// open inputs or detect their format (open.ts, peek.ts).
// REQUIRES: offsets come from an earlier chunk of the same, unchanged input.

import type { FileHandle } from 'node:fs/promises';
import { moveBuffer } from '../io/transfer.js';
import { inputError, readRaw } from './open.js';
import type { LineSplitter } from './split.js';
import type { LineChunk } from './types.js';

/** The smallest read of a plain file: its size when it was opened bounds the reads of a file that grows. */
const SMALL_CHUNK_BYTES = 64 << 10;

/**
 * Reads a plain file from `from` through LineSplitter.pushOwned: each read
 * lands in a buffer behind room for the carried partial line (the only
 * bytes copied), and the next read is in flight while this one is split.
 * Fresh buffers, or with `reuse` two that alternate: a read goes into the
 * buffer of the read before last, whose chunks were all consumed once the
 * consumer asked for a chunk after them (the splitter keeps no view of a
 * pushed buffer between calls). Before it is read into, the buffer's memory
 * moves to a new ArrayBuffer, so a chunk kept past its turn reads as empty
 * rather than as later data.
 */
export async function* splitFile(
  fh: FileHandle,
  splitter: LineSplitter,
  from: number,
  size: number,
  chunkBytes: number,
  onBytes: (n: number) => void,
  onRead: (b: Buffer) => void,
  path: string,
  reuse: boolean,
): AsyncGenerator<LineChunk> {
  if (from > size) throw inputError(path, `resume offset ${from} is past the end of input`);
  if (from > 0) onBytes(from);
  const room = splitter.frontRoom();
  // No bigger than the file (a floor for one that grows): a small batch's input allocates no 1 MiB buffers it never fills.
  const chunk = Math.min(chunkBytes, Math.max(SMALL_CHUNK_BYTES, size - from));
  const ring: (Buffer | undefined)[] = [undefined, undefined];
  let turn = 0;
  const readBuffer = (): Buffer => {
    const old = reuse ? (ring[turn]?.buffer as ArrayBuffer | undefined) : undefined;
    const buf = old === undefined ? Buffer.allocUnsafeSlow(room + chunk) : Buffer.from(moveBuffer(old));
    if (reuse) ring[turn] = buf;
    turn ^= 1;
    return buf;
  };
  const readAt = async (pos: number): Promise<{ buf: Buffer; n: number }> => {
    const buf = readBuffer();
    const { bytesRead } = await fh.read(buf, room, chunk, pos);
    return { buf, n: bytesRead };
  };
  const prefetch = (pos: number) => {
    const p = readAt(pos);
    p.catch(() => {}); // awaited below; this only keeps an abandoned read from going unhandled
    return p;
  };
  let pos = from;
  let next = prefetch(pos);
  for (;;) {
    let r: { buf: Buffer; n: number };
    try {
      r = await next;
    } catch (e) {
      yield* splitter.flushComplete();
      throw inputError(path, 'cannot read input', e);
    }
    if (r.n === 0) break;
    pos += r.n;
    onRead(r.buf.subarray(room, room + r.n));
    next = prefetch(pos);
    yield* splitter.pushOwned(r.buf, room, r.n);
  }
  yield* splitter.end();
}

/** Plain-file bytes from `from`, as fresh buffers (for the WARC reader). */
export async function* fileBytes(
  fh: FileHandle, from: number, size: number, onBytes: (n: number) => void, onRead: (b: Buffer) => void, path: string,
): AsyncGenerator<Buffer> {
  if (from > 0) onBytes(from);
  for await (const b of readRaw(fh, path, from, size)) {
    onRead(b);
    yield b;
  }
}

/** Drops the first `n` bytes of a stream without looking at them. */
export async function* skip(it: AsyncIterator<Buffer>, n: number, path: string): AsyncGenerator<Buffer> {
  let left = n;
  try {
    for (;;) {
      const r = await it.next();
      if (r.done) break;
      let b = r.value;
      if (left > 0) {
        if (b.length <= left) {
          left -= b.length;
          continue;
        }
        b = b.subarray(left);
        left = 0;
      }
      yield b;
    }
  } finally {
    await it.return?.();
  }
  if (left > 0) throw inputError(path, `resume offset ${n} is past the end of input`);
}
