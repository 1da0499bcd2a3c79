// Write-behind for a file that is written for a long time and made durable
// at the end (a run's unique files, the URL log's segments): every
// WRITE_BEHIND_BYTES written, an fsync of the descriptor starts on the
// thread pool, so the disk takes the bytes while the run goes on and the
// fsync a commit waits for finds little left to write (RocksDB's
// bytes_per_sync). Does not replace that final fsync: it only starts
// writeback early.
// A write-behind fsync that fails is not forgotten: after a failed fsync
// the kernel may drop the dirty pages and a later fsync report success
// (PostgreSQL's "fsyncgate"), so the failure is kept and settle() throws
// it, failing the commit that would have named the bytes.
// REQUIRES: the descriptor is closed only through close() (an fsync may
// still be running on it); `enabled` false (no fsync at all) makes every
// call a no-op apart from close().

import type { DrumFs } from './fs.js';

/** Bytes written to a descriptor between two write-behind fsyncs. */
export const WRITE_BEHIND_BYTES = 8 << 20;

export class WriteBehind {
  private since = 0;
  private inFlight: Promise<void> | null = null;
  private failed: unknown = null;

  constructor(
    private readonly dfs: DrumFs,
    readonly fd: number,
    private readonly enabled: boolean,
    private readonly every = WRITE_BEHIND_BYTES,
  ) {}

  /** `n` more bytes were written to the descriptor: starts an fsync once `every` have piled up and none is running. */
  wrote(n: number): void {
    if (!this.enabled) return;
    this.since += n;
    if (this.since < this.every || this.inFlight !== null) return;
    this.since = 0;
    const p: Promise<void> = this.dfs.fsyncAsync(this.fd).then(
      () => {
        this.inFlight = null;
      },
      (e: unknown) => {
        this.inFlight = null;
        this.failed ??= e;
      },
    );
    this.inFlight = p;
  }

  /** Waits for the fsync under way; throws the first error a write-behind fsync met. */
  async settle(): Promise<void> {
    while (this.inFlight !== null) await this.inFlight;
    if (this.failed !== null) throw this.failed;
  }

  /**
   * Closes the descriptor: now, or once the fsync under way is over (closing
   * under it could hand its number to another file first). Errors of that
   * fsync and of a deferred close are dropped: a caller that needed the
   * bytes durable called settle() first.
   */
  close(): void {
    const p = this.inFlight;
    if (p === null) {
      this.dfs.close(this.fd);
      return;
    }
    void p.then(() => {
      try {
        this.dfs.close(this.fd);
      } catch {
        // the file was settled or abandoned before: nothing waits for this descriptor
      }
    });
  }
}
