// The persistent content store under `<state>/content/`: the exact table,
// the near method's tables (MinHash: the band table and the signatures
// file; SimHash: the four permuted SimHash tables) and the document log,
// committed by the content manifest. A writer takes the state directory's writer lock (the
// URL store's: one writer per state directory), cuts the document log to
// its committed length and removes files no manifest names (a crashed
// round's tmp and next-generation tables). round() merges one batch with
// every table (one sequential pass each, written as the next generation),
// appends the batch's URLs to the log, commits the manifest, then removes
// the previous generation: a crash at any point leaves the old state or the
// new one. RAM: the batch, two 1 MiB table pieces, the round's band keys
// and candidate pairs (MinHash; arrays made once, at most 2^18 pairs before
// a sweep checks them) or one group of stored fingerprints sharing a leading 16-bit block
// (SimHash), whatever the store's size.
// Does not read WARC or write outputs (content-run.ts).
// REQUIRES: open() before use, close() after; one round at a time.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumError } from '../errors.js';
import { DrumFs } from '../io/fs.js';
import { acquireLock, type WriterLock } from '../store/lock.js';
import type { ContentBatch } from './batch.js';
import {
  CONTENT_DIR, CONTENT_MANIFEST, SIM_TABLES, type ContentManifest, type NearMethod, emptyContentManifest, nearMethodOf, readContentManifest, tableName,
  tablesOf, writeContentManifest,
} from './content-manifest.js';
import { DocLog, IDX_FILE, URLS_FILE } from './doc-log.js';
import { BAND_KIND, TableReader, TableWriter } from './table-file.js';
import { mergeExact, mergeNear } from './table-merge.js';
import { BandKeys, CandidatePairs, mergeBands, minEqualOf } from './band-merge.js';
import { SIGS_FILE, SigFile } from './sig-file.js';

/** Largest SimHash threshold the four tables find every pair for. */
export const MAX_THRESHOLD = 3;

export interface ContentStoreOptions {
  fsync: boolean;
  /** Near method of a new store; an existing store keeps its own. Default 'minhash'. */
  near?: NearMethod;
  /** SimHash threshold for a new SimHash store (0..3); an existing store keeps its own. */
  threshold: number;
  /** MinHash: a candidate is a near copy at this estimated Jaccard similarity or more (any run may choose). Default 0.5. */
  minJaccard?: number;
  dfs?: DrumFs;
}

export class ContentStore {
  private closed = false;
  /** Candidate pairs the band merges offered so far (MinHash). */
  candidatePairs = 0;
  /** MinHash rounds' reused arrays. */
  private keys: BandKeys | null = null;
  private pairs: CandidatePairs | null = null;
  private constructor(
    readonly dfs: DrumFs,
    readonly dir: string,
    private m: ContentManifest,
    readonly log: DocLog,
    private readonly sigs: SigFile | null,
    private readonly lock: WriterLock | null,
    private readonly fsync: boolean,
    private readonly minEqual: number,
  ) {}

  /** Opens (creating) the content store of stateDir for writing. DRUM_LOCKED when another writer holds the state directory. */
  static async open(stateDir: string, o: ContentStoreOptions): Promise<ContentStore> {
    const dfs = o.dfs ?? new DrumFs();
    dfs.mkdirp(stateDir);
    const lock = await acquireLock(stateDir);
    try {
      const dir = join(stateDir, CONTENT_DIR);
      dfs.mkdirp(dir);
      const m = readContentManifest(dir) ?? emptyContentManifest(o.near ?? 'minhash', o.threshold);
      removeUncommitted(dfs, dir, m);
      const log = new DocLog(dfs, dir, m.docs, m.urlBytes, true);
      let sigs: SigFile | null = null;
      try {
        if (nearMethodOf(m) === 'minhash') sigs = new SigFile(dfs, dir, m.docs, m.sigCrc ?? 0, true);
      } catch (e) {
        log.close();
        throw e;
      }
      return new ContentStore(dfs, dir, m, log, sigs, lock, o.fsync, minEqualOf(o.minJaccard ?? 0.5));
    } catch (e) {
      await lock.release();
      throw e;
    }
  }

  get docs(): number {
    return this.m.docs;
  }

  get near(): NearMethod {
    return nearMethodOf(this.m);
  }

  get threshold(): number {
    return this.m.threshold;
  }

  get manifest(): Readonly<ContentManifest> {
    return this.m;
  }

  /**
   * Merges a batch (docIDs docs .. docs + n - 1, URLs in `urls`) with every
   * table, fills its verdicts, and commits. Afterwards the batch's URLs are
   * in the log.
   */
  round(b: ContentBatch, urls: readonly string[]): void {
    if (this.closed) throw new DrumError('DRUM_CLOSED', 'content store is closed');
    if (b.first !== this.m.docs || urls.length !== b.n) throw new DrumError('DRUM_INTERNAL', `content round: batch starts at ${b.first}, store has ${this.m.docs}`);
    const gen = this.m.generation + 1;
    const next: ContentManifest = { ...this.m, generation: gen, sim: [...this.m.sim] };
    next.exact = this.mergeTable(0, gen, this.m.exact, (r, w) => mergeExact(b, r, w));
    if (this.sigs !== null) {
      const sigs = this.sigs;
      if (this.keys === null || this.keys.capacity < b.n) this.keys = new BandKeys(b.n);
      const keys = this.keys;
      const pairs = (this.pairs ??= new CandidatePairs(sigs, this.minEqual));
      pairs.reset(b);
      next.bands = this.mergeTable(BAND_KIND, gen, this.m.bands ?? null, (r, w) => mergeBands(b, r, w, pairs, keys));
      pairs.verify();
      this.candidatePairs += pairs.offered;
      sigs.append(b.sigs, b.n, this.fsync);
      next.sigCrc = sigs.crc;
    } else {
      for (let t = 0; t < SIM_TABLES; t++) {
        next.sim[t] = this.mergeTable(t + 1, gen, this.m.sim[t] ?? null, (r, w) => mergeNear(b, t, this.m.threshold, r, w));
      }
    }
    this.log.append(urls, this.fsync);
    next.docs = this.log.docs;
    next.urlBytes = this.log.urlBytes;
    if (this.fsync) this.dfs.fsyncDir(this.dir);
    writeContentManifest(this.dfs, this.dir, next, this.fsync);
    const old = this.m;
    this.m = next;
    for (const [, f] of tablesOf(old)) this.dfs.unlink(join(this.dir, f));
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
    this.log.close();
    this.sigs?.close();
    await this.lock?.release();
  }
}

/** Removes what a crashed writer left: tmp files and tables the manifest does not name. */
function removeUncommitted(dfs: DrumFs, dir: string, m: ContentManifest): void {
  const keep = new Set([CONTENT_MANIFEST, URLS_FILE, IDX_FILE, SIGS_FILE, ...tablesOf(m).map(([, f]) => f)]);
  for (const f of fs.readdirSync(dir)) {
    if (!keep.has(f) && (f.endsWith('.tmp') || f.endsWith('.tbl'))) dfs.unlink(join(dir, f));
  }
}

export interface ContentVerifyResult {
  sound: boolean;
  problems: string[];
  docs: number;
  tables: number;
}

/** Reads every committed content table whole (CRC, order, length, docIDs in range), checks the document log's length and the signatures' length and CRC. Read-only; no lock. */
export function verifyContent(stateDir: string): ContentVerifyResult | null {
  const dir = join(stateDir, CONTENT_DIR);
  const problems: string[] = [];
  let m: ContentManifest | null;
  try {
    m = readContentManifest(dir);
  } catch (e) {
    return { sound: false, problems: [e instanceof Error ? e.message : String(e)], docs: 0, tables: 0 };
  }
  if (m === null) return null;
  const dfs = new DrumFs();
  let tables = 0;
  for (const [kind, name] of tablesOf(m)) {
    tables++;
    let r: TableReader | null = null;
    try {
      r = new TableReader(dfs, join(dir, name), kind);
      for (; r.has; r.next()) if (r.doc >= m.docs) throw new Error(`${name}: docID ${r.doc} beyond ${m.docs} documents`);
    } catch (e) {
      problems.push(e instanceof Error ? e.message : String(e));
    } finally {
      r?.close();
    }
  }
  try {
    const log = new DocLog(dfs, dir, m.docs, m.urlBytes, false);
    log.close();
  } catch (e) {
    problems.push(e instanceof Error ? e.message : String(e));
  }
  if (nearMethodOf(m) === 'minhash') {
    try {
      const sigs = new SigFile(dfs, dir, m.docs, m.sigCrc ?? 0, false);
      const crc = sigs.checksum();
      sigs.close();
      if (crc !== (m.sigCrc ?? 0)) problems.push(`content signatures ${join(dir, SIGS_FILE)}: CRC mismatch`);
    } catch (e) {
      problems.push(e instanceof Error ? e.message : String(e));
    }
  }
  return { sound: problems.length === 0, problems, docs: m.docs, tables };
}
