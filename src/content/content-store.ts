// The persistent content store under `<state>/content/`: the exact map
// (payload key -> earliest docID) and, by the near method, the band map
// (MinHash-LSH band key -> earliest docID) with the signatures file, or the
// four permuted SimHash tables; and the document log; committed by the
// content manifest. Both maps are clients of the generic DRUM core
// (first-doc-map.ts: bucket key and values files, a check+update round), so
// a document seen in an earlier run is a duplicate now. A writer takes the
// state directory's writer lock (the URL store's: one writer per state
// directory), refuses a near method or SimHash threshold other than an
// existing store was created with (DRUM_POLICY_MISMATCH, before anything
// changes), makes a new store's (empty) document log and signatures
// durable before its first manifest, converts a `drum-content/1` store once
// (content-upgrade.ts), cuts the document log and signatures to their
// committed lengths and removes files no manifest names (a crashed round's
// tmp and next-generation files, and the work directory). round() merges one
// batch with the exact map, then with the band map (only documents that are
// not exact copies have band keys) or the SimHash tables, appends the
// batch's signatures and URLs, commits the manifest, then removes the files
// it replaced: a crash at any point leaves the old state or the new one.
// RAM: the batch, each map's round (its distinct keys: RoundKeys and pending
// buffers, the sort area they share) and the round's candidate pairs
// (MinHash, at most 2^18 before a sweep), or one group of stored
// fingerprints sharing a leading 16-bit block (SimHash); nothing grows with
// the store.
// Does not read WARC or write outputs (content-run.ts), or verify
// (content-verify.ts).
// REQUIRES: open() before use, close() after; one round at a time.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { SortArea } from '../engine/core/sort-area.js';
import { DrumError } from '../errors.js';
import { DrumFs } from '../io/fs.js';
import { acquireLock, type WriterLock } from '../store/lock.js';
import type { ContentBatch } from './batch.js';
import {
  CONTENT_DIR, CONTENT_MANIFEST, SIM_TABLES, type AnyContentManifest, type ContentAsked, type ContentManifest, type MapFiles, type NearMethod,
  checkContentAsked, emptyContentManifest, mapsOf, readContentManifest, tableName, tablesOf, writeContentManifest,
} from './content-manifest.js';
import { upgradeContentStore } from './content-upgrade.js';
import { DocLog, IDX_FILE, URLS_FILE } from './doc-log.js';
import { FirstDocMap, WORK_DIR, mapFileNames } from './first-doc-map.js';
import { TableReader, TableWriter } from './near/table-file.js';
import { mergeNear } from './near/sim-merge.js';
import { BandOrdinals, CandidatePairs, minEqualOf } from './near/band-candidates.js';
import { SIGS_FILE, SigFile } from './near/sig-file.js';

/** Largest SimHash threshold the four tables find every pair for. */
export const MAX_THRESHOLD = 3;
/** Most keys one sort of the maps' merges holds (a bigger bucket is sorted in slices): 24 bytes each. */
export const SORT_ENTRIES = 1 << 18;

export interface ContentStoreOptions {
  fsync: boolean;
  /** Near method of a new store; an existing store keeps its own. Default 'minhash'. */
  near?: NearMethod;
  /** SimHash threshold for a new SimHash store (0..3); an existing store keeps its own. */
  threshold: number;
  /** MinHash: a candidate is a near copy at this estimated Jaccard similarity or more (any run may choose). Default 0.5. */
  minJaccard?: number;
  /** The near parameters the caller set (the CLI's flags): an existing store must have them (DRUM_POLICY_MISMATCH). Absent: not checked. */
  asked?: ContentAsked;
  dfs?: DrumFs;
  /** Told once when a `drum-content/1` store is converted. */
  onNotice?: (message: string) => void;
}

export class ContentStore {
  private closed = false;
  /** Candidate pairs the band map offered so far (MinHash). */
  candidatePairs = 0;
  /** MinHash rounds' reused arrays. */
  private pairs: CandidatePairs | null = null;
  private readonly bandOrds = new BandOrdinals();
  private exactOrds = new Uint32Array(0);
  private constructor(
    readonly dfs: DrumFs,
    readonly dir: string,
    private m: ContentManifest,
    readonly log: DocLog,
    private readonly sigs: SigFile | null,
    private readonly exact: FirstDocMap,
    private readonly bands: FirstDocMap | null,
    private readonly lock: WriterLock | null,
    private readonly fsync: boolean,
    private readonly minEqual: number,
  ) {}

  /** Opens (creating) the content store of stateDir for writing. DRUM_LOCKED when another writer holds the state directory. */
  static async open(stateDir: string, o: ContentStoreOptions): Promise<ContentStore> {
    const dfs = o.dfs ?? new DrumFs();
    // New directories' names are durable before anything is written in them: a power loss must not take a committed store.
    dfs.mkdirp(stateDir, o.fsync);
    const lock = await acquireLock(stateDir);
    const opened: { close(): void }[] = [];
    try {
      const dir = join(stateDir, CONTENT_DIR);
      dfs.mkdirp(dir, o.fsync);
      const read = readContentManifest(dir);
      // Refused before anything is removed, converted or written.
      if (read !== null) checkContentAsked(read, o.asked, stateDir);
      removeUncommitted(dfs, dir, read);
      let m: ContentManifest;
      if (read === null) {
        // Committed before any other file is written, so files without a manifest are damage, never a new store's first round.
        m = emptyContentManifest(o.near ?? 'minhash', o.threshold);
        createLogs(dfs, dir, m, o.fsync);
        writeContentManifest(dfs, dir, m, o.fsync);
      } else if (read.format === 'drum-content/1') {
        m = upgradeContentStore(dfs, dir, read, o.fsync);
        o.onNotice?.(`${dir}: converted the content store to drum-content/2 (its exact and band tables now on DRUM core buckets, docs/file-format.md)`);
      } else m = read;
      const area = new SortArea(SORT_ENTRIES);
      const exact = new FirstDocMap(dfs, dir, 'exact', m.exact, area);
      const bands = m.bands === undefined ? null : new FirstDocMap(dfs, dir, 'bands', m.bands, area);
      const log = new DocLog(dfs, dir, m.docs, m.urlBytes, true);
      opened.push(log);
      const sigs = bands === null ? null : new SigFile(dfs, dir, m.docs, m.sigCrc ?? 0, true);
      return new ContentStore(dfs, dir, m, log, sigs, exact, bands, lock, o.fsync, minEqualOf(o.minJaccard ?? 0.5));
    } catch (e) {
      for (const f of opened) f.close();
      await lock.release();
      throw e;
    }
  }

  get docs(): number {
    return this.m.docs;
  }

  get near(): NearMethod {
    return this.m.near;
  }

  get threshold(): number {
    return this.m.threshold;
  }

  get manifest(): Readonly<ContentManifest> {
    return this.m;
  }

  /**
   * Merges a batch (docIDs docs .. docs + n - 1, URLs in `urls`) with the
   * maps and tables, fills its verdicts, and commits. Afterwards the
   * batch's URLs are in the log. A failed round commits nothing.
   */
  async round(b: ContentBatch, urls: readonly string[]): Promise<void> {
    if (this.closed) throw new DrumError('DRUM_CLOSED', 'content store is closed');
    if (b.first !== this.m.docs || urls.length !== b.n) throw new DrumError('DRUM_INTERNAL', `content round: batch starts at ${b.first}, store has ${this.m.docs}`);
    const gen = this.m.generation + 1;
    const next: ContentManifest = { ...this.m, generation: gen, sim: [...this.m.sim] };
    try {
      next.exact = await this.exactRound(b, gen);
      if (this.bands !== null) {
        next.bands = await this.bandRound(b, this.bands, gen);
        this.sigs!.append(b.sigs, b.n, this.fsync);
        next.sigCrc = this.sigs!.crc;
      } else {
        for (let t = 0; t < SIM_TABLES; t++) {
          next.sim[t] = this.mergeTable(t + 1, gen, this.m.sim[t] ?? null, (r, w) => mergeNear(b, t, this.m.threshold, r, w));
        }
      }
      this.log.append(urls, this.fsync);
      next.docs = this.log.docs;
      next.urlBytes = this.log.urlBytes;
      if (this.fsync) for (const d of ['', ...mapsOf(next).map(([name]) => name)]) this.dfs.fsyncDir(join(this.dir, d));
      writeContentManifest(this.dfs, this.dir, next, this.fsync);
    } catch (e) {
      this.exact.reset();
      this.bands?.reset();
      throw e;
    }
    const old = this.m;
    this.m = next;
    this.exact.committed(next.exact);
    if (next.bands !== undefined) this.bands!.committed(next.bands);
    for (const [, f] of tablesOf(old)) this.dfs.unlink(join(this.dir, f));
  }

  /** The exact map's round: every document's payload key; a key already there, or earlier in the round, makes it an exact copy of that docID. */
  private async exactRound(b: ContentBatch, gen: number): Promise<MapFiles> {
    if (this.exactOrds.length < b.n) this.exactOrds = new Uint32Array(b.capacity);
    const { exactOrds: ords, exact } = this;
    exact.reserve(b.n);
    for (let i = 0; i < b.n; i++) ords[i] = exact.add(b.exHi[i]!, b.exLo[i]!, b.first + i);
    const files = await exact.merge(gen, this.fsync);
    for (let i = 0; i < b.n; i++) {
      const rep = exact.docOf(ords[i]!);
      if (rep !== b.first + i) b.exactOf[i] = rep;
    }
    return files;
  }

  /** The band map's round and the check of its candidate pairs (band-candidates.ts). */
  private async bandRound(b: ContentBatch, bands: FirstDocMap, gen: number): Promise<MapFiles> {
    const pairs = (this.pairs ??= new CandidatePairs(this.sigs!, this.minEqual));
    pairs.reset(b);
    this.bandOrds.add(b, bands);
    const files = await bands.merge(gen, this.fsync);
    this.bandOrds.offer(b, bands, pairs);
    pairs.verify();
    this.candidatePairs += pairs.offered;
    return files;
  }

  private mergeTable(kind: number, gen: number, from: string | null, merge: (r: TableReader, w: TableWriter) => void): string {
    const name = tableName(kind, gen);
    const r = new TableReader(this.dfs, from === null ? null : join(this.dir, from), kind);
    const w = new TableWriter(this.dfs, join(this.dir, name), kind);
    try {
      merge(r, w);
      w.finish(this.fsync);
    } catch (e) {
      w.abort();
      throw e;
    } finally {
      r.close();
    }
    return name;
  }

  /** Counts a finished run in the manifest (committed with it). */
  endRun(): void {
    const next = { ...this.m, runs: this.m.runs + 1 };
    writeContentManifest(this.dfs, this.dir, next, this.fsync);
    this.m = next;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      this.exact.reset();
      this.bands?.reset();
      this.log.close();
      this.sigs?.close();
    } finally {
      await this.lock?.release();
    }
  }
}

/**
 * Creates a new store's document log and (MinHash) signatures file, empty,
 * and makes their names durable before its first manifest names them: verify
 * opens them, and after a power loss a store whose first round had not
 * committed must still verify.
 */
function createLogs(dfs: DrumFs, dir: string, m: ContentManifest, fsync: boolean): void {
  for (const f of m.near === 'minhash' ? [URLS_FILE, IDX_FILE, SIGS_FILE] : [URLS_FILE, IDX_FILE]) dfs.close(dfs.open(join(dir, f), 'a'));
  if (fsync) dfs.fsyncDir(dir);
}

/**
 * Removes what a crashed writer left: tmp files and tables the manifest does
 * not name, the maps' bucket files it does not name (all of them under a
 * format 1 manifest: a conversion that did not commit), and the work files.
 */
function removeUncommitted(dfs: DrumFs, dir: string, m: AnyContentManifest | null): void {
  const named = [CONTENT_MANIFEST, URLS_FILE, IDX_FILE, SIGS_FILE];
  if (m !== null) named.push(...tablesOf(m).map(([, f]) => f));
  if (m !== null && m.format === 'drum-content/2') for (const [, files] of mapsOf(m)) named.push(...mapFileNames(files));
  const keep = new Set(named);
  for (const f of list(dir)) {
    if (!keep.has(f) && (f.endsWith('.tmp') || f.endsWith('.tbl'))) dfs.unlink(join(dir, f));
  }
  for (const sub of ['exact', 'bands']) {
    for (const f of list(join(dir, sub))) if (!keep.has(`${sub}/${f}`)) dfs.unlink(join(dir, sub, f));
  }
  for (const sub of list(join(dir, WORK_DIR))) {
    for (const f of list(join(dir, WORK_DIR, sub))) dfs.unlink(join(dir, WORK_DIR, sub, f));
  }
}

function list(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}
