// `drum compact` / Drum.compact(): does now, at a time the operator picks,
// the three deferred merges drum otherwise does when it must: the key journal
// merged into the key files (the fold a merging round, forget or upgrade
// would run first; journal-round.ts, here writing the values of the buckets
// it touches whole, and rebuilding the Bloom file with the session's Bloom
// mode or dropping it without one), the values deltas folded into one values file per
// bucket (the fold a round writing a bucket whole does; fold-values.ts) and
// the pending host-count deltas folded into the host table (the fold a
// writer's open runs once they are due, catalog/hosts/fold-policy.ts;
// fold-child.ts). A store that fails the check before a write
// (ingest.ts refuseBadStore) is refused first, with nothing changed. Each
// merge is crash-safe on its own, like the
// automatic one; nothing is ingested and no run is recorded. Does not
// rewrite key files the journal does not touch, and does not compact
// LevelDB's own tables beyond what a host fold does.
// REQUIRES: a writer session with no round pending (Drum.job ends the run
// of add() calls first).

import type { Session } from '../../session/session.js';
import { foldJournal } from '../../url-seen/journal-round.js';
import { refuseBadStore } from '../ingest/ingest.js';
import { foldValueDeltas } from './fold-values.js';

export interface CompactResult {
  /** Journal keys merged into the key files (0: the journal was empty). */
  journalKeys: number;
  /** Values delta files folded into values files: those the store named when the compaction began (0: no bucket had any). */
  valueDeltas: number;
  /** Host-count deltas (round parts) folded into the host table: by this compaction, and when it is the first job of an open store, by that open, which folds them once they are due (catalog/hosts/fold-policy.ts; 0: none were). */
  hostDeltas: number;
  /** URLs in the store afterwards (unchanged by a compaction). */
  storeUrls: number;
  /** Wall time of the compaction, in milliseconds (with the open's fold when hostDeltas counts it). */
  ms: number;
}

/** Folds the key journal, then the pending host counts; see the header. */
export async function compactJob(s: Session, withOpenFold = false): Promise<CompactResult> {
  const t0 = performance.now();
  const journalKeys = s.store.body.journal === undefined ? 0 : s.store.body.journal.keys;
  const deltas = (): number => s.store.body.buckets.reduce((a, e) => a + (e?.values?.deltas?.length ?? 0), 0);
  const named = deltas();
  if (journalKeys > 0 || named > 0) {
    // A commit is about to name new store files: refuse a damaged store first, as ingest and forget do.
    await refuseBadStore(s);
  }
  // The journal's fold writes the values of the buckets it touches whole (their deltas with them), rather than
  // deltas the values fold would read back at once; the values fold then takes the other buckets' deltas.
  if (journalKeys > 0) await foldJournal(s, undefined, true);
  const valueDeltas = named - deltas() + (await foldValueDeltas(s));
  // `drum compact` opens the store first, and an open folds the deltas once enough are pending (`withOpenFold`: this
  // compaction is the open store's first job, so that fold was done for it).
  const atOpen = (withOpenFold ? s.foldedAtOpen : null) ?? { deltas: 0, ms: 0 };
  const hostDeltas = (await s.foldHostCounts()) + atOpen.deltas;
  return { journalKeys, valueDeltas, hostDeltas, storeUrls: s.store.body.storeUrls, ms: Math.round(performance.now() - t0 + atOpen.ms) };
}
