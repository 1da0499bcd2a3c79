// Dropping the host-count round markers no recovery can ask about. A marker
// (`<runId>|<round>`, sublevel rounds) does two jobs: it makes reads count
// its round's pending delta (an unmarked delta is a crashed apply's
// leftover), and it makes a redo of an applied round a no-op. Once a fold
// has taken every pending delta, only the second job is left, and only the
// runs the manifest still names can be redone (the last round of its
// current run, the last forget of its history). Without this, a process that
// runs a round a second (drum serve) kept ~50 bytes a round for ever.
// Does not fold, and does not decide which runs stay (the caller, who holds
// the manifest, does).
// REQUIRES: runs inside Catalog's write queue, right after a fold committed
// with no delta left pending (so no marker here still marks a delta).

import { del, type Db, type Op, type Sub } from '../records.js';

/** Marker deletions committed at a time. */
const PRUNE_BATCH = 1024;

/** The run a marker belongs to (run ids hold no `|`; the round follows the last one). */
function runOf(marker: string): string {
  const i = marker.lastIndexOf('|');
  return i < 0 ? marker : marker.slice(0, i);
}

/** Deletes every round marker whose run is not in `keepRuns`; returns how many went. */
export async function pruneRoundMarkers(db: Db, rounds: Sub<number>, keepRuns: ReadonlySet<string>, sync: boolean): Promise<number> {
  let gone = 0;
  let batch: Op[] = [];
  for await (const [marker] of rounds.iterator()) {
    if (keepRuns.has(runOf(marker))) continue;
    batch.push(del(rounds, marker));
    if (batch.length < PRUNE_BATCH) continue;
    await db.batch(batch as never, { sync });
    gone += batch.length;
    batch = [];
  }
  if (batch.length > 0) await db.batch(batch as never, { sync });
  return gone + batch.length;
}
