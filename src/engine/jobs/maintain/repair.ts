// `drum repair`: rebuilds what the store can be rebuilt from, never touching
// the key files. The Bloom filter holds nothing the store lacks: it is
// rebuilt from every key file and the key journal and committed under a new
// name. The URL log's index holds nothing its segments lack: it is rebuilt
// from their blocks and its length committed in a new manifest. The run
// catalog is left as it is when sound, and rebuilt when damaged or missing
// (repair-catalog.ts: the runs' own records salvaged from the old catalog
// where the manifest agrees with them, records rebuilt from the store for
// the rest, host counts recounted from the runs' unique files).
// REQUIRES: the key files verify (else DRUM_CORRUPT_FILE).

import { join } from 'node:path';
import { DrumError } from '../../../errors.js';
import { DrumFs, type FaultHook } from '../../../io/fs.js';
import { KeyReader, READ_BUFFER_BYTES } from '../../../store/keys/key-reader.js';
import { acquireLock } from '../../../store/lock.js';
import { readManifest, writeManifest, type ManifestBody } from '../../../store/manifest.js';
import { verifyKeyFiles } from '../../../store/verify.js';
import { openJournal } from '../../../store/journal/journal-file.js';
import { rebuildUrlIndex } from '../../../store/url-log/url-log-rebuild.js';
import { BlockedBloom } from '../../../tiers/bloom.js';
import { writeBloom } from '../../../tiers/bloom-file.js';
import { repairCatalog, type CatalogRepair } from './repair-catalog.js';

export interface RepairResult {
  bloom: { file: string; keys: number; bitsPerKey: number } | null;
  /** What `--catalog` did (repair-catalog.ts); `rebuilt` false: the catalog was sound and nothing changed. */
  catalog: CatalogRepair | null;
  /** The URL log's index as rebuilt: one entry per block of its segments (null: not asked, or a store without a URL log). */
  urlIndex: { blocks: number; docs: number } | null;
}

/** `io.faultHook`: the fault seam of src/io/fs.ts (tests inject OS errors through it). */
export async function repair(
  stateDir: string, what: { bloom?: boolean; catalog?: boolean; urlIndex?: boolean; bloomBitsPerKey?: number }, io: { faultHook?: FaultHook } = {},
): Promise<RepairResult> {
  if (readManifest(stateDir) === null) throw new DrumError('DRUM_NOT_FOUND', `no drum store at ${stateDir}`, { file: stateDir });
  const lock = await acquireLock(stateDir);
  const dfs = new DrumFs(undefined, io.faultHook ?? null);
  try {
    const body = readManifest(stateDir)!; // again, under the lock
    const v = verifyKeyFiles(dfs, stateDir, body);
    if (!v.ok) {
      const p = v.problems[0]!;
      throw new DrumError('DRUM_CORRUPT_FILE', `cannot repair from a damaged store: ${p.file}: ${p.message}`, { file: p.file });
    }
    const out: RepairResult = { bloom: null, catalog: null, urlIndex: null };
    if (what.urlIndex) out.urlIndex = rebuildIndex(dfs, stateDir, body);
    if (what.bloom) out.bloom = await rebuildBloom(dfs, stateDir, readManifest(stateDir)!, what.bloomBitsPerKey);
    if (what.catalog) out.catalog = await repairCatalog(dfs, stateDir, readManifest(stateDir)!);
    return out;
  } finally {
    await lock.release();
  }
}

function rebuildIndex(dfs: DrumFs, dir: string, body: ManifestBody): RepairResult['urlIndex'] {
  if (body.urlLog === undefined) return null;
  const r = rebuildUrlIndex(dfs, dir, body.urlLog, true);
  if (r.point.indexBytes !== body.urlLog.indexBytes) writeManifest(dfs, dir, { ...body, commit: body.commit + 1, urlLog: r.point }, true);
  return { blocks: r.blocks, docs: r.point.docs };
}

async function rebuildBloom(dfs: DrumFs, dir: string, body: ManifestBody, bits?: number): Promise<RepairResult['bloom']> {
  const bitsPerKey = bits ?? body.bloom?.bitsPerKey ?? 10;
  const bloom = BlockedBloom.forStore(body.storeUrls, bitsPerKey);
  const buffer = new Uint8Array(READ_BUFFER_BYTES);
  body.buckets.forEach((e, b) => {
    if (!e) return;
    const r = KeyReader.open(dfs, join(dir, e.file), { bucket: b, keys: e.keys }, e.bytes, buffer);
    try {
      while (r.nextBlock()) bloom.addPairs(r.keys, r.n);
    } finally {
      r.close();
    }
  });
  // The key journal's keys are stored too: while the key files are empty they are every stored key.
  const journal = openJournal(dfs, dir, body.journal, (body.params.valueBytes ?? 0) / 4, 0);
  if (journal !== null) bloom.addPairs(journal.keys, journal.count);
  const commit = body.commit + 1;
  const file = `bloom-g${String(commit).padStart(6, '0')}.bloom`;
  await writeBloom(dfs, join(dir, file), bloom, { fsync: true });
  const entry = { file, keys: bloom.keys, bitsPerKey };
  writeManifest(dfs, dir, { ...body, commit, bloom: entry }, true);
  if (body.bloom && body.bloom.file !== file) dfs.unlink(join(dir, body.bloom.file));
  return entry;
}
