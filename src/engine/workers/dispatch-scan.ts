// The worker's half of a merge round's dispatch: streams the round's aux log
// (docs/file-format.md: front-coded records, record index = arrival
// ordinal; AuxCursor rebuilds each URL), keeps the records whose bit is set
// in the round's new-URL bitmap, and packs them as "URL\n" lines into blocks
// for the main thread, which writes them to the unique files and counts
// their hosts.
// A block never spans a unique-file rotation (the request says how many URLs
// the current file still takes), so the main thread writes each block whole.
// Reads only (plain fs, positional); writes nothing. Blocks come from
// `nextBlock`, which the caller refills with blocks the main thread returns.
// REQUIRES: the aux log file holds at least `records` complete records.

import * as fs from 'node:fs';
import { AuxCursor, AUX_CURSOR_MIN_BYTES } from '../../bucket/aux-log.js';
import { DrumError } from '../../errors.js';
import { RangeCopier } from '../../io/range-copy.js';

export interface ScanRequest {
  /** The aux log file. */
  path: string;
  /** Records (ordinals) to scan: the round's aux.records. */
  records: number;
  /** Bit o of byte o >> 3 set when ordinal o is new (a SharedArrayBuffer view: not copied). */
  newBits: Uint8Array;
  /** URLs the current unique file still takes before it rotates (1..urlsPerFile). */
  room: number;
  urlsPerFile: number;
}

/** A block of n "URL\n" lines in bytes[0, len); URL i ends (before its newline) at ends[i]. */
export interface DispatchBlock {
  bytes: Uint8Array;
  ends: Uint32Array;
  len: number;
  n: number;
}

export interface ScanResult {
  newUrls: number;
  bytesRead: number;
}

const READ_BYTES = 4 << 20;
const NL = 0x0a;

let readBuffer: Uint8Array | null = null;
const copier = new RangeCopier();

/** Thrown when the caller cancelled the scan (its block sink failed): nothing more is wanted. */
export class ScanCancelled extends Error {}

/**
 * Scans the aux log; hands each filled block to `emit` (which takes
 * ownership) and gets empty ones from `nextBlock` (which may wait for the
 * main thread to return one). A block held when the scan fails or is
 * cancelled (`cancelled()` is asked at every read) goes to `release`, so
 * none is lost. Blocks must hold at least one URL
 * (bytes.length > the longest aux record, 65,535 bytes; ends.length >= 1).
 */
export async function scanAux(
  req: ScanRequest,
  nextBlock: () => Promise<DispatchBlock>,
  emit: (b: DispatchBlock) => void,
  release: (b: DispatchBlock) => void = () => undefined,
  cancelled: () => boolean = () => false,
): Promise<ScanResult> {
  const bits = req.newBits;
  let room = req.room;
  let newUrls = 0;
  let block: DispatchBlock | null = null;
  const fd = fs.openSync(req.path, 'r');
  const cur = new AuxCursor((readBuffer ??= new Uint8Array(READ_BYTES + AUX_CURSOR_MIN_BYTES)), (b, off, len, pos) => {
    if (cancelled()) throw new ScanCancelled('dispatch scan cancelled');
    return fs.readSync(fd, b, off, len, pos);
  });
  try {
    const url = cur.url;
    for (let ordinal = 0; ordinal < req.records; ordinal++) {
      if (!cur.next()) throw new DrumError('DRUM_CORRUPT_FILE', `${req.path}: aux log ends at record ${ordinal} of ${req.records}`, { file: req.path });
      if (((bits[ordinal >>> 3]! >>> (ordinal & 7)) & 1) === 0) continue;
      const len = cur.len;
      if (block === null) block = await nextBlock();
      else if (block.len + len + 1 > block.bytes.length || block.n === block.ends.length) {
        emit(block);
        block = await nextBlock();
      }
      const out = block.bytes;
      const w = copier.copy(url, 0, len, out, block.len);
      block.ends[block.n++] = w;
      out[w] = NL;
      block.len = w + 1;
      newUrls++;
      if (--room === 0) {
        // The unique file is full after this URL: the next one goes to a new file, in a new block.
        emit(block);
        block = null;
        room = req.urlsPerFile;
      }
    }
    if (block !== null && block.n > 0) emit(block);
    block = null;
  } finally {
    fs.closeSync(fd);
    if (block !== null) release(block);
  }
  return { newUrls, bytesRead: cur.bytesRead };
}
