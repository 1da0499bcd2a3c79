// The first bytes of an opened input, read for format detection: a plain
// file is peeked with positional reads (nothing consumed), a stream (gzip,
// stdin) is pulled until detectFormat decides and the pulled bytes are
// replayed in front of the rest; a stream that breaks first is decided on
// what came through, which is delivered before the error. peekFormat tells
// a file's format before a run reads it; holdStream tells a stream's (stdin,
// a FIFO) and holds what it read for the run. Does not decide the format
// (detect.ts) or split lines (split.ts).
// REQUIRES: an input from openInput (open.ts) not yet read from.

import type { FileHandle } from 'node:fs/promises';
import { isDrumError } from '../errors.js';
import { detectFormat, PEEK_BYTES, type ConcreteFormat, type Detection } from './detect.js';
import { HeldStream } from './held-stream.js';
import { inputError, inputSize, openInput, openRawStream, pull, replay, type ByteInput, type ByteStream } from './open.js';

/** Detection on a plain file's first PEEK_BYTES (or all of a shorter file). */
export async function detectFile(fh: FileHandle, size: number, max: number, forced: ConcreteFormat | undefined, path: string): Promise<Detection> {
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
export async function detectStream(
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
 * The format input file `path` reads as (gzip undone), detected from its
 * first bytes and closed again: a run can refuse it before it starts. Null
 * for stdin and other streams (FIFOs, devices), which can be peeked only by
 * reading them. DRUM_INPUT if it cannot be opened.
 */
export async function peekFormat(path: string, maxLineBytes: number): Promise<ConcreteFormat | null> {
  if ((await inputSize(path)) === null) return null;
  const src = await openInput(path);
  try {
    const det = src.fh ? await detectFile(src.fh, src.rawSize ?? 0, maxLineBytes, undefined, path) : (await detectStream(src, maxLineBytes, undefined)).det;
    return det.format;
  } finally {
    await src.close();
  }
}

/**
 * A stream input (`-`, a FIFO, `<(...)`, a device) opened and read just far
 * enough to tell its format (gzip undone), and held: the run reads it from
 * its first byte through held.replay(). Format null when the stream broke
 * before detection could start (the run meets the same error reading it).
 * DRUM_INPUT if it cannot be opened; the caller closes `held` when no run reads it.
 * `source`: the path's raw bytes from its first byte, already opened by the caller (not opened here then).
 */
export async function holdStream(path: string, maxLineBytes: number, source?: ByteStream): Promise<{ format: ConcreteFormat | null; held: HeldStream }> {
  const held = new HeldStream(source ?? (await openRawStream(path)));
  let format: ConcreteFormat | null = null;
  try {
    const src = await openInput(path, { streams: new Map([[path, held.peek()]]) });
    try {
      format = (await detectStream(src, maxLineBytes, undefined)).det.format;
    } finally {
      await src.close();
    }
  } catch (e) {
    if (!isDrumError(e, 'DRUM_INPUT')) {
      await held.close();
      throw e;
    }
  }
  return { format, held };
}
