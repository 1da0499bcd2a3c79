// readInputs: the input stage's entry. Opens each input in turn, detects its
// format (gzip, WARC, TSV, lines), skips to a resume offset, and yields
// LineChunks from the splitter (or from the WARC reader). Does not
// canonicalize, count rejects, or decide what to do after a DRUM_INPUT error
// (the engine does). Preconditions: resume offsets/lines come from an earlier
// chunk's endOffset/endLine of the same, unchanged input. With reuseBuffers,
// a chunk is valid only until the next one is asked for (see the option).

import { moveBuffer } from '../io/transfer.js';
import type { FileHandle } from 'node:fs/promises';
import type { InputFormat } from '../engine/api.js';
import { DrumError } from '../errors.js';
import { detectFormat, PEEK_BYTES, type ConcreteFormat, type Detection } from './detect.js';
import { inputError, openInput, pull, replay, type ByteInput, type ByteStream } from './open.js';
import { LineSplitter } from './split.js';
import type { LineChunk } from './types.js';

export interface InputSpec {
  /** A file path, or `-` for stdin. */
  path: string;
  /** Resume: decompressed byte offset to start at (an earlier chunk's endOffset). Default 0. */
  startOffset?: number;
  /** Resume: lines consumed before startOffset (that chunk's endLine). Default 0. */
  startLine?: number;
}

export interface InputInfo {
  input: number;
  path: string;
  format: ConcreteFormat;
  gzip: boolean;
  /** Raw (compressed) size when known, else null (stdin). */
  rawSize: number | null;
}

export interface ReadInputsOptions {
  format: InputFormat;
  maxLineBytes: number;
  chunkBytes: number;
  /** WARC only: navigation links only, or embeds too. Default 'nav'. */
  links?: 'nav' | 'all';
  /** WARC only: links from HTML, from Heritrix metadata records, or both. Default 'html'. */
  warcLinks?: 'html' | 'metadata' | 'both';
  /** Raw bytes consumed (compressed for gzip); a resumed plain file reports its skipped bytes at once. */
  onBytes?: (rawBytesDelta: number) => void;
  /**
   * Called with every raw byte read (compressed bytes for gzip), in file order, as it is read: lets a
   * caller hash the input while reading it. Bytes before a plain file's resume offset are not read.
   */
  onRaw?: (raw: Buffer) => void;
  /** Called once per input after it is opened and its format detected. */
  onInput?: (info: InputInfo) => void;
  /** What `-` reads. Default process.stdin. */
  stdin?: ByteStream;
  /**
   * Chunks may borrow the reader's memory (plain files: a ring of two read
   * buffers; any input: the splitter's index arrays): a chunk is valid only
   * until the next chunk is asked for, and its arrays read as empty once
   * reused. For consumers done with each chunk before the next (the engine's
   * read loop). Default false: every chunk owns its memory.
   */
  reuseBuffers?: boolean;
}

/** Reads the inputs in order; chunk.input is the spec's index in `specs`. */
export async function* readInputs(specs: readonly InputSpec[], opts: ReadInputsOptions): AsyncGenerator<LineChunk> {
  for (let i = 0; i < specs.length; i++) yield* readInput(specs[i]!, i, opts);
}

/** Reads one input; `index` becomes chunk.input. Throws DRUM_INPUT after yielding every complete line before damage. */
export async function* readInput(spec: InputSpec, index: number, opts: ReadInputsOptions): AsyncGenerator<LineChunk> {
  const startOffset = spec.startOffset ?? 0;
  const startLine = spec.startLine ?? 0;
  const onBytes = opts.onBytes ?? (() => {});
  const src = await openInput(spec.path, { stdin: opts.stdin, onBytes, onRaw: opts.onRaw });
  // Plain-file reads below count their bytes and show them to onRaw here.
  const onRead = opts.onRaw === undefined ? (b: Buffer) => onBytes(b.length) : (b: Buffer) => (onBytes(b.length), opts.onRaw!(b));
  try {
    const forced = opts.format === 'auto' ? undefined : opts.format;
    let det: Detection;
    let bytes: AsyncIterator<Buffer> | null = null;
    if (src.fh) {
      det = await detectFile(src.fh, src.rawSize ?? 0, opts.maxLineBytes, forced, src.path);
    } else {
      const r = await detectStream(src, opts.maxLineBytes, forced);
      det = r.det;
      bytes = r.bytes;
    }
    opts.onInput?.({ input: index, path: src.path, format: det.format, gzip: src.gzip, rawSize: src.rawSize });
    if (det.format === 'warc') {
      const from = src.fh ? fileBytes(src.fh, startOffset, opts.chunkBytes, onBytes, onRead, src.path) : skip(bytes!, startOffset, src.path);
      yield* readWarc(from, index, startOffset, startLine, opts);
      return;
    }
    const splitter = new LineSplitter({
      input: index,
      format: det.format,
      maxLineBytes: opts.maxLineBytes,
      chunkBytes: opts.chunkBytes,
      startOffset,
      startLine,
      lease: opts.reuseBuffers ?? false,
      headerCheck:
        det.format === 'tsv' &&
        (startOffset === 0 || (det.firstDataLineEnd !== null && startOffset < det.firstDataLineEnd)),
    });
    if (src.fh) {
      yield* splitFile(src.fh, splitter, startOffset, src.rawSize ?? 0, opts.chunkBytes, onBytes, onRead, src.path, opts.reuseBuffers ?? false);
      return;
    }
    try {
      for await (const b of skip(bytes!, startOffset, src.path)) yield* splitter.push(b);
    } catch (e) {
      yield* splitter.flushComplete();
      throw e instanceof DrumError ? e : inputError(src.path, 'cannot read input', e);
    }
    yield* splitter.end();
  } finally {
    await src.close().catch(() => {});
  }
}

async function detectFile(fh: FileHandle, size: number, max: number, forced: ConcreteFormat | undefined, path: string): Promise<Detection> {
  const buf = Buffer.allocUnsafe(Math.min(PEEK_BYTES, size));
  let n = 0;
  try {
    while (n < buf.length) {
      const r = await fh.read(buf, n, buf.length - n, n);
      if (r.bytesRead === 0) break;
      n += r.bytesRead;
    }
  } catch (e) {
    throw inputError(path, 'cannot read input', e);
  }
  return detectFormat(buf.subarray(0, n), true, max, forced)!;
}

/** Pulls decompressed bytes until detection decides; returns them replayed in front of the rest. */
async function detectStream(
  src: ByteInput,
  max: number,
  forced: ConcreteFormat | undefined,
): Promise<{ det: Detection; bytes: AsyncIterator<Buffer> }> {
  const it = src.bytes!;
  const pieces: Buffer[] = [];
  let have = 0;
  for (;;) {
    let r: { pieces: Buffer[]; done: boolean };
    try {
      r = await pull(it, 1, src.path);
    } catch (e) {
      // broken before detection could decide: decide on what came through, deliver it, then fail
      const det = detectFormat(Buffer.concat(pieces, have), true, max, forced)!;
      return { det, bytes: replay(pieces, failing(e)) };
    }
    for (const p of r.pieces) {
      pieces.push(p);
      have += p.length;
    }
    const det = detectFormat(Buffer.concat(pieces, have), r.done, max, forced);
    if (det) return { det, bytes: replay(pieces, r.done ? null : it) };
  }
}

function failing(e: unknown): AsyncIterator<Buffer> {
  return { next: () => Promise.reject(e) };
}

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
async function* splitFile(
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
  const ring: (Buffer | undefined)[] = [undefined, undefined];
  let turn = 0;
  const readBuffer = (): Buffer => {
    const old = reuse ? (ring[turn]?.buffer as ArrayBuffer | undefined) : undefined;
    const buf = old === undefined ? Buffer.allocUnsafeSlow(room + chunkBytes) : Buffer.from(moveBuffer(old));
    if (reuse) ring[turn] = buf;
    turn ^= 1;
    return buf;
  };
  const readAt = async (pos: number): Promise<{ buf: Buffer; n: number }> => {
    const buf = readBuffer();
    const { bytesRead } = await fh.read(buf, room, chunkBytes, pos);
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
async function* fileBytes(
  fh: FileHandle, from: number, size: number, onBytes: (n: number) => void, onRead: (b: Buffer) => void, path: string,
): AsyncGenerator<Buffer> {
  if (from > 0) onBytes(from);
  let pos = from;
  for (;;) {
    const buf = Buffer.allocUnsafe(size);
    let n: number;
    try {
      n = (await fh.read(buf, 0, size, pos)).bytesRead;
    } catch (e) {
      throw inputError(path, 'cannot read input', e);
    }
    if (n === 0) return;
    pos += n;
    onRead(buf.subarray(0, n));
    yield buf.subarray(0, n);
  }
}

/** Drops the first `n` bytes of a stream without looking at them. */
async function* skip(it: AsyncIterator<Buffer>, n: number, path: string): AsyncGenerator<Buffer> {
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

/** WARC inputs go to src/input/warc (another module); offsets and lines are shifted by the resume point. */
async function* readWarc(
  source: AsyncIterable<Buffer>,
  input: number,
  startOffset: number,
  startLine: number,
  opts: ReadInputsOptions,
): AsyncGenerator<LineChunk> {
  const { readWarcChunks } = await import('./warc/index.js');
  const chunks = readWarcChunks(source, input, {
    links: opts.links ?? 'nav',
    warcLinks: opts.warcLinks ?? 'html',
    maxLineBytes: opts.maxLineBytes,
    chunkBytes: opts.chunkBytes,
  });
  for await (const c of chunks) {
    if (startOffset !== 0 || startLine !== 0) {
      c.endOffset += startOffset;
      c.endLine += startLine;
      for (let i = 0; i < c.count; i++) c.lines[i] += startLine;
      for (const r of c.rejects) r.line += startLine;
    }
    yield c;
  }
}
