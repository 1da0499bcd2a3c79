// `drum repair`: rebuilds what the store can be rebuilt from, never touching
// the key files. The Bloom filter holds nothing the store lacks: it is
// rebuilt from every key file and the key journal and committed under a new
// name. The URL log's index holds nothing its segments lack: it is rebuilt
// from their blocks and its length committed in a new manifest. The run catalog is first
// read whole as `drum verify` reads it: a sound one is left as it is (its
// records are the runs' own, which a rebuild cannot match), one that
// cannot be checked (DRUM_IO) too. A damaged or missing one is moved aside
// (never deleted) and a fresh one is filled with the records of the
// manifest's run history, each rebuilt from what the store keeps of the run
// (rebuilt-records.ts: unknown counts null, never 0), and the host counts of
// each run's surviving unique-*.txt files, less those of each forget's
// forgotten.txt; a marker file stands for the whole rebuild, so one cut
// short is refused by writers and verify until it is run again
// (rebuild-marker.ts). REQUIRES: the key files verify (else DRUM_CORRUPT_FILE).

import * as fs from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../../catalog/catalog.js';
import { clearRebuild, markRebuild } from '../../../catalog/rebuild-marker.js';
import { DrumError } from '../../../errors.js';
import { DrumFs, type FaultHook } from '../../../io/fs.js';
import { listUniqueFiles } from '../../../output/unique-writer.js';
import { KeyReader, READ_BUFFER_BYTES } from '../../../store/keys/key-reader.js';
import { acquireLock } from '../../../store/lock.js';
import { readManifest, writeManifest, type ManifestBody } from '../../../store/manifest.js';
import { verifyKeyFiles } from '../../../store/verify.js';
import { openJournal } from '../../../store/journal/journal-file.js';
import { rebuildUrlIndex } from '../../../store/url-log/url-log-rebuild.js';
import { BlockedBloom } from '../../../tiers/bloom.js';
import { writeBloom } from '../../../tiers/bloom-file.js';
import { HostCounter } from '../../hosts/host-counter.js';
import { countUniqueFile, recoverHostCounts } from '../../hosts/host-recovery.js';
import { applyForgetHosts } from './forget-records.js';
import { rebuiltRecord } from './rebuilt-records.js';
import { checkCatalog } from './verify-catalog.js';

export interface RepairResult {
  bloom: { file: string; keys: number; bitsPerKey: number } | null;
  /**
   * `rebuilt` false: the catalog was sound and nothing changed (movedTo null, the counts 0). Else where
   * the old one went, the runs recorded again, the runs whose host counts were recounted, and the runs
   * whose duplicate and rejected counts the store did not keep (null in their records).
   */
  catalog: { rebuilt: boolean; movedTo: string | null; runs: number; hostRuns: number; countsUnknown: number } | null;
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

/** Rebuilds the catalog when `drum verify` would find it damaged or missing (or a rebuild unfinished); leaves a sound one. */
async function repairCatalog(dfs: DrumFs, dir: string, body: ManifestBody): Promise<NonNullable<RepairResult['catalog']>> {
  // Committed rounds of a first run, not yet in the history, have host counts in the catalog too.
  const committed = body.history.length > 0 || (body.run !== null && body.run.rounds > 0);
  const problem = await checkCatalog(dir, committed, true);
  if (problem === null) return { rebuilt: false, movedTo: null, runs: 0, hostRuns: 0, countsUnknown: 0 };
  // Not read for an OS reason (permissions, descriptors): it may well be sound, and its records are the only whole ones.
  if (problem.code === 'DRUM_IO') throw new DrumError('DRUM_IO', `cannot read the run catalog to check it, so it is left as it is: ${problem.message}`, { file: problem.file });
  return resetCatalog(dfs, dir, body);
}

async function resetCatalog(dfs: DrumFs, dir: string, body: ManifestBody): Promise<NonNullable<RepairResult['catalog']>> {
  const cat = join(dir, 'catalog');
  const movedTo = join(dir, `catalog.damaged-${new Date().toISOString().replace(/[:.]/g, '')}`);
  // Until the rebuilt catalog holds every run's host counts, writers and verify refuse it (rebuild-marker.ts).
  markRebuild(dfs, dir, movedTo, true);
  // A failed move (EBUSY, EACCES, ...) is DRUM_IO and leaves the catalog where it was, whole: no rebuild began.
  if (fs.existsSync(cat)) {
    try {
      dfs.rename(cat, movedTo);
    } catch (e) {
      clearRebuild(dfs, dir, true);
      throw e;
    }
  }
  const c = await Catalog.open(dir, { sync: true, faultHook: dfs.faultHook });
  let hostRuns = 0;
  let countsUnknown = 0;
  // The manifest's current run (finished or not) is counted as a writer's host recovery counts a round:
  // its committed unique-file bytes, marked at its last round, so the next writer does not count them again.
  const current = body.run !== null && body.run.rounds > 0 && (body.run.status === 'running' || body.run.status === 'complete') ? body.run : null;
  try {
    for (const h of body.history) {
      const rec = rebuiltRecord(h, body, 'repair');
      if (rec.counts.duplicateUrls === null) countsUnknown++;
      await c.putRun(rec);
      if (h.kind === 'forget') {
        // Its forgotten URLs come off the counts again: a rebuilt catalog never undoes a forget.
        if (await applyForgetHosts(c, h)) hostRuns++;
        continue;
      }
      const files = listUniqueFiles(h.outDir);
      if (h.status !== 'complete' || files.length === 0 || h.runId === current?.runId) continue;
      const hosts = new HostCounter();
      for (const f of files) countUniqueFile(join(h.outDir, f.name), hosts);
      await c.applyHostCounts(h.runId, 0, hosts.take());
      hostRuns++;
    }
    if (current !== null && (await recoverHostCounts({ ...current, lastRoundFrom: { file: 1, bytes: 0 } }, c))) hostRuns++;
  } finally {
    await c.close();
  }
  clearRebuild(dfs, dir, true);
  return { rebuilt: true, movedTo, runs: body.history.length, hostRuns, countsUnknown };
}
