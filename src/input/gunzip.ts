// Streaming gzip decompression of an input's raw bytes (multi-member too):
// yields zlib's output pieces in order, with backpressure on the compressed
// side so RAM stays bounded, and on a truncated or corrupt stream yields
// every byte inflated before the damage, then throws DRUM_INPUT naming the
// file. Node's zlib drops the whole output of the write that meets the
// damage, so when the source can be read again (a file) the stream is
// inflated again up to the damage, the failing slice in narrower writes
// down to one byte, to recover that output. Does not read files, detect
// gzip or count bytes (open.ts does), and cannot recover a pipe's dropped
// output (its bytes cannot be read again).
// REQUIRES: `raw` yields the compressed bytes in order, from the stream's
// start; `again()`, when given, yields the same bytes again from the start.

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
/**
 * Recovery's slice sizes at the damage: 512 bytes, then 1. One pass per
 * size re-inflates the stream up to the damage; a one-byte write costs
 * ~16 us, so past RECOVER_NARROW_UNDER compressed bytes before the damage
 * (~0.3 s of inflating) one pass at 1 byte (<= 64 Ki writes) is cheaper.
 */
const RECOVER_NARROW = 512;
const RECOVER_NARROW_UNDER = 32 << 20;

/** What gunzip's feeding side and its reading side share: zlib, its output queue, and how both stand. */
interface GunzipFlow {
  gz: Gunzip;
  /** zlib's output not yet yielded, and its size in bytes. */
  queue: Buffer[];
  queued: number;
  /** Bytes zlib has output in all. */
  out: number;
  /** Compressed bytes handed to zlib, and of those the ones zlib consumed without error. */
  handed: number;
  consumed: number;
  /** The first failure (zlib's, or the raw source's), once there is one. */
  failed: { e: unknown; zlib: boolean } | null;
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
function fail(f: GunzipFlow, e: unknown, zlib: boolean): void {
  f.failed ??= { e, zlib };
  notify(f);
}

/** A flowing (never paused) zlib gunzip whose output, end and error land in a new flow. */
function startGunzip(): GunzipFlow {
  const f: GunzipFlow = {
    gz: createGunzip({ chunkSize: GUNZIP_CHUNK }),
    queue: [], queued: 0, out: 0, handed: 0, consumed: 0,
    failed: null, ended: false, stopped: false, writing: 0, waiters: [],
  };
  f.gz.on('data', (b: Buffer) => {
    f.queue.push(b);
    f.queued += b.length;
    f.out += b.length;
    notify(f);
  });
  f.gz.on('error', (e: unknown) => fail(f, e, true));
  f.gz.on('end', () => {
    f.ended = true;
    notify(f);
  });
  return f;
}

/**
 * Hands `raw` to zlib in slices of GUNZIP_SLICE, and of `fine` bytes from
 * the compressed offset `fineFrom` on; at most GUNZIP_WRITES at a time and only
 * while the queue holds less than GUNZIP_AHEAD; ends zlib after the last
 * slice. A failure of `raw` becomes the flow's failure.
 */
async function feedGunzip(f: GunzipFlow, raw: AsyncIterable<Buffer>, fineFrom: number, fine: number): Promise<void> {
  try {
    for await (const piece of raw) {
      for (let at = 0; at < piece.length; ) {
        while ((f.queued >= GUNZIP_AHEAD || f.writing >= GUNZIP_WRITES) && f.failed === null && !f.stopped) await changed(f);
        if (f.failed !== null || f.stopped) return;
        const n = Math.min(piece.length - at, f.handed < fineFrom ? Math.min(GUNZIP_SLICE, fineFrom - f.handed) : fine);
        f.writing++;
        f.handed += n;
        f.gz.write(piece.subarray(at, at + n), (e) => {
          f.writing--;
          if (e == null) f.consumed += n;
          notify(f);
        });
        at += n;
      }
    }
    // end() only once zlib took every slice: a slice still queued at end() is inflated with Z_FINISH,
    // and when that fails (a cut stream) zlib drops the slice's good output with it.
    while (f.writing > 0 && f.failed === null && !f.stopped) await changed(f);
    if (f.failed === null && !f.stopped) f.gz.end();
  } catch (e) {
    fail(f, e, false);
  }
}

/**
 * One inflation of `raw`: yields zlib's output after its first `skip`
 * bytes, until zlib ends or the flow fails, and returns the flow (how far
 * it got and its failure, if any). Nothing starts before the first read.
 */
async function* inflatePass(raw: AsyncIterable<Buffer>, skip: number, fineFrom = Infinity, fine = GUNZIP_SLICE): AsyncGenerator<Buffer, GunzipFlow> {
  const f = startGunzip();
  void feedGunzip(f, raw, fineFrom, fine);
  try {
    for (;;) {
      const b = f.queue.shift();
      if (b !== undefined) {
        f.queued -= b.length;
        notify(f);
        if (skip >= b.length) skip -= b.length;
        else {
          yield skip > 0 ? b.subarray(skip) : b;
          skip = 0;
        }
        continue;
      }
      if (f.failed !== null || f.ended) return f;
      await changed(f);
    }
  } finally {
    f.stopped = true;
    notify(f);
    f.gz.destroy();
  }
}

/** The first `limit` bytes of `raw`. */
async function* upTo(raw: AsyncIterable<Buffer>, limit: number): AsyncGenerator<Buffer> {
  let left = limit;
  for await (const b of raw) {
    if (b.length >= left) {
      yield b.subarray(0, left);
      return;
    }
    yield b;
    left -= b.length;
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
 * two slices' output).
 *
 * zlib also drops the output of the write it fails in: the lines of up to
 * one slice before the damage (a last member's tail before trailing
 * garbage, say). With `again`, recover() gets them back.
 */
export async function* gunzip(raw: AsyncIterable<Buffer>, path: string, again?: () => AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const first = yield* inflatePass(raw, 0);
  if (first.failed === null) return;
  const { e, zlib } = first.failed;
  if (zlib && again !== undefined) yield* recover(first, again);
  throw e instanceof DrumError ? e : inputError(path, 'cannot decompress input', e);
}

/**
 * Yields what zlib dropped when `first` failed: each pass inflates the
 * stream again up to the failing slice in large slices, skips the output
 * already yielded, and feeds the failing slice in narrower writes (512
 * bytes, then 1), so what stays lost is the output of the one byte zlib
 * rejects (none before trailing garbage: a member's 8-byte trailer
 * separates its last deflate byte from it). Ends at a pass that does not
 * fail in zlib where the first did (a read error, or a file changed since)
 * or fails with nothing dropped; the caller reports the first failure
 * either way.
 */
async function* recover(first: GunzipFlow, again: () => AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const fines = first.consumed < RECOVER_NARROW_UNDER ? [RECOVER_NARROW, 1] : [1];
  let last = first;
  let yielded = first.out;
  for (const fine of fines) {
    // Narrow only where the first pass failed: a pass failing before it reads a file changed since.
    if (last.failed === null || !last.failed.zlib || last.handed <= last.consumed || last.consumed < first.consumed) return;
    last = yield* inflatePass(upTo(again(), last.handed), yielded, last.consumed, fine);
    yielded = Math.max(yielded, last.out);
  }
}
