// Opens one input (a path, or `-` for stdin) as bytes: a positional file
// handle for plain regular files, or an iterator of decompressed Buffers for
// gzip and stdin; counts raw (compressed) bytes for progress. Maps every
// failure to DRUM_INPUT naming the file. Does not split lines or detect the
// text format (src/input/detect.ts, src/input/split.ts do).

import { open, stat, type FileHandle } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { DrumError } from '../errors.js';
import { hasGzipMagic, isGzipName } from './detect.js';

/** Raw read size for gzip files, zlib output piece size, and how far zlib (on the threadpool) may run ahead. */
const RAW_READ = 256 * 1024;
const GUNZIP_CHUNK = 1 << 20;
const GUNZIP_AHEAD = 8 << 20;
/** Compressed bytes handed to zlib at a time (bounds one write's output: zlib inflates at most ~1032x). */
const GUNZIP_SLICE = 64 * 1024;
/** Slices handed to zlib and not yet consumed: two, so zlib never waits for the next one. */
const GUNZIP_WRITES = 2;

export type ByteStream = AsyncIterable<Buffer> | NodeJS.ReadableStream;

export interface OpenOptions {
  /** What `-` reads. Default process.stdin. The seam tests use to feed stdin. */
  stdin?: ByteStream;
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

export function inputError(path: string, what: string, cause?: unknown): DrumError {
  const sys = (cause as NodeJS.ErrnoException | undefined)?.code;
  const detail = sys ?? (cause instanceof Error ? cause.message : cause === undefined ? '' : String(cause));
  return new DrumError('DRUM_INPUT', `${what} ${path}${detail ? `: ${detail}` : ''}`, { cause, file: path });
}

/** Raw size of an input in bytes, or null for stdin and other streams (FIFOs, devices). */
export async function inputSize(path: string): Promise<number | null> {
  if (path === '-') return null;
  try {
    const st = await stat(path);
    return st.isFile() ? st.size : null;
  } catch (e) {
    throw inputError(path, 'cannot open input', e);
  }
}

export async function openInput(path: string, opts: OpenOptions = {}): Promise<ByteInput> {
  const onBytes = opts.onBytes ?? (() => {});
  if (path === '-') {
    const raw = iteratorOf(opts.stdin ?? process.stdin);
    const { pieces, done } = await pull(raw, 2, path);
    const gzip = hasGzipMagic(Buffer.concat(pieces));
    const counted = countBytes(replay(pieces, done ? null : raw), onBytes, opts.onRaw);
    const bytes = gzip ? gunzip(counted, path) : wrapErrors(counted, path);
    return { path, rawSize: null, gzip, fh: null, bytes, close: async () => void (await bytes.return?.(undefined)) };
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
  const bytes = gunzip(countBytes(readRaw(fh, path), onBytes, opts.onRaw), path);
  const close = async () => {
    await bytes.return?.(undefined);
    await fh.close().catch(() => {});
  };
  return { path, rawSize: size, gzip, fh: null, bytes, close };
}

async function openStream(path: string, fh: FileHandle, opts: OpenOptions, onBytes: (n: number) => void): Promise<ByteInput> {
  const raw = iteratorOf(fh.createReadStream({ highWaterMark: RAW_READ, autoClose: false }));
  let pulled: { pieces: Buffer[]; done: boolean };
  try {
    pulled = await pull(raw, 2, path);
  } catch (e) {
    await fh.close().catch(() => {});
    throw e;
  }
  const gzip = isGzipName(path) || hasGzipMagic(Buffer.concat(pulled.pieces));
  const counted = countBytes(replay(pulled.pieces, pulled.done ? null : raw), onBytes, opts.onRaw);
  const bytes = gzip ? gunzip(counted, path) : wrapErrors(counted, path);
  const close = async () => {
    await bytes.return?.(undefined);
    await fh.close().catch(() => {});
  };
  return { path, rawSize: null, gzip, fh: null, bytes, close };
}

function iteratorOf(s: ByteStream): AsyncIterator<Buffer> {
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

function toBuffer(v: unknown): Buffer {
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

/**
 * Decompresses gzip (multi-member too); a truncated or corrupt stream yields
 * every byte inflated before the damage, then throws DRUM_INPUT.
 *
 * zlib runs flowing (never paused), so each piece it inflates reaches the
 * queue here at once: a paused stream's buffered output would be dropped
 * when zlib then fails and destroys it, which lost up to GUNZIP_AHEAD of
 * good lines, depending on timing. Backpressure is on the compressed side
 * instead: at most GUNZIP_WRITES slices of GUNZIP_SLICE compressed bytes
 * are with zlib at a time, and a slice is written only while the queue
 * holds less than GUNZIP_AHEAD (so RAM <= GUNZIP_AHEAD + two slices' output).
 */
function gunzip(raw: AsyncIterable<Buffer>, path: string): AsyncGenerator<Buffer> {
  async function* run(): AsyncGenerator<Buffer> {
    const gz = createGunzip({ chunkSize: GUNZIP_CHUNK });
    const queue: Buffer[] = [];
    let queued = 0;
    let failed: { e: unknown } | null = null;
    let ended = false;
    let stopped = false;
    let writing = 0;
    let waiters: (() => void)[] = [];
    const notify = (): void => {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    };
    const changed = (): Promise<void> => new Promise((r) => waiters.push(r));
    const fail = (e: unknown): void => {
      failed ??= { e };
      notify();
    };
    gz.on('data', (b: Buffer) => {
      queue.push(b);
      queued += b.length;
      notify();
    });
    gz.on('error', fail);
    gz.on('end', () => {
      ended = true;
      notify();
    });
    const pump = async (): Promise<void> => {
      try {
        for await (const piece of raw) {
          for (let at = 0; at < piece.length; at += GUNZIP_SLICE) {
            while ((queued >= GUNZIP_AHEAD || writing >= GUNZIP_WRITES) && failed === null && !stopped) await changed();
            if (failed !== null || stopped) return;
            writing++;
            gz.write(piece.subarray(at, at + GUNZIP_SLICE), () => {
              writing--;
              notify();
            });
          }
        }
        // end() only once zlib took every slice: a slice still queued at end() is inflated with Z_FINISH,
        // and when that fails (a cut stream) zlib drops the slice's good output with it.
        while (writing > 0 && failed === null && !stopped) await changed();
        if (failed === null && !stopped) gz.end();
      } catch (e) {
        fail(e);
      }
    };
    void pump();
    try {
      for (;;) {
        const b = queue.shift();
        if (b !== undefined) {
          queued -= b.length;
          notify();
          yield b;
          continue;
        }
        if (failed !== null) {
          const e = (failed as { e: unknown }).e;
          throw e instanceof DrumError ? e : inputError(path, 'cannot decompress input', e);
        }
        if (ended) return;
        await changed();
      }
    } finally {
      stopped = true;
      notify();
      gz.destroy();
    }
  }
  return run();
}
