// The MANIFEST: the one file that says what the store is — parameters,
// every bucket's key file with its count and CRC, the Bloom file, and the
// current run's resume point. Binary envelope (magic, version, length, CRC)
// around a UTF-8 JSON body (docs/file-format.md). Written tmp -> fsync ->
// rename -> fsync dir; read with every check, never treated as empty.

import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import * as fs from 'node:fs';
import { DrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { replaceFile } from '../io/replace-file.js';
import type { CanonicalPolicyOptions } from '../canonicalize/types.js';
import type { UrlLogPoint } from './url-log/url-log-format.js';
import type { JournalPoint } from './journal/journal-format.js';

export const MANIFEST_NAME = 'MANIFEST';
export const MANIFEST_MAGIC = 0x4d4d5244; // "DRMM" read as little-endian u32
export const MANIFEST_VERSION = 1;
export const MANIFEST_HEADER_BYTES = 4 + 2 + 2 + 4 + 4; // magic, version, flags, bodyLength, bodyCrc
export const FORMAT_VERSION = 1;
/** The body's format when a bucket names values deltas (a drum that reads only FORMAT_VERSION refuses it). */
export const DELTA_FORMAT_VERSION = 2;

export interface BucketEntry {
  file: string;
  keys: number;
  bytes: number;
  crc: number;
  /** Stores with values: the bucket's values file (one value per key, same order), with any deltas. */
  values?: ValuesEntry;
}

/** A bucket's values: a base file and, after rounds that only inserted, the deltas they wrote (value-chain.ts). */
export interface ValuesEntry {
  file: string;
  bytes: number;
  crc: number;
  /** Insert deltas, oldest first; the base holds the bucket's keys less their entries. Absent: none. */
  deltas?: DeltaEntry[];
}

/** One values delta file: `count` (position, value) entries. */
export interface DeltaEntry {
  file: string;
  bytes: number;
  crc: number;
  count: number;
}

export interface StoreParams {
  buckets: number;
  hostBits: number;
  hash: string;
  policy: string;
  /** The policy options the store was built with, so later opens can use them without flags. */
  canonical?: CanonicalPolicyOptions;
  /**
   * Bytes of the value kept with each key: 0 for a keys-only store, URL_VALUE_BYTES
   * for a store with values. Absent: a store written by a drum without values (keys only).
   */
  valueBytes?: number;
}

export interface InputRecord {
  path: string;
  bytes: number;
  sha256: string;
  sampled: boolean;
  /**
   * Inputs over the whole-hash limit: the sampled hash (size, first and last MiB). Until such an input has been
   * read whole, `sha256` is this sample and `sampled` is true; then `sha256` is the SHA-256 of every byte.
   * Any input read whole is recorded with the SHA-256 of the bytes read; one whose size changed while
   * read gets `sampled` true (known-inputs.ts withWholeHash): it never counts as ingested.
   */
  sample?: string;
  /** Set when reading this input ended in an error: read up to this decompressed offset and line. Never counts as ingested. */
  damaged?: InputDamage;
  /**
   * How the run read it (format, links, warc-links, max line bytes, policy id; run-setup.ts readKeyOf): the same
   * bytes read another way are other links, so an input counts as ingested only for a run that reads it the same way.
   */
  read?: string;
}

export interface InputDamage {
  offset: number;
  line: number;
  code: string;
  message: string;
}

export interface RunState {
  runId: string;
  status: 'running' | 'complete' | 'abandoned';
  startedAt: string;
  finishedAt: string | null;
  inputs: InputRecord[];
  /** Per input: passed over because an earlier complete run ingested the same bytes. */
  skipped: boolean[];
  options: Record<string, string>;
  outDir: string;
  position: { input: number; offset: number; line: number };
  rounds: number;
  unique: { file: number; bytes: number; urls: number; urlsPerFile: number };
  /** Where the last committed round's new URLs start in the unique files (host-count recovery). */
  lastRoundFrom?: { file: number; bytes: number };
  rejectsBytes: number;
  counters: Record<string, number>;
  /** The run's number in this store (1, 2, …; ManifestBody.runSeq): the firstRun of the URLs it stores. */
  seq?: number;
  /**
   * `--revisit-after`: the rule (interval, run start in unix seconds) and the
   * committed point of the revisit-NNNNN.txt files.
   */
  revisit?: { afterSec: number; fromSec: number; file: number; bytes: number; urls: number; urlsPerFile: number };
  /** `--graph`: the committed point of the graph-NNNNN.bin files (`urls` counts pairs). */
  graph?: { file: number; bytes: number; urls: number; urlsPerFile: number };
}

export interface RunSummary {
  runId: string;
  status: string;
  startedAt: string;
  finishedAt: string | null;
  linksRead: number;
  uniqueUrls: number;
  outDir: string;
  inputs: InputRecord[];
  /** Set on a forget (docs/file-format.md): it removed URLs instead of adding them. */
  kind?: 'forget';
  /** A forget's counts (kind 'forget'). */
  forget?: ForgetCounts;
}

/** What a forget asked for and did, as the manifest and the run catalog record it. */
export interface ForgetCounts {
  /** URLs the list named (accepted lines, repeats included). */
  asked: number;
  /** Stored URLs removed: each is new again to the next ingest. Written to forgotten.txt. */
  forgotten: number;
  /** URLs of the list the store did not hold. */
  notStored: number;
  /** URLs named again later in the list (counted once). */
  repeats: number;
  /** Lines that named no URL (rejects.tsv has them all). */
  rejectedLines: number;
  /** forget --host: each exact host, the URLs of it removed, and those of its key range kept because their host check is unknown. */
  hosts?: { host: string; forgotten: number; unknownHost: number }[];
}

export interface ManifestBody {
  formatVersion: number;
  createdAt: string;
  commit: number;
  params: StoreParams;
  storeUrls: number;
  buckets: (BucketEntry | null)[];
  bloom: { file: string; keys: number; bitsPerKey: number } | null;
  /** The URL log's committed point (docIDs); absent in a store written before the log existed, until its next commit. */
  urlLog?: UrlLogPoint;
  run: RunState | null;
  history: RunSummary[];
  /** Stores with values: docIDs handed out so far (the next new URL gets this one; never reused). */
  docIDs?: number;
  /** Runs started on this store so far (the last run's seq). */
  runSeq?: number;
  /** Keys small rounds stored in the key journal and no fold has merged into the bucket files yet (absent: none). */
  journal?: JournalPoint;
}

/** The runs a manifest names (its history and its current run): the only ones a writer's recovery looks up in the catalog. */
export function namedRunIds(body: Pick<ManifestBody, 'run' | 'history'>): string[] {
  const ids = body.history.map((h) => h.runId);
  if (body.run !== null && !ids.includes(body.run.runId)) ids.push(body.run.runId);
  return ids;
}

export function encodeManifest(body: ManifestBody): Buffer {
  const json = Buffer.from(JSON.stringify(body), 'utf8');
  const head = Buffer.alloc(MANIFEST_HEADER_BYTES);
  head.writeUInt32LE(MANIFEST_MAGIC, 0);
  head.writeUInt16LE(MANIFEST_VERSION, 4);
  head.writeUInt16LE(0, 6);
  head.writeUInt32LE(json.length, 8);
  head.writeUInt32LE(crc32(json), 12);
  return Buffer.concat([head, json]);
}

export function decodeManifest(b: Buffer, file: string): ManifestBody {
  const corrupt = (what: string, cause?: unknown): never => {
    throw new DrumError('DRUM_CORRUPT_FILE', `${file}: ${what}`, { file, cause });
  };
  if (b.length < MANIFEST_HEADER_BYTES) corrupt('shorter than its header');
  if (b.readUInt32LE(0) !== MANIFEST_MAGIC) corrupt('bad magic (not a drum manifest)');
  if (b.readUInt16LE(4) !== MANIFEST_VERSION) corrupt(`unsupported version ${b.readUInt16LE(4)}`);
  const len = b.readUInt32LE(8);
  if (b.length !== MANIFEST_HEADER_BYTES + len) corrupt(`length ${b.length}, header says ${MANIFEST_HEADER_BYTES + len}`);
  const body = b.subarray(MANIFEST_HEADER_BYTES);
  if (crc32(body) !== b.readUInt32LE(12)) corrupt('checksum mismatch');
  let parsed: ManifestBody;
  try {
    parsed = JSON.parse(body.toString('utf8')) as ManifestBody;
  } catch (e) {
    return corrupt('body is not JSON', e);
  }
  if (parsed.formatVersion !== FORMAT_VERSION && parsed.formatVersion !== DELTA_FORMAT_VERSION) {
    corrupt(`format version ${String(parsed.formatVersion)}: this drum reads versions ${FORMAT_VERSION} and ${DELTA_FORMAT_VERSION}`);
  }
  if (!Array.isArray(parsed.buckets) || typeof parsed.params !== 'object') corrupt('body lacks required fields');
  if (parsed.buckets.length !== parsed.params.buckets) corrupt('bucket list length differs from params.buckets');
  return parsed;
}

/**
 * Files that exist only once a store's first manifest was written: key,
 * values and key journal files, Bloom files, URL log segments, the
 * catalog. Any of them without a MANIFEST means the MANIFEST was lost, not
 * that the directory is new. Returns up to 3 relative names.
 */
export function stateWithoutManifest(stateDir: string): string[] {
  const found: string[] = [];
  const list = (d: string): string[] => {
    try {
      return fs.readdirSync(d);
    } catch {
      return [];
    }
  };
  for (const f of list(join(stateDir, 'store'))) if (/^(b\d{4,}-g\d{6,}\.(keys|vals|vdel)|journal-g\d{6,}\.jnl)$/.test(f) && found.length < 3) found.push(`store/${f}`);
  for (const f of list(stateDir)) if (/^bloom-g\d{6,}\.bloom$/.test(f) && found.length < 3) found.push(f);
  for (const f of list(join(stateDir, 'urls'))) if (/^u\d{6,}\.seg$/.test(f) && found.length < 3) found.push(`urls/${f}`);
  if (fs.existsSync(join(stateDir, 'catalog', 'CURRENT'))) found.push('catalog/CURRENT');
  return found;
}

/**
 * Reads the manifest of stateDir; null when there is none (a new store).
 * DRUM_CORRUPT_FILE when it is missing but the directory holds store files:
 * treating that as a new store would delete them.
 */
export function readManifest(stateDir: string): ManifestBody | null {
  const file = join(stateDir, MANIFEST_NAME);
  let b: Buffer;
  try {
    b = fs.readFileSync(file);
  } catch (e) {
    // A state path that is a file holds no store (ENOTDIR): as absent, so readers say DRUM_NOT_FOUND.
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      const orphans = stateWithoutManifest(stateDir);
      if (orphans.length === 0) return null;
      throw new DrumError(
        'DRUM_CORRUPT_FILE',
        `${file}: missing, but ${stateDir} holds store files (${orphans.join(', ')}); refusing to treat it as a new store (docs/reliability.md: recovery)`,
        { file },
      );
    }
    throw new DrumError('DRUM_IO', `cannot read ${file}: ${(e as Error).message}`, { cause: e, file });
  }
  return decodeManifest(b, file);
}

/** The format version `body` needs: DELTA_FORMAT_VERSION when a bucket names values deltas. */
export function formatVersionOf(body: ManifestBody): number {
  return body.buckets.some((e) => (e?.values?.deltas?.length ?? 0) > 0) ? DELTA_FORMAT_VERSION : FORMAT_VERSION;
}

/** Atomically replaces the manifest: MANIFEST.tmp, fsync, rename, fsync dir. */
export function writeManifest(dfs: DrumFs, stateDir: string, body: ManifestBody, doFsync: boolean): void {
  body.formatVersion = formatVersionOf(body);
  const bytes = encodeManifest(body);
  replaceFile(dfs, join(stateDir, MANIFEST_NAME), (fd) => dfs.write(fd, bytes, 0, bytes.length, 0), { fsync: doFsync, fsyncDir: doFsync ? stateDir : undefined });
}
