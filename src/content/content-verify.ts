// `drum content --verify` (and the content half of `drum verify`): reads
// every committed file of the content store whole. The maps' bucket files
// (first-doc-map.ts) as the URL store's are read (store/verify.ts: header,
// exact length, every block CRC, strictly ascending keys each in its own
// bucket, a values file of the key file's count), with every docID below the
// document count; the `*.tbl` tables (the SimHash tables, or a
// `drum-content/1` store's exact and band tables) for CRC, order, length and
// docIDs in range; the document log's lengths; the signatures' length and
// CRC-32 (MinHash). Read-only; no lock. Does not repair.
// REQUIRES: nothing.

import { join } from 'node:path';
import { DrumFs } from '../io/fs.js';
import { verifyBucketFiles } from '../store/verify.js';
import { CONTENT_DIR, type AnyContentManifest, mapsOf, nearMethodOf, readContentManifest, tablesOf } from './content-manifest.js';
import { DocLog } from './doc-log.js';
import { DOC_VALUE_BYTES } from './first-doc-map.js';
import { SIGS_FILE, SigFile } from './near/sig-file.js';
import { TableReader } from './near/table-file.js';

export interface ContentVerifyResult {
  sound: boolean;
  problems: string[];
  docs: number;
  /** Files read: tables, and each map's key and values files. */
  tables: number;
}

/** The verify result of stateDir's content store, or null when it has none. */
export function verifyContent(stateDir: string): ContentVerifyResult | null {
  const dir = join(stateDir, CONTENT_DIR);
  let m: AnyContentManifest | null;
  try {
    m = readContentManifest(dir);
  } catch (e) {
    return { sound: false, problems: [messageOf(e)], docs: 0, tables: 0 };
  }
  if (m === null) return null;
  const dfs = new DrumFs();
  const problems: string[] = [];
  const tables = verifyTables(dfs, dir, m, problems) + verifyMaps(dfs, dir, m, problems);
  try {
    const log = new DocLog(dfs, dir, m.docs, m.urlBytes, false);
    log.close();
  } catch (e) {
    problems.push(messageOf(e));
  }
  if (nearMethodOf(m) === 'minhash') {
    try {
      const sigs = new SigFile(dfs, dir, m.docs, m.sigCrc ?? 0, false);
      const crc = sigs.checksum();
      sigs.close();
      if (crc !== (m.sigCrc ?? 0)) problems.push(`content signatures ${join(dir, SIGS_FILE)}: CRC mismatch`);
    } catch (e) {
      problems.push(messageOf(e));
    }
  }
  return { sound: problems.length === 0, problems, docs: m.docs, tables };
}

/** Reads every `*.tbl` table the manifest names; the count read. */
function verifyTables(dfs: DrumFs, dir: string, m: AnyContentManifest, problems: string[]): number {
  let n = 0;
  for (const [kind, name] of tablesOf(m)) {
    n++;
    let r: TableReader | null = null;
    try {
      r = new TableReader(dfs, join(dir, name), kind);
      for (; r.has; r.next()) if (r.doc >= m.docs) throw new Error(`${name}: docID ${r.doc} beyond ${m.docs} documents`);
    } catch (e) {
      problems.push(messageOf(e));
    } finally {
      r?.close();
    }
  }
  return n;
}

/** Reads every bucket file of the maps (format 2); the count read. */
function verifyMaps(dfs: DrumFs, dir: string, m: AnyContentManifest, problems: string[]): number {
  if (m.format !== 'drum-content/2') return 0;
  let n = 0;
  const docs = m.docs;
  const values = (vals: Uint32Array, count: number): string | null => {
    for (let i = 0; i < count; i++) if (vals[i]! >= docs) return `docID ${vals[i]} beyond ${docs} documents`;
    return null;
  };
  for (const [name, files] of mapsOf(m)) {
    const r = verifyBucketFiles(dfs, dir, files.files, { buckets: files.buckets, valueBytes: DOC_VALUE_BYTES, values });
    n += r.filesChecked;
    for (const p of r.problems) problems.push(`content ${name} map: ${p.message.startsWith(p.file) ? p.message : `${p.file}: ${p.message}`}`);
  }
  return n;
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
