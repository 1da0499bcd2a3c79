// Full check of the URL log at a committed point (docs/file-format.md, "URL
// log"): reads the index and every segment front to back (the segments'
// walk, url-log-blocks.ts: headers, every block's CRC and line count, blocks
// and docIDs following each other without a gap from `base`, sealed
// segments ending on a block), every index entry agreeing with the block it
// points at, the committed counts and lengths —
// and that every stored key can have a docID (base + docs >= storeUrls).
// Collects the first problem instead of throwing. Reads only.

import { isDrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import {
  checkIndexHeader, indexEntries, indexPath, readIndexEntry, URL_INDEX_ENTRY_BYTES, URL_INDEX_HEADER_BYTES,
  type IndexEntry, type UrlLogPoint,
} from './url-log-format.js';
import { UrlLogDamage, walkBlocks } from './url-log-blocks.js';
import { openNamed } from './url-log-reader.js';
import type { VerifyProblem } from '../verify.js';

export interface UrlLogVerifyResult {
  filesChecked: number;
  /** docIDs whose block was read and checked. */
  docsChecked: number;
  problems: VerifyProblem[];
}

/** Damage of the index alone, which `drum repair --url-index` mends from the segments. */
class IndexDamage extends UrlLogDamage {}

const REPAIR_HINT = ' (drum repair --url-index rebuilds it from the segments)';

/**
 * `storeUrls`: the keys stored (each has a docID); `docIDs`: the docIDs the
 * store has handed out, when it counts them (the log must end exactly there).
 */
export function verifyUrlLog(dfs: DrumFs, stateDir: string, p: UrlLogPoint, storeUrls: number, docIDs?: number): UrlLogVerifyResult {
  const r: UrlLogVerifyResult = { filesChecked: 0, docsChecked: 0, problems: [] };
  const fds: number[] = [];
  try {
    if (p.base + p.docs < storeUrls) throw new UrlLogDamage(indexPath(stateDir), `the URL log holds docIDs ${p.base}..${p.base + p.docs - 1}, fewer than the ${storeUrls} stored keys`);
    if (docIDs !== undefined && p.base + p.docs !== docIDs) throw new UrlLogDamage(indexPath(stateDir), `the URL log ends at docID ${p.base + p.docs}, the store has handed out ${docIDs}`);
    if (p.indexBytes === 0 || p.segments === 0) {
      if (p.docs !== 0 || p.indexBytes !== 0 || p.segments !== 0) throw new UrlLogDamage(indexPath(stateDir), 'the manifest names an inconsistent empty URL log');
      return r;
    }
    const index = openIndex(dfs, stateDir, p, fds);
    r.filesChecked++;
    const entries = indexEntries(p.indexBytes);
    let e = 0;
    const next = walkBlocks(dfs, stateDir, p, fds, (b, file) => {
      if (e >= entries) throw new IndexDamage(indexPath(stateDir), `no entry for the block at offset ${b.offset} of ${file}`);
      const ie = index.entry(e);
      if (ie.segment !== b.segment || ie.offset !== b.offset || ie.firstDoc !== b.firstDoc) {
        throw new IndexDamage(indexPath(stateDir), `entry ${e} says docID ${ie.firstDoc} at segment ${ie.segment} offset ${ie.offset}; the log has docID ${b.firstDoc} at segment ${b.segment} offset ${b.offset}`);
      }
      r.docsChecked += b.docs;
      e++;
    }, () => r.filesChecked++);
    if (e !== entries) throw new IndexDamage(indexPath(stateDir), `${entries} entries for ${e} blocks`);
    if (next !== p.base + p.docs) throw new UrlLogDamage(indexPath(stateDir), `the log holds docIDs up to ${next - 1}, the manifest says ${p.base + p.docs - 1}`);
  } catch (err) {
    if (err instanceof UrlLogDamage) {
      // The index holds nothing the segments lack.
      r.problems.push({ file: err.file, code: 'DRUM_CORRUPT_FILE', message: err.message + (err instanceof IndexDamage ? REPAIR_HINT : '') });
    } else if (isDrumError(err)) r.problems.push({ file: err.file ?? indexPath(stateDir), code: err.code, message: err.message });
    else throw err;
  } finally {
    for (const fd of fds) dfs.close(fd);
  }
  return r;
}

const PAGE_ENTRIES = 4096;

/** The index's pages; a missing, short or bad-headed index is IndexDamage (the segments can still be whole). */
function openIndex(dfs: DrumFs, stateDir: string, p: UrlLogPoint, fds: number[]): IndexPages {
  try {
    return new IndexPages(dfs, stateDir, p, fds);
  } catch (e) {
    if (e instanceof UrlLogDamage) throw new IndexDamage(e.file, e.message);
    if (isDrumError(e) && e.code === 'DRUM_CORRUPT_FILE') throw new IndexDamage(e.file ?? indexPath(stateDir), e.message);
    throw e;
  }
}

/** The committed index entries, read front to back 64 KiB at a time (after the checked header). */
class IndexPages {
  private readonly file: string;
  private readonly fd: number;
  private readonly page = Buffer.allocUnsafe(PAGE_ENTRIES * URL_INDEX_ENTRY_BYTES);
  private first = -1;

  constructor(
    private readonly dfs: DrumFs,
    stateDir: string,
    private readonly p: UrlLogPoint,
    fds: number[],
  ) {
    const file = (this.file = indexPath(stateDir));
    const fd = (this.fd = openNamed(dfs, file));
    fds.push(fd);
    if (dfs.sizeOf(fd, file) < p.indexBytes) throw new UrlLogDamage(file, `${dfs.sizeOf(fd, file)} bytes, the manifest names ${p.indexBytes}`);
    if ((p.indexBytes - URL_INDEX_HEADER_BYTES) % URL_INDEX_ENTRY_BYTES !== 0) throw new UrlLogDamage(file, `the manifest names ${p.indexBytes} bytes, not a whole number of entries`);
    const h = Buffer.allocUnsafe(URL_INDEX_HEADER_BYTES);
    if (dfs.readFully(fd, h, 0, h.length, 0) !== h.length) throw new UrlLogDamage(file, 'shorter than its header');
    checkIndexHeader(h, file);
  }

  /** Entry e (REQUIRES: e < the committed entries). */
  entry(e: number): IndexEntry {
    if (this.first < 0 || e < this.first || e >= this.first + PAGE_ENTRIES) {
      this.first = e - (e % PAGE_ENTRIES);
      const pos = URL_INDEX_HEADER_BYTES + this.first * URL_INDEX_ENTRY_BYTES;
      const len = Math.min(this.page.length, this.p.indexBytes - pos);
      if (this.dfs.readFully(this.fd, this.page, 0, len, pos) !== len) throw new UrlLogDamage(this.file, 'cut short');
    }
    return readIndexEntry(this.page, (e - this.first) * URL_INDEX_ENTRY_BYTES);
  }
}
