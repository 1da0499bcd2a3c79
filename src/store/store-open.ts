// What opening a state directory decides before the Store exists: a
// reader's view (the manifest with the files it names pinned open, or its
// bucket files left unpinned when they cannot all be), whether
// the store's hash and policy match this drum's, whether a directory without
// a MANIFEST may become a new store, and a new store's first manifest body.
// Does not take the writer lock, write the manifest or check file sizes
// (store.ts and store-files.ts do).
// REQUIRES: a reader's `dfs` releases its pins with unpinAll() when the open
// fails or the store closes.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumError, osCode } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { emptyUrlLog } from './url-log/url-log-format.js';
import { LEGACY_LOCK_NAME, WRITER_LOCK_DIR } from './lock.js';
import {
  FORMAT_VERSION, MANIFEST_NAME, readManifest, stateWithoutManifest, type ManifestBody, type StoreParams,
} from './manifest.js';
import { safeList } from './store-files.js';
import { chainFiles } from './values/value-chain.js';

/** What a reader opened on: the manifest, and whether every bucket file it names is pinned. */
export interface ReaderView {
  body: ManifestBody;
  /**
   * False when some key file, values file or values delta could not be
   * pinned (out of descriptors, or missing for good): then none is, and the
   * store reads a bucket from the newest manifest's files once a writer's
   * commit has deleted its own (Store.openReader).
   */
  bucketsPinned: boolean;
}

/**
 * A reader's view: the manifest, with the key journal, the Bloom file and
 * every bucket file (key file, values file, values deltas) it names pinned
 * open so a writer committing meanwhile (it deletes the files it replaced)
 * cannot take them away. If a file vanishes between reading the manifest
 * and pinning it, a commit happened: read the new manifest and try again.
 * A journal or Bloom file still missing after that is left unpinned (the
 * open and verify report it). When the bucket files cannot all be pinned
 * (EMFILE: one descriptor each, up to ten a bucket), the ones pinned are
 * let go again, so the descriptors stay free for the reader's work, and the
 * view says so.
 */
export function readPinned(dir: string, dfs: DrumFs): ReaderView | null {
  for (let attempt = 0; ; attempt++) {
    const body = readManifest(dir);
    if (body === null) return null;
    const replaced = (e: unknown): boolean => attempt < 20 && osCode(e) === 'ENOENT' && readManifest(dir)?.commit !== body.commit;
    // First the two files the open reads whole (and verify again), so running short of descriptors leaves them pinned.
    let again = false;
    for (const f of [body.journal?.file, body.bloom?.file]) {
      if (f === undefined) continue;
      try {
        dfs.pin(join(dir, f));
      } catch (e) {
        // Replaced by a commit meanwhile: start over. Missing for good (damage): the open or verify reports it.
        again ||= replaced(e);
      }
    }
    if (again) {
      dfs.unpinAll();
      continue;
    }
    const pinned: string[] = [];
    try {
      for (const e of body.buckets) {
        if (!e) continue;
        for (const f of [e.file, ...(e.values ? chainFiles(e.values).map((c) => c.file) : [])]) {
          const path = join(dir, f);
          dfs.pin(path);
          pinned.push(path);
        }
      }
    } catch (e) {
      if (replaced(e)) {
        dfs.unpinAll();
        continue;
      }
      for (const path of pinned) dfs.unpin(path);
      return { body, bucketsPinned: false };
    }
    return { body, bucketsPinned: true };
  }
}

export function checkParams(have: StoreParams, want: StoreParams, force: boolean, dir: string): void {
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

/** The parameters fixed at a store's creation that a caller set (null: not set, the store's own apply). */
export interface AskedParams {
  buckets: number | null;
  hostBits: number | null;
  /** false: a keys-only store asked for (--no-values); true: a store with values. */
  values: boolean | null;
}

/**
 * An existing store whose buckets, host bits or values differ from the ones
 * the caller set: DRUM_POLICY_MISMATCH, even with forcePolicy. They fix the
 * key layout and the files of the store, so they cannot change; using the
 * store's own instead would silently do something else than asked. Values
 * asked of a store created keys-only are DRUM_NEEDS_UPGRADE: `drum upgrade`
 * adds them (a store written before values gets them at a writer's open).
 */
export function checkAsked(have: StoreParams, asked: AskedParams | undefined, dir: string): void {
  if (asked === undefined) return;
  const differ = (created: string, set: string, flag: string): never => {
    throw new DrumError('DRUM_POLICY_MISMATCH', `${dir} was created with ${created}, not ${set}: fixed at creation (drop ${flag} to use the store's own)`);
  };
  if (asked.buckets !== null && asked.buckets !== have.buckets) differ(`${have.buckets} buckets`, String(asked.buckets), '--buckets');
  if (asked.hostBits !== null && asked.hostBits !== have.hostBits) differ(`${have.hostBits} host bits`, String(asked.hostBits), '--host-bits');
  if (asked.values === false && (have.valueBytes ?? 0) > 0) differ('a value per URL', 'keys only', '--no-values');
  if (asked.values === true && have.valueBytes === 0) {
    throw new DrumError('DRUM_NEEDS_UPGRADE', `${dir} was created keys-only (--no-values), not with a value per URL: drum upgrade gives it values`);
  }
}

/** The manifest body of a new, empty store with `params` (commit 0). */
export function newManifest(params: StoreParams): ManifestBody {
  return {
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
