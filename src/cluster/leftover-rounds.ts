// The output directories of a shard's rounds that a crash (or a failure that
// stopped the shard) cut short. Every round is a library run recorded with
// this shard's runOptions (`shard: 'I/N'`); a confirmed round's directory is
// removed by the round itself. At the shard's start, before any run of its
// own, the manifest's last run is the round the previous process left: when
// it is this shard's and its directory `<state>/runs/<run-id>/` is still
// there, its run id goes on the leftover list in shard.json (durably, before
// the next run abandons that run into the history, where its options are no
// longer recorded). Once a round of the restarted shard that made a run is
// confirmed, the listed directories go, then the list: by then that run's
// start has cut the crashed run's files back and recovered its host counts
// (the last readers of them), and the crashed round's new URLs are in the
// stream (the outbox round published them) or were never committed (its
// links were redelivered). A crash in the middle leaves the list, and the
// next start removes the rest. A directory that cannot be removed stays
// listed (a notice says why) and is tried again after the next restart.
// Does not touch a run that is not recorded as this shard's (an ingest, a
// library program's run, another shard's), nor one whose directory was named
// elsewhere, nor a round of the running process.
// REQUIRES: the caller holds the store's writer lock; noteCrashedRound runs
// before the shard's first run.

import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readManifest } from '../store/manifest.js';
import type { ShardState } from './shard-state.js';

/** The runOptions a shard's rounds are recorded with: which shard of how many made them. */
export function shardRunOptions(shard: number, shards: number): Record<string, string> {
  return { shard: `${shard}/${shards}` };
}

/** Where a library run of this state keeps its outputs. */
function roundDir(stateDir: string, runId: string): string {
  return join(resolve(stateDir), 'runs', runId);
}

/**
 * At the shard's start: lists the manifest's last run when it is a round of
 * this shard whose directory is still there (the process before was cut
 * short in that round, or between its confirmation and the removal).
 */
export function noteCrashedRound(state: ShardState, stateDir: string): void {
  const run = readManifest(stateDir)?.run ?? null;
  if (run === null) return;
  const mine = shardRunOptions(state.meta.shard, state.meta.shards);
  if (run.options['format'] !== 'library' || run.options['shard'] !== mine['shard']) return;
  const dir = roundDir(stateDir, run.runId);
  if (run.outDir !== dir || !existsSync(dir)) return;
  const listed = state.meta.leftover ?? [];
  if (!listed.includes(run.runId)) state.setLeftover([...listed, run.runId]);
}

/**
 * After a confirmed round that made a run: removes the listed directories,
 * then records what is left of the list (those that could not go).
 */
export function removeLeftoverRounds(state: ShardState, stateDir: string, onNotice: (message: string) => void): void {
  const listed = state.meta.leftover ?? [];
  if (listed.length === 0) return;
  const kept: string[] = [];
  for (const runId of listed) {
    const dir = roundDir(stateDir, runId);
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch (e) {
      kept.push(runId);
      onNotice(`could not remove ${dir}, a round a crash cut short (tried again after a restart): ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
    }
  }
  state.setLeftover(kept);
}
