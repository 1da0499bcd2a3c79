// `drum repair --catalog`: the run catalog is first read whole as `drum
// verify` reads it: a sound one is left as it is (its records are the
// runs' own, which a rebuild cannot match), one that cannot be checked
// (DRUM_IO) too. A damaged or missing one is moved aside (never deleted)
// and a fresh one is filled, in the order the runs started, with
// - each run record salvaged from the old catalog (salvage.ts) that the
//   manifest's run history agrees with, as the run wrote it;
// - a record rebuilt from what the store keeps (rebuilt-records.ts: unknown
//   counts null, never 0) for each other run of the history;
// - the salvaged records of runs older than the history's (the manifest
//   keeps the last 20), and of runs that committed nothing;
// and the host counts of each complete run's surviving unique-*.txt files,
// less those of each forget's forgotten.txt. A marker file stands for the
// whole rebuild, so one cut short is refused by writers and verify until it
// is run again (rebuild-marker.ts); run again, it salvages from the catalog
// the marker names, the one the first attempt replaced, not from its own
// partial work. Does not touch the key files or the
// manifest. REQUIRES: the store's writer lock is held and its key files verify.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { Catalog, type RunRecord } from '../../../catalog/catalog.js';
import { clearRebuild, markRebuild, unfinishedRebuild } from '../../../catalog/rebuild-marker.js';
import { salvageRunRecords } from '../../../catalog/salvage.js';
import { DrumError } from '../../../errors.js';
import type { DrumFs } from '../../../io/fs.js';
import { listUniqueFiles } from '../../../output/unique-writer.js';
import type { ManifestBody, RunSummary } from '../../../store/manifest.js';
import { HostCounter } from '../../hosts/host-counter.js';
import { countUniqueFile, recoverHostCounts } from '../../hosts/host-recovery.js';
import { applyForgetHosts } from './forget-records.js';
import { rebuiltRecord } from './rebuilt-records.js';
import { checkCatalog } from './verify-catalog.js';

export interface CatalogRepair {
  /** False: the catalog was sound and nothing changed (movedTo null, the counts 0). */
  rebuilt: boolean;
  /** Where the old catalog went. */
  movedTo: string | null;
  /** Run records written to the new catalog. */
  runs: number;
  /** Of them, the runs' own records salvaged from the old catalog. */
  salvaged: number;
  /** Why nothing could be salvaged from the old catalog (null: it was read, or there was none). */
  salvageError: string | null;
  /** Runs whose host counts were recounted from their unique files (or taken off by a forget). */
  hostRuns: number;
  /** Records whose duplicate and rejected counts are unknown (null in them: rebuilt from a store that did not keep them). */
  countsUnknown: number;
}

/** Scratch copy of the old catalog while LevelDB repairs it (removed again; one left by a repair cut short goes at the next). */
const SALVAGE_DIR = 'catalog.salvage.tmp';

/** Rebuilds the catalog when `drum verify` would find it damaged or missing (or a rebuild unfinished); leaves a sound one. */
export async function repairCatalog(dfs: DrumFs, dir: string, body: ManifestBody): Promise<CatalogRepair> {
  // Committed rounds of a first run, not yet in the history, have host counts in the catalog too.
  const committed = body.history.length > 0 || (body.run !== null && body.run.rounds > 0);
  const problem = await checkCatalog(dir, committed, true);
  if (problem === null) return { rebuilt: false, movedTo: null, runs: 0, salvaged: 0, salvageError: null, hostRuns: 0, countsUnknown: 0 };
  // Not read for an OS reason (permissions, descriptors): it may well be sound, and its records are the only whole ones.
  if (problem.code === 'DRUM_IO') throw new DrumError('DRUM_IO', `cannot read the run catalog to check it, so it is left as it is: ${problem.message}`, { file: problem.file });
  return resetCatalog(dfs, dir, body);
}

/** A record to write, with what its host counts come from. */
interface Entry {
  rec: RunRecord;
  hosts: Pick<RunSummary, 'runId' | 'outDir' | 'forget'>;
}

/** True when a salvaged record is the run the history entry describes (then it is the run's own, whole). */
function agrees(r: RunRecord, h: RunSummary): boolean {
  return r.runId === h.runId && r.kind === h.kind && r.outDir === h.outDir
    && (r.status === 'complete') === (h.status === 'complete') && r.counts.linksRead === h.linksRead
    && (h.kind === 'forget' ? r.forget?.forgotten === h.forget?.forgotten : r.counts.uniqueUrls === h.uniqueUrls);
}

/** The records of the new catalog in the order the runs started, from the manifest and what was salvaged. */
function chooseRecords(body: ManifestBody, salvaged: readonly RunRecord[]): { entries: Entry[]; own: number } {
  const own = new Map(salvaged.map((r) => [r.runId, r]));
  const entries: Entry[] = [];
  let kept = 0;
  for (const h of body.history) {
    const r = own.get(h.runId);
    const whole = r !== undefined && agrees(r, h);
    if (whole) kept++;
    entries.push({ rec: whole ? r : rebuiltRecord(h, body, 'repair'), hosts: h });
  }
  const named = new Set(body.history.map((h) => h.runId));
  const oldest = body.history.reduce((m, h) => (h.startedAt < m ? h.startedAt : m), '\uffff');
  for (const r of salvaged) {
    if (named.has(r.runId)) continue;
    // Older than the manifest remembers, or a run that committed nothing: the old catalog is all there is of it.
    // A complete run the manifest would remember, and does not, is not the store's: left out.
    if (r.startedAt < oldest || r.status !== 'complete') {
      entries.push({ rec: r, hosts: r });
      kept++;
    }
  }
  entries.sort((a, b) => (a.rec.startedAt < b.rec.startedAt ? -1 : a.rec.startedAt > b.rec.startedAt ? 1 : 0));
  return { entries, own: kept };
}

async function resetCatalog(dfs: DrumFs, dir: string, body: ManifestBody): Promise<CatalogRepair> {
  const cat = join(dir, 'catalog');
  const movedTo = join(dir, `catalog.damaged-${new Date().toISOString().replace(/[:.]/g, '')}`);
  // A rebuild cut short left a catalog of its own making: the runs' records are in the one it replaced, which the marker names.
  const cut = unfinishedRebuild(dir);
  const original = cut !== null && cut !== '' && fs.existsSync(cut) ? cut : null;
  // Until the rebuilt catalog holds every run's host counts, writers and verify refuse it (rebuild-marker.ts).
  markRebuild(dfs, dir, original ?? movedTo, true);
  // A failed move (EBUSY, EACCES, ...) is DRUM_IO and leaves the catalog where it was, whole: no rebuild began.
  const old = fs.existsSync(cat);
  if (old) {
    try {
      dfs.rename(cat, movedTo);
    } catch (e) {
      clearRebuild(dfs, dir, true);
      throw e;
    }
  }
  const source = original ?? (old ? movedTo : null);
  const salvage = source !== null ? await salvageRunRecords(source, join(dir, SALVAGE_DIR)) : { records: [], error: null };
  const { entries, own } = chooseRecords(body, salvage.records);
  const c = await Catalog.open(dir, { sync: true, faultHook: dfs.faultHook });
  let hostRuns = 0;
  let countsUnknown = 0;
  // The manifest's current run (finished or not) is counted as a writer's host recovery counts a round:
  // its committed unique-file bytes, marked at its last round, so the next writer does not count them again.
  const current = body.run !== null && body.run.rounds > 0 && (body.run.status === 'running' || body.run.status === 'complete') ? body.run : null;
  try {
    for (const { rec, hosts } of entries) {
      if (rec.counts.duplicateUrls === null) countsUnknown++;
      await c.putRun(rec);
      if (rec.kind === 'forget') {
        // Its forgotten URLs come off the counts again: a rebuilt catalog never undoes a forget.
        if (await applyForgetHosts(c, hosts)) hostRuns++;
        continue;
      }
      const files = rec.status === 'complete' && rec.runId !== current?.runId ? listUniqueFiles(rec.outDir) : [];
      if (files.length === 0) continue;
      const counter = new HostCounter();
      for (const f of files) countUniqueFile(join(rec.outDir, f.name), counter);
      await c.applyHostCounts(rec.runId, 0, counter.take());
      hostRuns++;
    }
    if (current !== null && (await recoverHostCounts({ ...current, lastRoundFrom: { file: 1, bytes: 0 } }, c))) hostRuns++;
  } finally {
    await c.close();
  }
  clearRebuild(dfs, dir, true);
  return { rebuilt: true, movedTo, runs: entries.length, salvaged: own, salvageError: salvage.error, hostRuns, countsUnknown };
}
