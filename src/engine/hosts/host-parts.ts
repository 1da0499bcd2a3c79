// The sealed host-count parts of one round (see host-counter.ts), held in
// bounded RAM: parts are kept in memory up to `ramBytes` in total, every
// later part is appended to a work file (work/hosts.parts) through the
// session's DrumFs, so the fault seam sees those writes. Iterating yields the
// parts one at a time, RAM parts first, then the file's in order; a part read
// back from the file is a view of ONE reused buffer, valid only until the
// next part is requested (reading 100 MB of parts then makes no garbage for
// the GC to find late). It can be iterated more than once until close(),
// which closes and deletes the file.
// Does not decode or add up counts (the catalog does). Transient: a crash
// discards the file (work/ is emptied at open) and the round's host counts
// are recounted from its unique-URL files (host-recovery.ts).
// File layout: records of  u32 LE part length | part bytes  back to back.

import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';

/**
 * Sealed parts kept in RAM before later ones go to the work file: ~8 parts
 * (~65 k hosts); a round past them spills a few MiB, written from the
 * counter's reused buffer. 2 MiB (was 4) gives the budget's round working set
 * the values deltas' read chunks (values-pass.ts) without taking them from
 * the sort area.
 */
export const HOST_PARTS_RAM_BYTES = 2 << 20;
export const HOST_PART_LEN_BYTES = 4;

/** Work files some open HostParts writes: a second one on the same path would clobber it. */
const inUse = new Set<string>();

export interface HostPartsSpill {
  dfs: DrumFs;
  /** The work file, e.g. <work>/hosts.parts; truncated on first use. */
  path: string;
  /** RAM cap for parts before spilling (default HOST_PARTS_RAM_BYTES). */
  ramBytes?: number;
}

export class HostParts implements Iterable<Buffer> {
  private readonly ram: Buffer[] = [];
  private ramUsed = 0;
  private fd = -1;
  private fileBytes = 0;
  private closed = false;
  /** Parts held, in RAM and in the file. */
  count = 0;
  /** Parts written to the work file. */
  spilled = 0;
  /** Total bytes of every part held. */
  bytes = 0;

  constructor(private readonly spill: HostPartsSpill | null = null) {}

  /**
   * Adds one encoded part (an empty part, n = 0, is dropped). `lent`: the
   * caller reuses part's bytes after the call (HostCounter's seal buffer),
   * so a part kept in RAM is copied; one spilled is written from it, and
   * makes no garbage.
   */
  push(part: Buffer, lent = false): void {
    if (this.closed) throw new DrumError('DRUM_INTERNAL', 'host-count parts used after close()');
    if (part.length <= 4 || part.readUInt32LE(0) === 0) return;
    this.count++;
    this.bytes += part.length;
    const cap = this.spill?.ramBytes ?? HOST_PARTS_RAM_BYTES;
    if (this.spill === null || this.ramUsed + part.length <= cap) {
      this.ram.push(lent ? Buffer.from(part) : part);
      this.ramUsed += part.length;
      return;
    }
    const { dfs, path } = this.spill;
    if (this.fd < 0) {
      if (inUse.has(path)) throw new DrumError('DRUM_INTERNAL', `${path}: host-count work file still held by an earlier round`, { file: path });
      this.fd = dfs.open(path, 'w+');
      inUse.add(path);
    }
    const len = Buffer.allocUnsafe(HOST_PART_LEN_BYTES);
    len.writeUInt32LE(part.length, 0);
    dfs.write(this.fd, len, 0, HOST_PART_LEN_BYTES, this.fileBytes);
    dfs.write(this.fd, part, 0, part.length, this.fileBytes + HOST_PART_LEN_BYTES);
    this.fileBytes += HOST_PART_LEN_BYTES + part.length;
    this.spilled++;
  }

  *[Symbol.iterator](): Iterator<Buffer> {
    if (this.closed) throw new DrumError('DRUM_INTERNAL', 'host-count parts used after close()');
    yield* this.ram;
    if (this.fd < 0) return;
    const { dfs, path } = this.spill!;
    const len = Buffer.allocUnsafe(HOST_PART_LEN_BYTES);
    let buf = Buffer.allocUnsafe(0);
    let at = 0;
    while (at < this.fileBytes) {
      if (dfs.readFully(this.fd, len, 0, HOST_PART_LEN_BYTES, at) !== HOST_PART_LEN_BYTES) break;
      const n = len.readUInt32LE(0);
      if (n > buf.length) buf = Buffer.allocUnsafe(Math.max(n, 2 * buf.length));
      if (dfs.readFully(this.fd, buf, 0, n, at + HOST_PART_LEN_BYTES) !== n) break;
      at += HOST_PART_LEN_BYTES + n;
      yield buf.subarray(0, n);
    }
    if (at !== this.fileBytes) throw new DrumError('DRUM_CORRUPT_FILE', `${path}: host-count work file is shorter than written`, { file: path });
  }

  /** Forgets the parts; closes and deletes the work file. Idempotent. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ram.length = 0;
    const fd = this.fd;
    this.fd = -1;
    if (fd >= 0) {
      const { dfs, path } = this.spill!;
      inUse.delete(path);
      dfs.close(fd);
      dfs.unlink(path);
    }
  }
}
