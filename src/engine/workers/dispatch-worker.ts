// The parse worker's dispatch service: runs scanAux for the main thread and
// keeps the blocks it fills. Blocks are allocated here once (BLOCKS of
// BLOCK_BYTES) and travel to the main thread and back by transfer, so a
// dispatch allocates nothing per block and at most BLOCKS are in flight (the
// scan waits for a returned block when all are out: flow control).
// Does not write files; the main thread writes what it receives.

import { isDrumError, type DrumErrorCode } from '../../errors.js';
import { scanAux, type DispatchBlock, type ScanRequest } from './dispatch-scan.js';

/** Blocks in circulation between the worker and the main thread. */
export const BLOCKS = 4;
/** Bytes per block (a block always takes one URL of the longest kind, 65,535 bytes). */
export const BLOCK_BYTES = 1 << 20;
/** URLs per block at most. */
export const BLOCK_URLS = 1 << 16;

export type DispatchMessage =
  | { id: number; scan: ScanRequest; blockBytes?: number; blockUrls?: number }
  | { recycle: DispatchBlock }
  | { cancelScan: number };

/** What the worker posts: a filled block, the final result, or an error. */
export type DispatchReply =
  | { id: number; block: DispatchBlock }
  | { id: number; scanned: { newUrls: number; bytesRead: number } }
  | { id: number; error: { message: string; stack?: string; code?: DrumErrorCode; file?: string } };

export class DispatchService {
  private free: DispatchBlock[] = [];
  private allocated = 0;
  private waiter: ((b: DispatchBlock) => void) | null = null;
  private readonly cancelled = new Set<number>();

  constructor(private readonly post: (msg: DispatchReply, transfer: ArrayBuffer[]) => void) {}

  /** Handles a dispatch message; returns false if the message is not one. */
  handle(msg: unknown): boolean {
    const m = msg as Partial<{ id: number; scan: ScanRequest; blockBytes: number; blockUrls: number; recycle: DispatchBlock; cancelScan: number }>;
    if (m.recycle !== undefined) {
      this.give(m.recycle);
      return true;
    }
    if (m.cancelScan !== undefined) {
      this.cancelled.add(m.cancelScan);
      return true;
    }
    if (m.scan === undefined) return false;
    const id = m.id!;
    const bytes = m.blockBytes ?? BLOCK_BYTES;
    const urls = m.blockUrls ?? BLOCK_URLS;
    scanAux(
      m.scan, () => this.take(bytes, urls), (b) => this.post({ id, block: b }, [b.bytes.buffer as ArrayBuffer, b.ends.buffer as ArrayBuffer]),
      (b) => this.give(b), () => this.cancelled.has(id),
    )
      .then((r) => this.post({ id, scanned: r }, []))
      .catch((e: Error) => this.post({ id, error: { message: e.message, stack: e.stack, ...(isDrumError(e) ? { code: e.code, file: e.file } : {}) } }, []))
      .finally(() => this.cancelled.delete(id));
    return true;
  }

  /** An empty block of at least `bytes`/`urls`: a free one, a new one while fewer than BLOCKS exist, else the next returned. */
  private async take(bytes: number, urls: number): Promise<DispatchBlock> {
    let b = this.free.pop();
    if (b === undefined && this.allocated < BLOCKS) {
      this.allocated++;
      return { bytes: new Uint8Array(bytes), ends: new Uint32Array(urls), len: 0, n: 0 };
    }
    b ??= await new Promise<DispatchBlock>((resolve) => {
      this.waiter = resolve;
    });
    // A block sized for an earlier request (tests vary the sizes) is replaced: the scan cuts blocks by their capacity.
    if (b.bytes.length !== bytes || b.ends.length !== urls) return { bytes: new Uint8Array(bytes), ends: new Uint32Array(urls), len: 0, n: 0 };
    b.len = 0;
    b.n = 0;
    return b;
  }

  private give(b: DispatchBlock): void {
    const w = this.waiter;
    if (w !== null) {
      this.waiter = null;
      w(b);
    } else {
      this.free.push(b);
    }
  }
}
