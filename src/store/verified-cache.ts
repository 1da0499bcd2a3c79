// Remembers between processes which bucket files of the committed store a
// writer read whole and found sound (or wrote itself), each with its
// identity as the kernel reports it: device, inode, size, mtime and ctime in
// nanoseconds. The next writer's check before it writes
// (Session.verifyBeforeWrite) reads again only the buckets whose files
// changed identity. A write, truncation, replacement, restore or copy gives
// a file another ctime or inode (no user can set a ctime), so damage done
// through the file system is still found before anything is written (a file
// changed in the same tick of the file system's clock as the cache was
// written is read again, see vouches); damage below it (a disk's bit rot)
// is found by the CRC of every block a merge or check reads, before that
// round commits (a round that writes values deltas reads no values: their
// damage waits for the next reader of them). `drum verify` always reads
// every file and never uses this cache.
// A cache, never state: written (tmp, rename, no fsync) in cache-file.ts's
// envelope, tied to one committed state, ignored when it disagrees (then a
// writer reads every file, as before the cache existed). Layout:
//   envelope (VERIFIED_MAGIC, version 1, one field: buckets) | per bucket:
//   keys identity | values identity, each IDENTITY_WORDS u32 =
//   (dev, ino, size, mtimeNs, ctimeNs) as u64 lo, hi pairs; all zero = no file;
//   a values file with deltas has one identity for them all (chainIdentity).
// Does not read key files (verify.ts does) or decide when to save
// (session-caches.ts does).
// REQUIRES: what is saved as vouched was read whole and found sound, or
// written, by this process under the writer lock, its identity taken then
// (before the read, after the write).

import * as fs from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { DrumFs } from '../io/fs.js';
import { cacheCrcStart, cacheHeaderBytes, readCacheHeader, saveCache, writeCacheFile } from '../tiers/cache-file.js';
import type { BucketEntry, ManifestBody } from './manifest.js';
import { chainFiles } from './values/value-chain.js';
import type { CommitId } from './store.js';

export const VERIFIED_FILE = 'verified.cache';
export const VERIFIED_MAGIC = 0x56524444; // "DDRV" read as little-endian u32
const VERIFIED_VERSION = 1;
const VERIFIED_HEADER_BYTES = cacheHeaderBytes(1); // magic, version, flags, commit, stateId, buckets, crc
/** dev, ino, size, mtimeNs, ctimeNs: five u64 as lo, hi u32 pairs. */
const IDENTITY_WORDS = 5 * 2;
const BUCKET_WORDS = 2 * IDENTITY_WORDS; // keys file, values file
/** Where ctimeNs starts in an identity (its fifth u64). */
const CTIME_WORD = 4 * 2;
/** Where the size starts in an identity (its third u64). */
const SIZE_WORD = 2 * 2;

/** Writes the identity of `path` at v[at...]; all zero when it has none (no file, or stat fails). */
function identityInto(path: string | undefined, v: Uint32Array, at: number): void {
  v.fill(0, at, at + IDENTITY_WORDS);
  if (path === undefined) return;
  let st: fs.BigIntStats;
  try {
    st = fs.statSync(path, { bigint: true });
  } catch {
    return;
  }
  const parts = [st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs];
  parts.forEach((x, i) => {
    v[at + 2 * i] = Number(x & 0xffffffffn);
    v[at + 2 * i + 1] = Number((x >> 32n) & 0xffffffffn);
  });
}

/** The identity of the file at `path` as it is now: IDENTITY_WORDS u32, all zero when there is none. */
export function fileIdentity(path: string): Uint32Array {
  const v = new Uint32Array(IDENTITY_WORDS);
  identityInto(path, v, 0);
  return v;
}

/**
 * The identity of a bucket's files as they are now: BUCKET_WORDS u32, key
 * file then values (chainIdentity); and each values file's own, by name.
 */
function bucketIdentity(dir: string, e: BucketEntry): { v: Uint32Array; values: [string, Uint32Array][] } {
  const v = new Uint32Array(BUCKET_WORDS);
  identityInto(join(dir, e.file), v, 0);
  const values = e.values === undefined ? [] : chainFiles(e.values).map((f): [string, Uint32Array] => [f.file, fileIdentity(join(dir, f.file))]);
  if (values.length > 0) v.set(chainIdentity(values.map(([, id]) => id)), IDENTITY_WORDS);
  return { v, values };
}

/**
 * One identity for a bucket's values files: a values file's own, or for a
 * base with deltas, the CRC-32 of all their identities and their count, their
 * total size and their latest ctime (so vouches() sees a change to any of
 * them, and the latest change's tick).
 */
export function chainIdentity(ids: readonly Uint32Array[]): Uint32Array {
  if (ids.length === 1) return ids[0]!;
  const v = new Uint32Array(IDENTITY_WORDS);
  let crc = 0;
  let size = 0;
  let ctime = 0n;
  for (const id of ids) {
    crc = crc32(new Uint8Array(id.buffer, id.byteOffset, id.byteLength), crc);
    size += id[SIZE_WORD]! + id[SIZE_WORD + 1]! * 2 ** 32;
    const c = (BigInt(id[CTIME_WORD + 1]!) << 32n) | BigInt(id[CTIME_WORD]!);
    if (c > ctime) ctime = c;
  }
  v[0] = crc >>> 0;
  v[1] = ids.length;
  v[SIZE_WORD] = size % 2 ** 32;
  v[SIZE_WORD + 1] = Math.floor(size / 2 ** 32);
  v[CTIME_WORD] = Number(ctime & 0xffffffffn);
  v[CTIME_WORD + 1] = Number(ctime >> 32n);
  return v;
}

/**
 * The files (key and values files, as the manifest names them) of the
 * buckets recorded sound after the committed state `at` whose files have the
 * same identity now, each with that identity: the check before a write need
 * not read those buckets. Empty when the cache is missing, of another state
 * or damaged.
 */
export function loadVerified(dir: string, at: CommitId, body: ManifestBody): Map<string, Uint32Array> {
  const out = new Map<string, Uint32Array>();
  const path = join(dir, VERIFIED_FILE);
  let b: Buffer;
  let written: bigint;
  try {
    b = fs.readFileSync(path);
    written = fs.statSync(path, { bigint: true }).mtimeNs;
  } catch {
    return out;
  }
  const head = readCacheHeader(b, VERIFIED_MAGIC, VERIFIED_VERSION, at, 1);
  const n = body.buckets.length;
  if (head === null || head.fields[0] !== n || b.length !== VERIFIED_HEADER_BYTES + 4 * n * BUCKET_WORDS) return out;
  if (crc32(b.subarray(VERIFIED_HEADER_BYTES), cacheCrcStart(b, VERIFIED_HEADER_BYTES)) !== head.crc) return out;
  const saved = new Uint32Array(Uint8Array.prototype.slice.call(b, VERIFIED_HEADER_BYTES).buffer);
  body.buckets.forEach((e, k) => {
    if (!e) return;
    const now = bucketIdentity(dir, e);
    if (!vouches(saved.subarray(k * BUCKET_WORDS, (k + 1) * BUCKET_WORDS), now.v, written)) return;
    out.set(e.file, now.v.slice(0, IDENTITY_WORDS));
    // Each values file with its own identity: the next save combines them again.
    for (const [f, id] of now.values) out.set(f, id);
  });
  return out;
}

/**
 * Whether a bucket's saved identity vouches for its files: recorded (a key
 * identity), unchanged (every word as `now`), and changed last in an
 * earlier tick of the file system's clock than the cache was written. A
 * file changed in the tick the cache was written (a coarse clock ticks every
 * few ms) could be changed again in that tick with the same ctime: it is
 * read again, as git reads a racily clean file again.
 */
function vouches(saved: Uint32Array, now: Uint32Array, written: bigint): boolean {
  if (saved.subarray(0, IDENTITY_WORDS).every((w) => w === 0)) return false;
  for (let w = 0; w < BUCKET_WORDS; w++) if (saved[w] !== now[w]) return false;
  for (const id of [0, IDENTITY_WORDS]) {
    const ctimeNs = (BigInt(saved[id + CTIME_WORD + 1]!) << 32n) | BigInt(saved[id + CTIME_WORD]!);
    if (ctimeNs !== 0n && ctimeNs >= written) return false;
  }
  return true;
}

/**
 * Records every bucket of `body` whose key file and values file (when it
 * has one) are both in `vouched`, with the identity each had when this
 * process read it whole or wrote it (taken then: a change since makes the
 * next writer read the bucket), tied to the committed state `at`. A bucket
 * with a file this process neither read nor wrote (a values file a commit
 * kept) is left out, and read again next time. A failed save only means a
 * full check next time.
 */
export function saveVerified(dfs: DrumFs, dir: string, at: CommitId, body: ManifestBody, vouched: ReadonlyMap<string, Uint32Array>): void {
  const v = new Uint32Array(body.buckets.length * BUCKET_WORDS);
  body.buckets.forEach((e, k) => {
    if (!e) return;
    const keys = vouched.get(e.file);
    const ids = e.values === undefined ? [new Uint32Array(IDENTITY_WORDS)] : chainFiles(e.values).map((f) => vouched.get(f.file));
    if (keys === undefined || ids.some((id) => id === undefined)) return;
    const values = chainIdentity(ids as Uint32Array[]);
    v.set(keys, k * BUCKET_WORDS);
    v.set(values, k * BUCKET_WORDS + IDENTITY_WORDS);
  });
  saveCache(() => writeCacheFile(dfs, join(dir, VERIFIED_FILE), VERIFIED_MAGIC, VERIFIED_VERSION, at, [body.buckets.length], [new Uint8Array(v.buffer)]));
}
