// Rebuilds the URL log's index (urls/blocks.idx) from its segments, for
// `drum repair --url-index`: the index holds nothing the segments lack (one
// entry per block: its first docID, segment and offset, all in the block's
// own CRC-checked header). Walks the blocks up to the committed point
// (url-log-blocks.ts), writes the entries to blocks.idx.tmp, fsyncs and
// renames it into place, and returns the point with the new index length
// for the caller to commit in a new manifest. Does not touch the segments
// or the manifest.
// REQUIRES: the caller holds the writer lock; `p` is the committed point.

import { join } from 'node:path';
import type { DrumFs } from '../../io/fs.js';
import { replaceFile } from '../../io/replace-file.js';
import { DrumError } from '../../errors.js';
import { encodeIndexHeader, indexPath, segmentPath, URL_INDEX_ENTRY_BYTES, URL_INDEX_HEADER_BYTES, URL_LOG_DIR, writeIndexEntry, type UrlLogPoint } from './url-log-format.js';
import { UrlLogDamage, walkBlocks } from './url-log-blocks.js';

/** Entries gathered before a write. */
const PAGE_ENTRIES = 4096;

export interface RebuiltIndex {
  point: UrlLogPoint;
  blocks: number;
}

/** DRUM_CORRUPT_FILE when a segment is damaged (then the index cannot be rebuilt from it). */
export function rebuildUrlIndex(dfs: DrumFs, stateDir: string, p: UrlLogPoint, fsync: boolean): RebuiltIndex {
  if (p.segments === 0) return { point: { ...p }, blocks: 0 };
  const fds: number[] = [];
  let blocks = 0;
  try {
    replaceFile(dfs, indexPath(stateDir), (fd) => {
      const page = Buffer.allocUnsafe(PAGE_ENTRIES * URL_INDEX_ENTRY_BYTES);
      let used = 0;
      let pos = 0;
      const put = (b: Uint8Array, len: number): void => {
        dfs.write(fd, b, 0, len, pos);
        pos += len;
      };
      put(encodeIndexHeader(), URL_INDEX_HEADER_BYTES);
      const next = walkBlocks(dfs, stateDir, p, fds, (b) => {
        if (used === page.length) {
          put(page, used);
          used = 0;
        }
        writeIndexEntry(page, used, { firstDoc: b.firstDoc, segment: b.segment, offset: b.offset });
        used += URL_INDEX_ENTRY_BYTES;
        blocks++;
      });
      put(page, used);
      if (next !== p.base + p.docs) {
        throw new UrlLogDamage(segmentPath(stateDir, p.segments - 1), `the segments hold docIDs up to ${next - 1}, the manifest says ${p.base + p.docs - 1}`);
      }
    }, { fsync, fsyncDir: fsync ? join(stateDir, URL_LOG_DIR) : undefined });
  } catch (e) {
    // Whatever stopped the rebuild (damage, a missing segment, an OS error), the half-written index goes.
    try {
      dfs.unlink(`${indexPath(stateDir)}.tmp`);
    } catch {
      // best effort: the old index is still in place
    }
    if (e instanceof UrlLogDamage) {
      throw new DrumError('DRUM_CORRUPT_FILE', `cannot rebuild the URL index: ${e.file}: ${e.message}`, { file: e.file });
    }
    throw e;
  } finally {
    for (const fd of fds) dfs.close(fd);
  }
  return { point: { ...p, indexBytes: URL_INDEX_HEADER_BYTES + blocks * URL_INDEX_ENTRY_BYTES }, blocks };
}
