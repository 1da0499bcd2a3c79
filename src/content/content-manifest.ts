// The content store's manifest, `<state>/content/CONTENT-MANIFEST`: which
// table files are committed (one exact table, and by the store's near
// method either the MinHash-LSH band table or four permuted SimHash
// tables, by generation), how many documents and URL bytes the document
// log holds, the CRC-32 of the committed signatures (MinHash), the SimHash
// threshold (SimHash), and the run count. A manifest without `near` is a
// SimHash store (written before MinHash was the default). Binary envelope (magic, version, flags, body length, body CRC-32)
// around a UTF-8 JSON body, like the URL store's MANIFEST; written tmp ->
// fsync -> rename -> fsync dir, so a crash leaves the old state or the new.
// Does not read tables. REQUIRES: the writer lock for writeContentManifest.

import { crc32 } from 'node:zlib';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { replaceFile } from '../io/replace-file.js';

export const CONTENT_DIR = 'content';
export const CONTENT_MANIFEST = 'CONTENT-MANIFEST';
export const CONTENT_MAGIC = 0x4d435244; // 'DRCM' read as a little-endian u32
export const CONTENT_VERSION = 1;
export const CONTENT_HEADER_BYTES = 4 + 2 + 2 + 4 + 4; // magic, version, flags, body length, body CRC-32
/** Permuted SimHash tables (four 16-bit blocks: complete for k <= 3). */
export const SIM_TABLES = 4;

/** How a store finds near copies: MinHash-LSH (default) or SimHash (k <= 3). */
export type NearMethod = 'minhash' | 'simhash';
export const NEAR_METHODS: readonly NearMethod[] = ['minhash', 'simhash'];

export interface ContentManifest {
  format: 'drum-content/1';
  /** Absent in stores written before MinHash: 'simhash'. */
  near?: NearMethod;
  generation: number;
  docs: number;
  urlBytes: number;
  runs: number;
  /** SimHash Hamming threshold (SimHash stores). */
  threshold: number;
  /** Table file names; null while empty. */
  exact: string | null;
  sim: (string | null)[];
  /** MinHash-LSH band table (MinHash stores). */
  bands?: string | null;
  /** CRC-32 of docs.sigs' committed bytes (MinHash stores). */
  sigCrc?: number;
}

export function emptyContentManifest(near: NearMethod, threshold: number): ContentManifest {
  const m: ContentManifest = { format: 'drum-content/1', near, generation: 0, docs: 0, urlBytes: 0, runs: 0, threshold, exact: null, sim: Array(SIM_TABLES).fill(null) };
  if (near === 'minhash') Object.assign(m, { bands: null, sigCrc: 0 });
  return m;
}

export function nearMethodOf(m: ContentManifest): NearMethod {
  return m.near ?? 'simhash';
}

/** The committed table files of a manifest with their kinds (0 exact, 1..4 SimHash table t + 1, 5 bands). */
export function tablesOf(m: ContentManifest): [number, string][] {
  const out: [number, string][] = [];
  if (m.exact !== null) out.push([0, m.exact]);
  m.sim.forEach((s, t) => s !== null && s !== undefined && out.push([t + 1, s]));
  if (m.bands !== undefined && m.bands !== null) out.push([5, m.bands]);
  return out;
}

/** The table file name of a kind (0 exact, 1..4 SimHash table t + 1, 5 bands) in a generation. */
export function tableName(kind: number, generation: number): string {
  return `${kind === 0 ? 'exact' : kind === 5 ? 'bands' : `sim${kind - 1}`}-g${String(generation).padStart(6, '0')}.tbl`;
}

/** The committed manifest of a content directory, or null when there is none. */
export function readContentManifest(dir: string): ContentManifest | null {
  const path = join(dir, CONTENT_MANIFEST);
  let b: Buffer;
  try {
    b = fs.readFileSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new DrumError('DRUM_IO', `cannot read ${path}`, { cause: e, file: path });
  }
  const bad = (what: string): DrumError => new DrumError('DRUM_CORRUPT_FILE', `content manifest ${path}: ${what}`, { file: path });
  if (b.length < CONTENT_HEADER_BYTES || b.readUInt32LE(0) !== CONTENT_MAGIC) throw bad('bad magic');
  if (b.readUInt16LE(4) !== CONTENT_VERSION) throw bad(`version ${b.readUInt16LE(4)}`);
  const len = b.readUInt32LE(8);
  if (b.length !== CONTENT_HEADER_BYTES + len) throw bad('length');
  const body = b.subarray(CONTENT_HEADER_BYTES);
  if ((crc32(body) >>> 0) !== b.readUInt32LE(12)) throw bad('CRC mismatch');
  const m = JSON.parse(body.toString('utf8')) as ContentManifest;
  if (m.format !== 'drum-content/1') throw bad(`format ${String(m.format)}`);
  return m;
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
