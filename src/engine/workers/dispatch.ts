// The main thread's half of a merge round's dispatch when a parse worker is
// free to help: the worker streams the aux log and packs the new URLs into
// blocks of "URL\n" lines (dispatch-scan.ts); this side hands each block, in
// order, to the sink (which writes it to the unique files and counts hosts)
// and returns it to the worker. So the aux read, the bit tests and the byte
// copies run on the worker's core while this thread writes, and every write
// still goes through this thread's DrumFs (fault seam, counters).
// WorkerScans is the request/reply side the parse pool uses to talk to the
// worker's dispatch service. Does not decide which URLs are new (the bitmap
// says) and writes nothing itself.
// REQUIRES: the aux log flushed to its file; `newBits` on a SharedArrayBuffer.

import type { Worker } from 'node:worker_threads';
import type { AuxLog } from '../../bucket/aux-log.js';
import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import type { DispatchBlock, ScanRequest, ScanResult } from './dispatch-scan.js';
import type { DispatchMessage, DispatchReply } from './dispatch-worker.js';
import type { ParsePool } from './parse-pool.js';

/** Where dispatched blocks go: a writer that takes whole blocks of lines and says how full its current file is. */
export interface BlockSink {
  readonly urlsPerFile: number;
  /** URLs the current unique file still takes (1..urlsPerFile; a full file rotates before the next block). */
  room(): number;
  /** Takes the block's n lines in bytes[0, len); URL i ends at ends[i] (its newline follows). Valid only during the call. */
  block(b: DispatchBlock): void;
}

/** Dispatches the round's new URLs through the worker; returns how many there were. */
export async function dispatchOnWorker(pool: ParsePool, aux: AuxLog, newBits: Uint8Array, sink: BlockSink, dfs: DrumFs): Promise<number> {
  const r = await pool.scanAux(
    { path: aux.path, records: aux.records, newBits, room: sink.room(), urlsPerFile: sink.urlsPerFile },
    (b) => sink.block(b),
  );
  // The worker opened and read the log front to back: count it as drum's own reads are counted.
  dfs.counters.fileOpens++;
  dfs.counters.seeks++;
  dfs.counters.bytesRead += r.bytesRead;
  return r.newUrls;
}

/** Ordinals set in both bitmaps (new URLs the Bloom gate had called "maybe seen": its false positives). */
export function countBoth(a: Uint8Array, b: Uint8Array, bytes: number): number {
  let n = 0;
  const m = Math.min(bytes, a.length, b.length);
  for (let i = 0; i < m; i++) {
    let x = a[i]! & b[i]!;
    while (x !== 0) {
      x &= x - 1;
      n++;
    }
  }
  return n;
}

/** A scan in progress: its block handler and the first error that handler threw. */
interface Scan {
  resolve: (r: ScanResult) => void;
  reject: (e: unknown) => void;
  onBlock: (b: DispatchBlock) => void;
  worker: Worker;
  failed: unknown;
}

/**
 * The scans a ParsePool has asked its worker for: hands each block to the
 * scan's handler in order and returns it to the worker; if the handler
 * throws, cancels the scan (the worker stops reading), returns the blocks
 * still coming and rejects with that error once the worker is done, so the
 * worker stays usable.
 */
export class WorkerScans {
  private readonly scans = new Map<number, Scan>();

  has(id: number): boolean {
    return this.scans.has(id);
  }

  start(worker: Worker, id: number, req: ScanRequest, onBlock: (b: DispatchBlock) => void, sizes: { blockBytes?: number; blockUrls?: number }): Promise<ScanResult> {
    return new Promise<ScanResult>((resolve, reject) => {
      this.scans.set(id, { resolve, reject, onBlock, worker, failed: null });
      const msg: DispatchMessage = { id, scan: req, ...sizes };
      worker.postMessage(msg);
    });
  }

  /** A reply of the worker for scan m.id: a block, the result or an error. */
  reply(m: DispatchReply): void {
    const scan = this.scans.get(m.id)!;
    if ('block' in m) {
      const b = m.block;
      if (scan.failed === null) {
        try {
          scan.onBlock(b);
        } catch (e) {
          scan.failed = e;
          // Nothing more is wanted: let the worker stop reading instead of scanning to the end.
          const cancel: DispatchMessage = { cancelScan: m.id };
          scan.worker.postMessage(cancel);
        }
      }
      const back: DispatchMessage = { recycle: b };
      scan.worker.postMessage(back, [b.bytes.buffer as ArrayBuffer, b.ends.buffer as ArrayBuffer]);
      return;
    }
    this.scans.delete(m.id);
    if (scan.failed !== null) scan.reject(scan.failed);
    else if ('error' in m) {
      // A DrumError keeps its code across the thread (a cut-short aux log is DRUM_CORRUPT_FILE on either side); anything else is a bug.
      const { code, file, message } = m.error;
      scan.reject(code !== undefined ? new DrumError(code, message, { file }) : new DrumError('DRUM_INTERNAL', `dispatch worker: ${message}`));
    }
    else scan.resolve(m.scanned);
  }

  /** The worker died: every scan fails with `e`. */
  failAll(e: unknown): void {
    for (const s of this.scans.values()) s.reject(e);
    this.scans.clear();
  }
}

