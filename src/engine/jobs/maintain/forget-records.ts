// What a forget leaves in the records, and how its host counts come off the
// host table: its manifest history entry (kind 'forget', with its counts),
// its run-catalog record (with the first rejects and their line numbers),
// and the per-host counts of the URLs it removed, applied as negative deltas
// under round 1 of its run. The counts are taken from its forgotten.txt, so
// a crash between the forget's commit and its catalog batch is made good at
// the next writer open (recoverForgetHosts), and `drum repair --catalog`
// subtracts them again (applyForgetHosts): a forget is never undone by a
// rebuilt catalog. Does not read the store or commit the manifest.
// REQUIRES: a catalog open for writing under the writer lock.

import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Catalog, RunRecord } from '../../../catalog/catalog.js';
import { encodeHostMap } from '../../../catalog/hosts/host-delta.js';
import type { ForgetCounts, RunSummary } from '../../../store/manifest.js';
import type { ForgetReject } from '../../api.js';
import { HostCounter } from '../../hosts/host-counter.js';
import { countUniqueFile } from '../../hosts/host-recovery.js';

/** The URLs a forget removed, one per line, in its run's output directory. */
export const FORGOTTEN_FILE = 'forgotten.txt';

/** Rejects a forget's catalog record and report keep (rejects.tsv has them all). */
export const FORGET_REJECTS_KEPT = 100;

/** The host-table round a forget's negative counts go under. */
export const FORGET_HOST_ROUND = 1;

/** A forget's entry in the manifest history. */
export function forgetSummary(runId: string, startedAt: string, outDir: string, inputs: RunSummary['inputs'], f: ForgetCounts): RunSummary {
  return {
    runId, status: 'complete', startedAt, finishedAt: new Date().toISOString(), linksRead: f.asked + f.rejectedLines, uniqueUrls: 0,
    outDir, inputs, kind: 'forget', forget: f,
  };
}

/** A forget's run-catalog record. */
export function forgetRecord(h: RunSummary, rejects: ForgetReject[], options: RunRecord['options']): RunRecord {
  const f = h.forget!;
  return {
    runId: h.runId, startedAt: h.startedAt, finishedAt: h.finishedAt, status: 'complete',
    inputs: h.inputs.map((i) => ({ path: i.path, bytes: i.bytes, sha256: null })),
    counts: { linksRead: h.linksRead, uniqueUrls: 0, duplicateUrls: 0, rejectedLines: f.rejectedLines },
    outDir: h.outDir, outputFiles: [FORGOTTEN_FILE], options, kind: 'forget', forget: { ...f, rejects },
  };
}

/**
 * Subtracts the hosts of a forget's forgotten.txt, and its --host counts, from the host table
 * (idempotent: the catalog refuses a round it has). False when the file is
 * gone (moved away: its counts cannot be taken back) or the round was applied.
 */
export async function applyForgetHosts(catalog: Catalog, h: Pick<RunSummary, 'runId' | 'outDir' | 'forget'>): Promise<boolean> {
  const path = join(h.outDir, FORGOTTEN_FILE);
  const byHost = h.forget?.hosts ?? [];
  if (!fs.existsSync(path) && byHost.length === 0) return false;
  const hosts = new HostCounter();
  if (fs.existsSync(path)) countUniqueFile(path, hosts);
  const m = hosts.takeMap();
  // forget --host removed keys without their URL text: its per-host counts are in the record.
  for (const x of byHost) m.set(x.host, (m.get(x.host) ?? 0) + x.forgotten);
  return applyNegated(catalog, h.runId, m);
}

/** Applies `removed` (URLs per host) as negative counts under the forget's round. */
export async function applyNegated(catalog: Catalog, runId: string, removed: ReadonlyMap<string, number>): Promise<boolean> {
  const neg = new Map<string, number>();
  for (const [h, n] of removed) neg.set(h, -n);
  // Encoded here: the Map form of applyHostCounts refuses negative counts, which only a forget may give.
  return catalog.applyHostCounts(runId, FORGET_HOST_ROUND, encodeHostMap(neg));
}

/** At a writer's open: the last forget of the history whose host counts a crash kept from the catalog gets them now. */
export async function recoverForgetHosts(history: readonly RunSummary[], catalog: Catalog): Promise<boolean> {
  let last: RunSummary | undefined;
  for (const h of history) if (h.kind === 'forget') last = h;
  if (last === undefined || (await catalog.hasRound(last.runId, FORGET_HOST_ROUND))) return false;
  return applyForgetHosts(catalog, last);
}
