// The store on disk: a state directory holding one sorted key file per
// bucket, named by the MANIFEST. Opens (lock, manifest, parameter and file
// checks, garbage collection of interrupted commits), hands out readers (a
// reader that could not pin its files follows a bucket a writer replaced to
// its newer files: unpinned-buckets.ts), names new files, and commits a new
// manifest then deletes what it replaced.
// Does not merge (keys/merge.ts) or decide when to (src/engine); the checks an
// open runs live in store-open.ts and store-files.ts.
// REQUIRES: one writer per state directory (the writer lock, taken here);
// close() once done, so a reader's pins or a writer's lock are released.

import * as fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { DrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { keysFileName } from './keys/format.js';
import { KeyReader } from './keys/key-reader.js';
import type { ValueBuffers, ValueSource } from './values/value-io.js';
import { openValueChain } from './values/value-chain.js';
import { deltaFileName, valuesFileName } from './values/values-format.js';
import { acquireLock, type WriterLock } from './lock.js';
import { MANIFEST_NAME, readManifest, writeManifest, type ManifestBody, type StoreParams } from './manifest.js';
import { checkFiles, collectGarbage, namedFiles } from './store-files.js';
import { checkAsked, checkNewStoreDir, checkParams, newManifest, readPinned, type AskedParams } from './store-open.js';
import { UnpinnedBuckets } from './unpinned-buckets.js';

export interface StoreOpenOptions {
  readOnly: boolean;
  forcePolicy: boolean;
  fsync: boolean;
  /** The parameters fixed at creation that the caller set (null: not set): an existing store must have them. */
  asked?: AskedParams;
}

export class Store {
  body: ManifestBody;
  private lock: WriterLock | null;
  /** firstKeys() by bucket, with the file they were read from. */
  private readonly firstKeyCache = new Map<number, { file: string; keys: Uint32Array }>();
  /** A reader whose bucket files are not pinned: follows the writer's commits bucket by bucket (null: pinned, or a writer). */
  private unpinned: UnpinnedBuckets | null = null;

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
   * policy (DRUM_POLICY_MISMATCH unless forcePolicy) and the fixed parameters
   * the caller set (`opts.asked`; DRUM_POLICY_MISMATCH, forcePolicy or not).
   */
  static async open(dir: string, dfs: DrumFs, params: StoreParams, opts: StoreOpenOptions): Promise<Store> {
    if (opts.readOnly) {
      const view = readPinned(dir, dfs);
      if (view === null) throw new DrumError('DRUM_NOT_FOUND', `no drum store at ${dir}`, { file: dir });
      try {
        checkParams(view.body.params, params, opts.forcePolicy, dir);
        checkAsked(view.body.params, opts.asked, dir);
      } catch (e) {
        dfs.unpinAll();
        throw e;
      }
      const store = new Store(dir, dfs, view.body, null, opts);
      store.unpinned = view.bucketsPinned ? null : new UnpinnedBuckets(dir, view.body);
      return store;
    }
    // Someone else's directory gets not even a lock directory; the full check waits for the lock.
    if (!fs.existsSync(join(dir, MANIFEST_NAME))) checkNewStoreDir(dir, true);
    // The names of the directories made here are durable before the lock is taken in them.
    const made = dfs.mkdirp(dir, opts.fsync);
    // The kernel-held writer lock comes first: nothing is deleted or rewritten before it is held.
    const lock = await acquireLock(dir);
    try {
      if (!fs.existsSync(join(dir, MANIFEST_NAME))) checkNewStoreDir(dir);
      let body = readManifest(dir);
      dfs.mkdirp(join(dir, 'store'));
      dfs.mkdirp(join(dir, 'work'));
      if (body === null) {
        body = newManifest(params);
        writeManifest(dfs, dir, body, opts.fsync);
        // The state directory's own name is durable only once its parent is fsynced: a power loss could take the whole store.
        // One made before drum came (an empty directory) has its parent fsynced here; one drum made had it at its mkdirp.
        if (opts.fsync && made.length === 0) dfs.fsyncDir(dirname(resolve(dir)));
      } else {
        checkParams(body.params, params, opts.forcePolicy, dir);
        checkAsked(body.params, opts.asked, dir);
      }
      const store = new Store(dir, dfs, body, lock, opts);
      checkFiles(dir, body);
      collectGarbage(dir, body, dfs);
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

  /**
   * A reader over bucket b's committed key file, or null if the bucket is
   * empty. A reader whose bucket files are not pinned reads the newest
   * commit's files of bucket b when a writer has deleted its own
   * (unpinned-buckets.ts).
   */
  openReader(b: number, buffer?: Uint8Array): KeyReader | null {
    for (let tries = 0; ; tries++) {
      const e = this.body.buckets[b];
      if (!e) return null;
      try {
        return KeyReader.open(this.dfs, join(this.dir, e.file), { bucket: b, keys: e.keys }, e.bytes, buffer);
      } catch (err) {
        if (this.unpinned?.follow(b, err, tries) !== true) throw err;
      }
    }
  }

  /** Bytes of the value kept with each key (0: keys only). */
  get valueBytes(): number {
    return this.body.params.valueBytes ?? 0;
  }

  /**
   * A reader over bucket b's committed values (its values file, through its
   * deltas when it has any), or null if the bucket is empty (or the store
   * keeps no values). File sizes are the manifest's (the open checked them).
   */
  openValues(b: number, buffers?: ValueBuffers): ValueSource | null {
    const e = this.body.buckets[b];
    if (!e || e.values === undefined) return null;
    try {
      return openValueChain(this.dfs, this.dir, b, e, this.valueBytes, (_f, recorded) => recorded, buffers);
    } catch (err) {
      // The key file read before these values came from this entry: the newest one's values would not line up with it.
      if (this.unpinned?.follow(b, err, 0) === true) throw this.unpinned.valuesReplaced(b, err);
      throw err;
    }
  }

  /**
   * Times a reader whose bucket files are not pinned found a bucket's values
   * replaced after it had read the bucket's keys: the round that read them
   * must read the bucket again (resolve.ts). 0 for other stores.
   */
  get valuesReplaced(): number {
    return this.unpinned?.valuesReplacedCount ?? 0;
  }

  /**
   * A reader whose bucket files are not pinned, after a verify found
   * problems: takes the newest manifest's entry of every bucket missing one
   * of its files; true when there was one (verify the store again).
   */
  followReplaced(): boolean {
    return this.unpinned?.followAll() ?? false;
  }

  /** Path (absolute) and manifest name of bucket b's values file for the next commit. */
  nextValuesFile(b: number): { path: string; name: string } {
    const name = valuesFileName(b, this.body.commit + 1);
    return { path: join(this.dir, name), name };
  }

  /** Path (absolute) and manifest name of bucket b's values delta file for the next commit. */
  nextDeltaFile(b: number): { path: string; name: string } {
    const name = deltaFileName(b, this.body.commit + 1);
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
   * not, in the background (close() waits for them). When the write fails
   * after its rename (the directory's fsync), `next` is what the disk holds:
   * it becomes the body before the error is thrown, so the caller can tell
   * (committed()) and nothing in this process writes over what it names.
   */
  commit(next: ManifestBody): void {
    if (this.opts.readOnly) throw new DrumError('DRUM_INTERNAL', 'commit on a read-only store');
    const old = this.body;
    next.commit = old.commit + 1;
    try {
      writeManifest(this.dfs, this.dir, next, this.opts.fsync);
    } catch (e) {
      if (this.landed(next)) this.body = next;
      throw e;
    }
    this.body = next;
    const keep = namedFiles(next);
    // Off the clock: the replaced files are garbage now (a writer's open collects any a crash left).
    for (const f of namedFiles(old)) if (!keep.has(f)) this.dfs.unlinkLater(join(this.dir, f));
  }

  /** True when the manifest on disk is `next` (a failed write that got as far as its rename). */
  private landed(next: ManifestBody): boolean {
    try {
      return readManifest(this.dir)?.commit === next.commit;
    } catch {
      return false;
    }
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

/** A committed state: its number and the CRC of its manifest body (Store.committed). */
export interface CommitId {
  commit: number;
  stateId: number;
}
