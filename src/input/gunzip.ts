// Streaming gzip decompression of an input's raw bytes (multi-member too):
// yields zlib's output pieces in order, with backpressure on the compressed
// side so RAM stays bounded, and on a truncated or corrupt stream yields
// every byte inflated before the damage, then throws DRUM_INPUT naming the
// file. Does not read files, detect gzip or count bytes (open.ts does).
// REQUIRES: `raw` yields the compressed bytes in order, from the stream's start.

import { createGunzip, type Gunzip } from 'node:zlib';
import { DrumError } from '../errors.js';
import { inputError } from './input-error.js';

/** zlib output piece size, and how far zlib (on the threadpool) may run ahead. */
const GUNZIP_CHUNK = 1 << 20;
const GUNZIP_AHEAD = 8 << 20;
/** Compressed bytes handed to zlib at a time (bounds one write's output: zlib inflates at most ~1032x). */
const GUNZIP_SLICE = 64 * 1024;
/** Slices handed to zlib and not yet consumed: two, so zlib never waits for the next one. */
const GUNZIP_WRITES = 2;

/** What gunzip's feeding side and its reading side share: zlib, its output queue, and how both stand. */
interface GunzipFlow {
  gz: Gunzip;
  /** zlib's output not yet yielded, and its size in bytes. */
  queue: Buffer[];
  queued: number;
  /** The first failure (zlib's or the raw source's), once there is one. */
  failed: { e: unknown } | null;
  /** zlib emitted its end. */
  ended: boolean;
  /** The reader stopped (returned, threw, or was closed early). */
  stopped: boolean;
  /** Slices handed to zlib and not yet consumed. */
  writing: number;
  waiters: (() => void)[];
}

/** Wakes every wait on the flow (something in it changed). */
function notify(f: GunzipFlow): void {
  const w = f.waiters;
  f.waiters = [];
  for (const wake of w) wake();
}

/** Resolves at the flow's next change. */
function changed(f: GunzipFlow): Promise<void> {
  return new Promise((r) => f.waiters.push(r));
}

/** Records the flow's first failure and wakes both sides. */
function fail(f: GunzipFlow, e: unknown): void {
  f.failed ??= { e };
  notify(f);
}

/** A flowing (never paused) zlib gunzip whose output, end and error land in a new flow. */
function startGunzip(): GunzipFlow {
  const f: GunzipFlow = {
    gz: createGunzip({ chunkSize: GUNZIP_CHUNK }),
    queue: [], queued: 0, failed: null, ended: false, stopped: false, writing: 0, waiters: [],
  };
  f.gz.on('data', (b: Buffer) => {
    f.queue.push(b);
    f.queued += b.length;
    notify(f);
  });
  f.gz.on('error', (e: unknown) => fail(f, e));
  f.gz.on('end', () => {
    f.ended = true;
    notify(f);
  });
  return f;
}

/**
 * Hands `raw` to zlib in GUNZIP_SLICE slices, at most GUNZIP_WRITES at a
 * time and only while the queue holds less than GUNZIP_AHEAD; ends zlib
 * after the last slice. A failure of `raw` becomes the flow's failure.
 */
async function feedGunzip(f: GunzipFlow, raw: AsyncIterable<Buffer>): Promise<void> {
  const wrote = (): void => {
    f.writing--;
    notify(f);
  };
  try {
    for await (const piece of raw) {
      for (let at = 0; at < piece.length; at += GUNZIP_SLICE) {
        while ((f.queued >= GUNZIP_AHEAD || f.writing >= GUNZIP_WRITES) && f.failed === null && !f.stopped) await changed(f);
        if (f.failed !== null || f.stopped) return;
        f.writing++;
        f.gz.write(piece.subarray(at, at + GUNZIP_SLICE), wrote);
      }
    }
    // end() only once zlib took every slice: a slice still queued at end() is inflated with Z_FINISH,
    // and when that fails (a cut stream) zlib drops the slice's good output with it.
    while (f.writing > 0 && f.failed === null && !f.stopped) await changed(f);
    if (f.failed === null && !f.stopped) f.gz.end();
  } catch (e) {
    fail(f, e);
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
 * instead (feedGunzip): at most GUNZIP_WRITES slices of GUNZIP_SLICE
 * compressed bytes are with zlib at a time, and a slice is written only
 * while the queue holds less than GUNZIP_AHEAD (so RAM <= GUNZIP_AHEAD +
 * two slices' output). Nothing starts before the first read.
 */
export async function* gunzip(raw: AsyncIterable<Buffer>, path: string): AsyncGenerator<Buffer> {
  const f = startGunzip();
  void feedGunzip(f, raw);
  try {
    for (;;) {
      const b = f.queue.shift();
      if (b !== undefined) {
        f.queued -= b.length;
        notify(f);
        yield b;
        continue;
      }
      if (f.failed !== null) {
        const e = f.failed.e;
        throw e instanceof DrumError ? e : inputError(path, 'cannot decompress input', e);
      }
      if (f.ended) return;
      await changed(f);
    }
  } finally {
    f.stopped = true;
    notify(f);
    f.gz.destroy();
  }
}
