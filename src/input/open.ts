// Opens one input (a path, or `-` for stdin) as bytes: a positional file
// handle for plain regular files, or an iterator of decompressed Buffers for
// gzip and streams (stdin, FIFOs, or a stream the caller holds for the
// path); counts raw (compressed) bytes for progress. Maps every failure to
// DRUM_INPUT naming the file. Does not split lines or detect the text
// format (src/input/detect.ts, src/input/split.ts do), and does not inflate
// gzip itself (gunzip.ts does).
// REQUIRES: a caller's stream for a path yields that input from its first byte.

import { fstatSync, constants as fsConstants } from 'node:fs';
import { access, open, stat, type FileHandle } from 'node:fs/promises';
import { resolve } from 'node:path';
import { DrumError } from '../errors.js';
import { hasGzipMagic, isGzipName } from './detect.js';
import { gunzip } from './gunzip.js';
import { inputError } from './input-error.js';

export { inputError };

/** Raw read size for gzip files and streams. */
const RAW_READ = 256 * 1024;

export type ByteStream = AsyncIterable<Buffer> | NodeJS.ReadableStream;

export interface OpenOptions {
  /** What `-` reads. Default process.stdin. The seam tests use to feed stdin. */
  stdin?: ByteStream;
  /**
   * Stream inputs the caller opened already, by path (`-` too): such a path
   * is read from its stream, from its first byte, never opened here
   * (a --graph run's streams, held while their format was read: HeldStream).
   */
  streams?: ReadonlyMap<string, ByteStream>;
  /** Called with each batch of raw bytes consumed (compressed bytes for gzip). */
  onBytes?: (rawBytesDelta: number) => void;
  /** Gzip and stdin: called with the raw bytes themselves, in order (a content hash while reading). */
  onRaw?: (raw: Buffer) => void;
}

export interface ByteInput {
  path: string;
  /** Raw size in bytes when known (regular files), else null. */
  rawSize: number | null;
  gzip: boolean;
  /** Plain regular file: read it positionally (lets the splitter avoid copies). Else null. */
  fh: FileHandle | null;
  /** Not a plain file: decompressed bytes from offset 0. Else null. */
  bytes: AsyncIterator<Buffer> | null;
  close(): Promise<void>;
}

/** An input's path as a run records and opens it: absolute (relative ones from `cwd`), or '-' for stdin. */
export function inputPath(path: string, cwd = '.'): string {
  return path === '-' ? path : resolve(cwd, path);
}

/** A map by input path (as given) re-keyed by inputPath, as a run's input records name them; empty for none. */
export function byInputPath<T>(m: ReadonlyMap<string, T> | undefined): Map<string, T> {
  return new Map([...(m ?? [])].map(([p, x]) => [inputPath(p), x]));
}

/**
 * Raw size of an input in bytes, or null for stdin and other streams (FIFOs,
 * devices); DRUM_INPUT for one that is missing, refused or a directory, so a
 * run can fail before it starts. `stdin`: the stream `-` reads (a library
 * caller's, as OpenOptions.stdin); `-` is then that stream, of unknown size,
 * and the process's own stdin is not looked at. Without it, the process's
 * stdin being a directory is DRUM_INPUT.
 */
export async function inputSize(path: string, opts: { stdin?: ByteStream } = {}): Promise<number | null> {
  if (path === '-') {
    if (opts.stdin === undefined) refuseStdinDirectory();
    return null;
  }
  try {
    const st = await stat(path);
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    // A file that cannot be read fails here, before a store is made for it.
    if (st.isFile()) await access(path, fsConstants.R_OK);
    return st.isFile() ? st.size : null;
  } catch (e) {
    throw inputError(path, 'cannot read input', e);
  }
}

/** Refuses the process's stdin when it is a directory (`drum ingest - < /`), which would read as empty. */
function refuseStdinDirectory(): void {
  let dir = false;
  try {
    dir = fstatSync(0).isDirectory();
  } catch {
    // no stdin at all: reading it says so
  }
  if (dir) throw inputError('-', 'cannot read input', Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
}

export async function openInput(path: string, opts: OpenOptions = {}): Promise<ByteInput> {
  const onBytes = opts.onBytes ?? (() => {});
  const given = opts.streams?.get(path) ?? (path === '-' ? opts.stdin : undefined);
  if (given !== undefined || path === '-') {
    // A directory on stdin (`drum ingest - < /`) reads as empty: refuse it as a file would be.
    if (given === undefined) refuseStdinDirectory();
    return streamInput(path, iteratorOf(given ?? process.stdin), opts, onBytes, async () => {});
  }
  let fh: FileHandle;
  let size: number;
  const head = Buffer.alloc(2);
  try {
    fh = await open(path, 'r');
  } catch (e) {
    throw inputError(path, 'cannot open input', e);
  }
  let regular: boolean;
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    regular = st.isFile();
    size = st.size;
    if (regular) await fh.read(head, 0, 2, 0);
  } catch (e) {
    await fh.close().catch(() => {});
    throw inputError(path, 'cannot read input', e);
  }
  // A FIFO, `<(...)`, /dev/stdin or a device: no size, no seeking; read it front to back like stdin.
  if (!regular) return openStream(path, fh, opts, onBytes);
  const gzip = isGzipName(path) || hasGzipMagic(head);
  if (!gzip) return { path, rawSize: size, gzip, fh, bytes: null, close: () => fh.close() };
  // A file can be read again: gunzip's second pass recovers what zlib drops at a damage.
  const bytes = gunzip(countBytes(readRaw(fh, path), onBytes, opts.onRaw), path, () => readRaw(fh, path));
  const close = async () => {
    await bytes.return?.(undefined);
    await fh.close().catch(() => {});
  };
  return { path, rawSize: size, gzip, fh: null, bytes, close };
}

function openStream(path: string, fh: FileHandle, opts: OpenOptions, onBytes: (n: number) => void): Promise<ByteInput> {
  const raw = iteratorOf(fh.createReadStream({ highWaterMark: RAW_READ, autoClose: false }));
  return streamInput(path, raw, opts, onBytes, () => fh.close().catch(() => {}));
}

/** A stream input from its raw bytes: gzip by name or magic, read front to back; `release` frees what holds it. */
async function streamInput(path: string, raw: AsyncIterator<Buffer>, opts: OpenOptions, onBytes: (n: number) => void, release: () => Promise<void>): Promise<ByteInput> {
  let pulled: { pieces: Buffer[]; done: boolean };
  try {
    pulled = await pull(raw, 2, path);
  } catch (e) {
    await release();
    throw e;
  }
  const gzip = isGzipName(path) || hasGzipMagic(Buffer.concat(pulled.pieces));
  const counted = countBytes(replay(pulled.pieces, pulled.done ? null : raw), onBytes, opts.onRaw);
  const bytes = gzip ? gunzip(counted, path) : wrapErrors(counted, path);
  const close = async () => {
    await bytes.return?.(undefined);
    await release();
  };
  return { path, rawSize: null, gzip, fh: null, bytes, close };
}

/**
 * The raw bytes of a stream input, for a caller that holds it before it is
 * read (HeldStream): `-` is the process's stdin; a FIFO, `<(...)` or a
 * device is opened here (closed at its end, or when the stream is
 * destroyed). DRUM_INPUT if it cannot be opened, or stdin is a directory.
 */
export async function openRawStream(path: string): Promise<ByteStream> {
  if (path === '-') {
    refuseStdinDirectory();
    return process.stdin;
  }
  try {
    return (await open(path, 'r')).createReadStream({ highWaterMark: RAW_READ });
  } catch (e) {
    throw inputError(path, 'cannot open input', e);
  }
}

export function iteratorOf(s: ByteStream): AsyncIterator<Buffer> {
  return (s as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
}

/** Pulls buffers until at least `n` bytes or the end. */
export async function pull(it: AsyncIterator<Buffer>, n: number, path: string): Promise<{ pieces: Buffer[]; done: boolean }> {
  const pieces: Buffer[] = [];
  let got = 0;
  try {
    while (got < n) {
      const r = await it.next();
      if (r.done) return { pieces, done: true };
      const b = toBuffer(r.value);
      pieces.push(b);
      got += b.length;
    }
  } catch (e) {
    throw e instanceof DrumError ? e : inputError(path, 'cannot read input', e);
  }
  return { pieces, done: false };
}

/** Yields `pieces`, then the rest of `rest` (if any). */
export async function* replay(pieces: Buffer[], rest: AsyncIterator<Buffer> | null): AsyncGenerator<Buffer> {
  for (const p of pieces) yield p;
  if (rest === null) return;
  try {
    for (;;) {
      const r = await rest.next();
      if (r.done) return;
      yield toBuffer(r.value);
    }
  } finally {
    await rest.return?.();
  }
}

export function toBuffer(v: unknown): Buffer {
  if (Buffer.isBuffer(v)) return v;
  if (typeof v === 'string') return Buffer.from(v);
  if (v instanceof Uint8Array) return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  throw new TypeError('input stream must yield Buffers');
}

async function* countBytes(src: AsyncIterable<Buffer>, onBytes: (n: number) => void, onRaw?: (b: Buffer) => void): AsyncGenerator<Buffer> {
  for await (const b of src) {
    onBytes(b.length);
    onRaw?.(b);
    yield b;
  }
}

/** A file's bytes from `from` to its end, in fresh buffers of up to `size` bytes (DRUM_INPUT on a read error). */
export async function* readRaw(fh: FileHandle, path: string, from = 0, size = RAW_READ): AsyncGenerator<Buffer> {
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
    yield buf.subarray(0, n);
  }
}

async function* wrapErrors(src: AsyncIterable<Buffer>, path: string): AsyncGenerator<Buffer> {
  try {
    for await (const b of src) yield b;
  } catch (e) {
    throw e instanceof DrumError ? e : inputError(path, 'cannot read input', e);
  }
}
