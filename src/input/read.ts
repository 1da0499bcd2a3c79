// readInputs: the input stage's entry. Opens each input in turn, detects its
// format (gzip, WARC, TSV, lines), skips to a resume offset, and yields
// LineChunks from the splitter (or from the WARC reader). Does not
// canonicalize, count rejects, or decide what to do after a DRUM_INPUT error
// (the engine does); the bytes are peeked (peek.ts) and read from the resume
// offset (read-from.ts) by this stage's other files.
// REQUIRES: resume offsets/lines come from an earlier chunk's
// endOffset/endLine of the same, unchanged input. With reuseBuffers, a chunk
// is valid only until the next one is asked for (see the option).

import type { InputFormat } from '../engine/api.js';
import { DrumError } from '../errors.js';
import type { ConcreteFormat, Detection } from './detect.js';
import { inputError, openInput, type ByteStream } from './open.js';
import { detectFile, detectStream } from './peek.js';
import { fileBytes, skip, splitFile } from './read-from.js';
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
  /** Stream inputs already opened, by path: read from these, from their first byte (OpenOptions.streams). */
  streams?: ReadonlyMap<string, ByteStream>;
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
  const src = await openInput(spec.path, { stdin: opts.stdin, streams: opts.streams, onBytes, onRaw: opts.onRaw });
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
