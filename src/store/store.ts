// The store on disk: a state directory holding one sorted key file per
// bucket, named by the MANIFEST. Opens (lock, manifest, parameter and file
// checks), garbage-collects files of interrupted commits, hands out readers,
// names new files, and commits a new manifest then deletes what it replaced.
// Does not merge (merge.ts) or decide when to (src/engine).

import * as fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import { DrumError, osCode } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { keysFileName } from './format.js';
import { KeyReader } from './key-reader.js';
import { ValueReader, type ValueBuffers } from './value-io.js';
import { valuesFileName } from './values-format.js';
import { emptyUrlLog, indexPath, segmentPath } from './url-log-format.js';
import { acquireLock, LEGACY_LOCK_NAME, WRITER_LOCK_DIR, type WriterLock } from './lock.js';
import {
  FORMAT_VERSION, MANIFEST_NAME, readManifest, stateWithoutManifest, writeManifest, type ManifestBody, type StoreParams,
} from './manifest.js';

export interface StoreOpenOptions {
  readOnly: boolean;
  forcePolicy: boolean;
  fsync: boolean;
}

export class Store {
  body: ManifestBody;
  private lock: WriterLock | null;
  /** firstKeys() by bucket, with the file they were read from. */
  private readonly firstKeyCache = new Map<number, { file: string; keys: Uint32Array }>();

  private constructor(
    readonly dir: string,
    private readonly dfs: DrumFs,
    body: ManifestBody,
    lock: WriterLock | null,
    private readonly opts: StoreOpenOptions,
  ) {
    this.body = body;
    this.lock = lock;
  }

  /**
   * Opens or creates the store in `dir`. `params` are used for a new store;
   * an existing store keeps its own buckets/hostBits, and must match hash and
   * policy (DRUM_POLICY_MISMATCH unless forcePolicy).
   */
  static async open(dir: string, dfs: DrumFs, params: StoreParams, opts: StoreOpenOptions): Promise<Store> {
    if (opts.readOnly) {
      const body = readPinned(dir, dfs);
      if (body === null) throw new DrumError('DRUM_NOT_FOUND', `no drum store at ${dir}`, { file: dir });
      try {
        checkParams(body.params, params, opts.forcePolicy, dir);
      } catch (e) {
        dfs.unpinAll();
        throw e;
      }
      return new Store(dir, dfs, body, null, opts);
    }
    // Someone else's directory gets not even a lock directory; the full check waits for the lock.
    if (!fs.existsSync(join(dir, MANIFEST_NAME))) checkNewStoreDir(dir, true);
    dfs.mkdirp(dir);
    // The kernel-held writer lock comes first: nothing is deleted or rewritten before it is held.
    const lock = await acquireLock(dir);
    try {
      if (!fs.existsSync(join(dir, MANIFEST_NAME))) checkNewStoreDir(dir);
      let body = readManifest(dir);
      dfs.mkdirp(join(dir, 'store'));
      dfs.mkdirp(join(dir, 'work'));
      if (body === null) {
        body = {
          formatVersion: FORMAT_VERSION,
          createdAt: new Date().toISOString(),
          commit: 0,
          params: { ...params },
          storeUrls: 0,
          buckets: new Array(params.buckets).fill(null),
          bloom: null,
          ...((params.valueBytes ?? 0) > 0 ? { urlLog: emptyUrlLog(0) } : {}),
          run: null,
          history: [],
        };
        writeManifest(dfs, dir, body, opts.fsync);
      } else {
        checkParams(body.params, params, opts.forcePolicy, dir);
      }
      const store = new Store(dir, dfs, body, lock, opts);
      store.checkFiles();
      store.collectGarbage();
      return store;
    } catch (e) {
      await lock.release();
      throw e;
    }
  }

  get params(): StoreParams {
    return this.body.params;
  }

  /**
   * Which committed state this is: its commit number and the CRC of its
   * manifest body (creation time, run history, file names), which tells two
   * states with the same number apart (a store restored from a backup, or a
   * --no-fsync commit lost to a power cut and redone differently). Caches of
   * RAM tiers are tied to it.
   */
  get committed(): CommitId {
    // Worked out on each call: a few per commit or open (the saved caches), never per URL.
    return { commit: this.body.commit, stateId: crc32(JSON.stringify(this.body)) >>> 0 };
  }

  /** Cheap checks of every named file: present, of the recorded size. Full checks are verify's. */
  checkFiles(): void {
    for (let b = 0; b < this.body.buckets.length; b++) {
      const e = this.body.buckets[b];
      if (!e) continue;
      const path = join(this.dir, e.file);
      let size: number;
      try {
        size = fs.statSync(path).size;
      } catch {
        throw new DrumError('DRUM_CORRUPT_FILE', `${path}: missing (named by the manifest)`, { file: path });
      }
      if (size !== e.bytes) {
        throw new DrumError('DRUM_CORRUPT_FILE', `${path}: ${size} bytes, manifest says ${e.bytes}`, { file: path });
      }
      if (this.valueBytes > 0 && e.keys > 0) {
        if (e.values === undefined) throw new DrumError('DRUM_CORRUPT_FILE', `${join(this.dir, 'MANIFEST')}: bucket ${b} has keys but no values file`, { file: join(this.dir, 'MANIFEST') });
        const vp = join(this.dir, e.values.file);
        let vs: number;
        try {
          vs = fs.statSync(vp).size;
        } catch {
          throw new DrumError('DRUM_CORRUPT_FILE', `${vp}: missing (named by the manifest)`, { file: vp });
        }
        if (vs !== e.values.bytes) throw new DrumError('DRUM_CORRUPT_FILE', `${vp}: ${vs} bytes, manifest says ${e.values.bytes}`, { file: vp });
      }
    }
    if (this.body.bloom !== null) {
      const path = join(this.dir, this.body.bloom.file);
      if (!fs.existsSync(path)) throw new DrumError('DRUM_CORRUPT_FILE', `${path}: missing (named by the manifest)`, { file: path });
    }
    // The URL log's files may be longer than committed (a commit that did not reach its manifest), never shorter.
    const log = this.body.urlLog;
    if (log !== undefined && log.segments > 0) {
      atLeast(segmentPath(this.dir, log.segments - 1), log.tailBytes);
      atLeast(indexPath(this.dir), log.indexBytes);
    }
  }

  /** Deletes files no manifest names (an interrupted commit's) and empties work/. */
  collectGarbage(): void {
    const named = new Set<string>();
    for (const e of this.body.buckets) {
      if (e) named.add(e.file);
      if (e?.values) named.add(e.values.file);
    }
    if (this.body.bloom) named.add(this.body.bloom.file);
    for (const f of safeList(join(this.dir, 'store'))) {
      if (!named.has(`store/${f}`)) this.dfs.unlink(join(this.dir, 'store', f));
    }
    for (const f of safeList(this.dir)) {
      if ((f.endsWith('.bloom') || f.endsWith('.bloom.tmp') || f === 'MANIFEST.tmp') && !named.has(f)) {
        this.dfs.unlink(join(this.dir, f));
      }
    }
    for (const f of safeList(join(this.dir, 'work'))) this.dfs.unlink(join(this.dir, 'work', f));
  }

  /** A reader over bucket b's committed key file, or null if the bucket is empty. */
  openReader(b: number, buffer?: Uint8Array): KeyReader | null {
    const e = this.body.buckets[b];
    if (!e) return null;
    return KeyReader.open(this.dfs, join(this.dir, e.file), { bucket: b, keys: e.keys }, e.bytes, buffer);
  }

  /** Bytes of the value kept with each key (0: keys only). */
  get valueBytes(): number {
    return this.body.params.valueBytes ?? 0;
  }

  /** A reader over bucket b's committed values file, or null if the bucket is empty (or the store keeps no values). */
  openValues(b: number, buffers?: ValueBuffers): ValueReader | null {
    const e = this.body.buckets[b];
    if (!e || e.values === undefined) return null;
    return ValueReader.open(this.dfs, join(this.dir, e.values.file), { bucket: b, count: e.keys, valueBytes: this.valueBytes }, e.values.bytes, buffers);
  }

  /** Path (absolute) and manifest name of bucket b's values file for the next commit. */
  nextValuesFile(b: number): { path: string; name: string } {
    const name = valuesFileName(b, this.body.commit + 1);
    return { path: join(this.dir, name), name };
  }

  /**
   * Block first keys of bucket b's file, read once per file through
   * `reader` (opened on it) and kept while the file is current: 8 bytes per
   * 8,192 keys (4 MiB at 4 billion keys). For merges that skip (check).
   */
  firstKeys(b: number, reader: KeyReader): Uint32Array {
    const file = this.body.buckets[b]?.file;
    const hit = this.firstKeyCache.get(b);
    if (hit !== undefined && hit.file === file) return hit.keys;
    const keys = reader.firstKeys();
    if (file !== undefined) this.firstKeyCache.set(b, { file, keys });
    return keys;
  }

  /** Path (absolute) and manifest name of bucket b's file for the next commit. */
  nextKeysFile(b: number): { path: string; name: string } {
    const name = keysFileName(b, this.body.commit + 1);
    return { path: join(this.dir, name), name };
  }

  /**
   * Makes `next` the committed state (its commit number is set here), then
   * deletes the bucket and Bloom files the old manifest named and `next` does
   * not, in the background (close() waits for them).
   */
  commit(next: ManifestBody): void {
    if (this.opts.readOnly) throw new DrumError('DRUM_INTERNAL', 'commit on a read-only store');
    const old = this.body;
    next.commit = old.commit + 1;
    writeManifest(this.dfs, this.dir, next, this.opts.fsync);
    this.body = next;
    const keep = new Set<string>();
    for (const e of next.buckets) {
      if (e) keep.add(e.file);
      if (e?.values) keep.add(e.values.file);
    }
    if (next.bloom) keep.add(next.bloom.file);
    // Off the clock: the replaced files are garbage now (a writer's open collects any a crash left).
    for (const e of old.buckets) {
      if (e && !keep.has(e.file)) this.dfs.unlinkLater(join(this.dir, e.file));
      if (e?.values && !keep.has(e.values.file)) this.dfs.unlinkLater(join(this.dir, e.values.file));
    }
    if (old.bloom && !keep.has(old.bloom.file)) this.dfs.unlinkLater(join(this.dir, old.bloom.file));
  }

  /** Releases the pins (readers) or the writer lock (writers). */
  async close(): Promise<void> {
    await this.dfs.settle();
    if (this.opts.readOnly) this.dfs.unpinAll();
    const lock = this.lock;
    this.lock = null;
    await lock?.release();
  }
}

/**
 * A reader's view: the manifest plus every key file and the Bloom file it
 * names, pinned open so a writer committing meanwhile (it deletes the files
 * it replaced) cannot take them away. If a file vanishes between reading the
 * manifest and pinning it, a commit happened: read the new manifest and try
 * again. A file
 * still missing after that is left unpinned (verify and readers report it),
 * as are all files when the process runs out of descriptors.
 */
function readPinned(dir: string, dfs: DrumFs): ManifestBody | null {
  for (let attempt = 0; ; attempt++) {
    const body = readManifest(dir);
    if (body === null) return null;
    try {
      for (const e of body.buckets) {
        if (e) dfs.pin(join(dir, e.file));
        if (e?.values) dfs.pin(join(dir, e.values.file));
      }
    } catch (e) {
      dfs.unpinAll();
      const again = attempt < 20 && osCode(e) === 'ENOENT' && readManifest(dir)?.commit !== body.commit;
      if (!again) return body;
      continue;
    }
    if (body.bloom) {
      try {
        dfs.pin(join(dir, body.bloom.file));
      } catch {
        // Replaced by a commit meanwhile: start over. Missing for good (damage, which verify reports): the key pins stay.
        if (attempt < 20 && readManifest(dir)?.commit !== body.commit) {
          dfs.unpinAll();
          continue;
        }
      }
    }
    return body;
  }
}

function checkParams(have: StoreParams, want: StoreParams, force: boolean, dir: string): void {
  if (have.hash !== want.hash) {
    throw new DrumError('DRUM_POLICY_MISMATCH', `${dir} uses fingerprint ${have.hash}; this drum computes ${want.hash}`);
  }
  if (have.policy !== want.policy && !force) {
    throw new DrumError(
      'DRUM_POLICY_MISMATCH',
      `${dir} was built with canonicalization policy "${have.policy}", not "${want.policy}" (fingerprints would stop agreeing; --force-policy overrides)`,
    );
  }
}

/** What a state directory may hold before its first MANIFEST (an interrupted creation): empty store/ and work/. */
const CREATION_NAMES = new Set([LEGACY_LOCK_NAME, WRITER_LOCK_DIR, 'MANIFEST.tmp', 'store', 'work']);

/**
 * A new store may be created only in an absent or empty directory, or one
 * left by an interrupted creation. A directory with store files but no
 * MANIFEST is DRUM_CORRUPT_FILE (see readManifest); anything else in it is
 * someone else's: DRUM_CLOBBER (opening would empty its store/ and work/).
 * `topOnly` (before the writer lock, while another writer may be creating the
 * store) looks at top-level names only and passes a store whose MANIFEST appeared.
 */
export function checkNewStoreDir(dir: string, topOnly = false): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(dir);
  } catch {
    return; // absent: created next
  }
  if (!st.isDirectory()) throw new DrumError('DRUM_CLOBBER', `--state ${dir} exists and is not a directory`, { file: dir });
  if (!topOnly && stateWithoutManifest(dir).length > 0) readManifest(dir); // throws DRUM_CORRUPT_FILE naming the MANIFEST
  const foreign: string[] = [];
  const content = fs.existsSync(join(dir, 'content', 'CONTENT-MANIFEST')); // drum content's store (docs/content.md) may come first
  for (const f of safeList(dir)) {
    if (content && (f === 'content' || f === 'content-runs')) continue;
    if (!CREATION_NAMES.has(f)) foreign.push(f);
    else if (!topOnly && (f === 'store' || f === 'work')) for (const g of safeList(join(dir, f))) foreign.push(`${f}/${g}`);
  }
  if (topOnly && foreign.length > 0 && fs.existsSync(join(dir, MANIFEST_NAME))) return; // created meanwhile by another writer
  if (foreign.length > 0) {
    throw new DrumError(
      'DRUM_CLOBBER',
      `--state ${dir} is not a drum state directory (no MANIFEST) and is not empty (${foreign.slice(0, 3).join(', ')}${foreign.length > 3 ? ', ...' : ''}); drum creates a store only in a new or empty directory`,
      { file: dir },
    );
  }
}

/** DRUM_CORRUPT_FILE unless `path` exists and holds at least `bytes` bytes. */
function atLeast(path: string, bytes: number): void {
  let size: number;
  try {
    size = fs.statSync(path).size;
  } catch {
    throw new DrumError('DRUM_CORRUPT_FILE', `${path}: missing (named by the manifest)`, { file: path });
  }
  if (size < bytes) throw new DrumError('DRUM_CORRUPT_FILE', `${path}: ${size} bytes, the manifest names ${bytes}`, { file: path });
}

function safeList(dir: string): string[] {
  try {
    return fs.readdirSync(dir);
  } catch {
    return [];
  }
}

/** A committed state: its number and the CRC of its manifest body (Store.committed). */
export interface CommitId {
  commit: number;
  stateId: number;
}
