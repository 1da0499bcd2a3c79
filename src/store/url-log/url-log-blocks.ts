// Walks the URL log's blocks front to back up to a committed point, from
// the segments alone: each segment's header, each block's header and CRC,
// docIDs following each other without a gap from the point's `base`, sealed
// segments ending on a block. What the index must say is exactly what this
// walk finds, so verify compares the two (url-log-verify.ts) and repair
// writes the index from it (url-log-rebuild.ts). Reads only; does not read
// the index.
// REQUIRES: descriptors pushed to `fds` are closed by the caller.

import type { DrumFs } from '../../io/fs.js';
import { checkBlock, checkSegmentHeader, readBlockHeader, segmentPath, URL_BLOCK_HEADER_BYTES, URL_SEGMENT_HEADER_BYTES, type UrlLogPoint } from './url-log-format.js';
import { openNamed } from './url-log-reader.js';

/** Damage the walk (or a check against it) found, naming the file. */
export class UrlLogDamage extends Error {
  constructor(readonly file: string, message: string) {
    super(message);
  }
}

/** One block as the segments hold it. */
export interface BlockAt {
  segment: number;
  /** Byte offset of the block's header in its segment. */
  offset: number;
  firstDoc: number;
  docs: number;
}

/**
 * Calls fn for every committed block in log order (and onSegment once per
 * segment opened); returns the docID after the last. Throws UrlLogDamage.
 */
export function walkBlocks(
  dfs: DrumFs, stateDir: string, p: UrlLogPoint, fds: number[], fn: (b: BlockAt, file: string) => void, onSegment?: (file: string) => void,
): number {
  let next = p.base;
  const head = Buffer.allocUnsafe(URL_BLOCK_HEADER_BYTES);
  for (let s = 0; s < p.segments; s++) {
    const file = segmentPath(stateDir, s);
    const fd = openNamed(dfs, file);
    fds.push(fd);
    onSegment?.(file);
    const h = Buffer.allocUnsafe(URL_SEGMENT_HEADER_BYTES);
    if (dfs.readFully(fd, h, 0, h.length, 0) !== h.length) throw new UrlLogDamage(file, 'shorter than its header');
    checkSegmentHeader(h, s, file);
    const end = s === p.segments - 1 ? p.tailBytes : dfs.sizeOf(fd, file);
    if (dfs.sizeOf(fd, file) < end) throw new UrlLogDamage(file, `${dfs.sizeOf(fd, file)} bytes, the manifest names ${end}`);
    let off = URL_SEGMENT_HEADER_BYTES;
    while (off < end) {
      if (off + URL_BLOCK_HEADER_BYTES > end || dfs.readFully(fd, head, 0, head.length, off) !== head.length) throw new UrlLogDamage(file, `block at offset ${off} cut short`);
      const bytes = URL_BLOCK_HEADER_BYTES + readBlockHeader(head, 0).textBytes;
      if (off + bytes > end) throw new UrlLogDamage(file, `block at offset ${off} runs past the segment's end ${end}`);
      const block = Buffer.allocUnsafe(bytes);
      if (dfs.readFully(fd, block, 0, bytes, off) !== bytes) throw new UrlLogDamage(file, `block at offset ${off} cut short`);
      const bh = checkBlock(block, 0, file, off);
      if (bh.firstDoc !== next) throw new UrlLogDamage(file, `block at offset ${off} starts at docID ${bh.firstDoc}, not ${next}`);
      fn({ segment: s, offset: off, firstDoc: bh.firstDoc, docs: bh.docs }, file);
      next += bh.docs;
      off += bytes;
    }
  }
  return next;
}
