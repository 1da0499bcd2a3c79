// The content store's manifest, `<state>/content/CONTENT-MANIFEST`: what is
// committed. Format `drum-content/2`: the exact map and (MinHash stores) the
// band map as DRUM core bucket files (first-doc-map.ts: each bucket's key
// file and values file with their counts, sizes and CRCs), or (SimHash
// stores) the four permuted SimHash tables by name; how many documents and
// URL bytes the document log holds; the CRC-32 of the committed signatures
// (MinHash); the SimHash threshold (SimHash); the run count. Format
// `drum-content/1` (single-file sorted tables for exact and bands; no `near`
// in the oldest, SimHash, stores) is read here so it can be converted
// (content-upgrade.ts) and verified; nothing writes it. Binary envelope
// (magic, version, flags, body length, body CRC-32) around a UTF-8 JSON body,
// like the URL store's MANIFEST; written tmp -> fsync -> rename -> fsync
// dir, so a crash leaves the old state or the new. checkContentAsked
// refuses (DRUM_POLICY_MISMATCH) a near method or SimHash threshold other
// than a store was created with, as the URL store's checkAsked refuses its
// buckets and host bits.
// Does not read tables or bucket files. REQUIRES: the writer lock for
// writeContentManifest.

import { crc32 } from 'node:zlib';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { replaceFile } from '../io/replace-file.js';
import type { BucketEntry } from '../store/manifest.js';

export const CONTENT_DIR = 'content';
/** The state's folder of content runs' default output directories (run-<n>/ each); not part of the content store. */
export const CONTENT_RUNS_DIR = 'content-runs';
export const CONTENT_MANIFEST = 'CONTENT-MANIFEST';
export const CONTENT_MAGIC = 0x4d435244; // 'DRCM' read as a little-endian u32
export const CONTENT_VERSION = 1; // of the envelope; the body's `format` names the layout
export const CONTENT_HEADER_BYTES = 4 + 2 + 2 + 4 + 4; // magic, version, flags, body length, body CRC-32
/** Permuted SimHash tables (four 16-bit blocks: complete for k <= 3). */
export const SIM_TABLES = 4;
/** Buckets of a new store's exact map and band map (a key's top 4 or 6 bits). */
export const EXACT_BUCKETS = 16;
export const BAND_BUCKETS = 64;

/** How a store finds near copies: MinHash-LSH (default) or SimHash (k <= 3). */
export type NearMethod = 'minhash' | 'simhash';
export const NEAR_METHODS: readonly NearMethod[] = ['minhash', 'simhash'];

/** A map on the DRUM core: its bucket count and each bucket's committed key and values files. */
export interface MapFiles {
  /** A power of two: the bucket is a key's top log2(buckets) bits. */
  buckets: number;
  /** By bucket: its files (names relative to the content directory), null while empty. */
  files: (BucketEntry | null)[];
}

export interface ContentManifest {
  format: 'drum-content/2';
  near: NearMethod;
  generation: number;
  docs: number;
  urlBytes: number;
  runs: number;
  /** SimHash Hamming threshold (SimHash stores). */
  threshold: number;
  /** Exact payload key -> earliest docID. */
  exact: MapFiles;
  /** MinHash-LSH band key -> earliest docID (MinHash stores). */
  bands?: MapFiles;
  /** SimHash table file names (SimHash stores); null while empty. */
  sim: (string | null)[];
  /** CRC-32 of docs.sigs' committed bytes (MinHash stores). */
  sigCrc?: number;
}

/** The layout before the maps moved onto the DRUM core: one sorted table file per table. */
export interface ContentManifestV1 {
  format: 'drum-content/1';
  /** Absent in stores written before MinHash: 'simhash'. */
  near?: NearMethod;
  generation: number;
  docs: number;
  urlBytes: number;
  runs: number;
  threshold: number;
  exact: string | null;
  sim: (string | null)[];
  bands?: string | null;
  sigCrc?: number;
}

export type AnyContentManifest = ContentManifest | ContentManifestV1;

function emptyMap(buckets: number): MapFiles {
  return { buckets, files: Array(buckets).fill(null) };
}

export function emptyContentManifest(near: NearMethod, threshold: number): ContentManifest {
  const m: ContentManifest = {
    format: 'drum-content/2', near, generation: 0, docs: 0, urlBytes: 0, runs: 0, threshold, exact: emptyMap(EXACT_BUCKETS), sim: Array(SIM_TABLES).fill(null),
  };
  if (near === 'minhash') Object.assign(m, { bands: emptyMap(BAND_BUCKETS), sigCrc: 0 });
  return m;
}

export function nearMethodOf(m: AnyContentManifest): NearMethod {
  return m.near ?? 'simhash';
}

/** What a caller set of the parameters fixed at a content store's creation (null: not set; the store's own apply). */
export interface ContentAsked {
  near: NearMethod | null;
  /** The SimHash threshold (--threshold): only a SimHash store has one. */
  threshold: number | null;
  /** The MinHash threshold (--min-jaccard): any run of a MinHash store may choose its own, a SimHash store has none. */
  minJaccard: number | null;
}

/**
 * An existing content store whose near method or SimHash threshold differs
 * from what the caller set, or a threshold of the other method than the
 * store's: DRUM_POLICY_MISMATCH. They fix what the store's tables hold, so
 * running with the store's own instead would silently answer otherwise than
 * asked. `stateDir` names the store in the message.
 */
export function checkContentAsked(m: AnyContentManifest, asked: ContentAsked | undefined, stateDir: string): void {
  if (asked === undefined) return;
  const near = nearMethodOf(m);
  const differ = (what: string, flag: string): never => {
    throw new DrumError('DRUM_POLICY_MISMATCH', `the content store in ${stateDir} ${what}; fixed when it was created (drop ${flag} to use the store's own)`);
  };
  if (asked.near !== null && asked.near !== near) differ(`finds near copies with ${near}, not ${asked.near}`, '--near');
  if (asked.threshold !== null && near === 'minhash') differ("finds near copies with minhash, which takes --min-jaccard, not simhash's --threshold", '--threshold');
  if (asked.threshold !== null && asked.threshold !== m.threshold) differ(`was created with --threshold ${m.threshold}, not ${asked.threshold}`, '--threshold');
  if (asked.minJaccard !== null && near === 'simhash') differ("finds near copies with simhash, which takes --threshold, not minhash's --min-jaccard", '--min-jaccard');
}

/** Table kinds of `*.tbl` files: 0 exact (format 1), 1..4 SimHash table t + 1, 5 bands (format 1). */
export const EXACT_KIND = 0;
export const BAND_KIND = 5;

/** The committed `*.tbl` files of a manifest with their kinds (format 2: the SimHash tables only). */
export function tablesOf(m: AnyContentManifest): [number, string][] {
  const out: [number, string][] = [];
  if (m.format === 'drum-content/1' && m.exact !== null) out.push([EXACT_KIND, m.exact]);
  m.sim.forEach((s, t) => s !== null && s !== undefined && out.push([t + 1, s]));
  if (m.format === 'drum-content/1' && m.bands !== undefined && m.bands !== null) out.push([BAND_KIND, m.bands]);
  return out;
}

/** The committed maps of a format 2 manifest, by name ('exact', 'bands'). */
export function mapsOf(m: ContentManifest): [string, MapFiles][] {
  return m.bands === undefined ? [['exact', m.exact]] : [['exact', m.exact], ['bands', m.bands]];
}

/** The table file name of a kind (see tablesOf) in a generation. */
export function tableName(kind: number, generation: number): string {
  return `${kind === EXACT_KIND ? 'exact' : kind === BAND_KIND ? 'bands' : `sim${kind - 1}`}-g${String(generation).padStart(6, '0')}.tbl`;
}

/** The committed manifest of a content directory (either format), or null when there is none. */
export function readContentManifest(dir: string): AnyContentManifest | null {
  const path = join(dir, CONTENT_MANIFEST);
  let b: Buffer;
  try {
    b = fs.readFileSync(path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') return null;
    if (code === 'ENOENT') return orphansRefused(dir, path);
    throw new DrumError('DRUM_IO', `cannot read ${path}`, { cause: e, file: path });
  }
  const bad = (what: string): DrumError => new DrumError('DRUM_CORRUPT_FILE', `content manifest ${path}: ${what}`, { file: path });
  if (b.length < CONTENT_HEADER_BYTES || b.readUInt32LE(0) !== CONTENT_MAGIC) throw bad('bad magic');
  if (b.readUInt16LE(4) !== CONTENT_VERSION) throw bad(`version ${b.readUInt16LE(4)}`);
  const len = b.readUInt32LE(8);
  if (b.length !== CONTENT_HEADER_BYTES + len) throw bad('length');
  const body = b.subarray(CONTENT_HEADER_BYTES);
  if ((crc32(body) >>> 0) !== b.readUInt32LE(12)) throw bad('CRC mismatch');
  const m = JSON.parse(body.toString('utf8')) as AnyContentManifest;
  if (m.format !== 'drum-content/1' && m.format !== 'drum-content/2') throw bad(`format ${String((m as { format: unknown }).format)}`);
  return m;
}

/**
 * A missing manifest is a new store (null) unless the directory holds what
 * only a committed store has: a non-empty document log or signatures file, a
 * map bucket file or a table. Treating that as a new store would cut the logs
 * and delete the files (a new store's open commits an empty manifest before
 * it writes anything else), so it is DRUM_CORRUPT_FILE.
 */
function orphansRefused(dir: string, path: string): null {
  const sizeOf = (f: string): number => {
    try {
      return fs.statSync(join(dir, f)).size;
    } catch {
      return 0;
    }
  };
  const listed = (d: string): string[] => {
    try {
      return fs.readdirSync(join(dir, d)).map((f) => (d === '.' ? f : `${d}/${f}`));
    } catch {
      return [];
    }
  };
  const found = [
    ...['docs.urls', 'docs.idx', 'docs.sigs'].filter((f) => sizeOf(f) > 0),
    ...listed('.').filter((f) => f.endsWith('.tbl')),
    ...listed('exact').filter((f) => !f.endsWith('.tmp')),
    ...listed('bands').filter((f) => !f.endsWith('.tmp')),
  ];
  if (found.length === 0) return null;
  throw new DrumError('DRUM_CORRUPT_FILE', `content manifest ${path}: missing, but ${dir} holds content store files (${found.slice(0, 3).join(', ')}); refusing to treat it as a new store`, { file: path });
}

export function writeContentManifest(dfs: DrumFs, dir: string, m: ContentManifest, fsync: boolean): void {
  const body = Buffer.from(JSON.stringify(m));
  const h = Buffer.alloc(CONTENT_HEADER_BYTES);
  h.writeUInt32LE(CONTENT_MAGIC, 0);
  h.writeUInt16LE(CONTENT_VERSION, 4);
  h.writeUInt16LE(0, 6);
  h.writeUInt32LE(body.length, 8);
  h.writeUInt32LE(crc32(body) >>> 0, 12);
  replaceFile(dfs, join(dir, CONTENT_MANIFEST), (fd) => {
    dfs.write(fd, h, 0, h.length, 0);
    dfs.write(fd, body, 0, body.length, h.length);
  }, { fsync, fsyncDir: fsync ? dir : undefined });
}
