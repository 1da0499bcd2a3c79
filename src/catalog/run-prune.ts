// Pruning the run history: the records of runs older than the newest `keep`
// that the caller says may go, with their listing entries. Reads the listing
// a page at a time and commits each page's deletions as one batch, so a
// catalog of millions of runs is pruned in bounded memory; hands each
// page's deleted records to the caller. Does not touch
// host-count round markers (a marker whose delta is not folded yet is what
// makes reads count it; folds are a writer open's, in a child process) and
// does not decide which runs may go (Catalog's caller does).
// REQUIRES: runs inside Catalog's write queue, on a catalog open for writing.

import { del, type Db, type Op, type RunRecord, type Sub } from './records.js';

/** Listing entries read, and their deletions committed, at a time. */
const PRUNE_PAGE = 512;

export interface RunSubs {
  order: Sub<string>;
  runs: Sub<RunRecord>;
}

/**
 * Deletes the removable runs among all but the newest `keep`; returns how
 * many went. `gone`, given, gets each page's deleted records once their
 * deletion is committed (the caller removes what else the runs left).
 */
export async function pruneOldRuns(
  db: Db, subs: RunSubs, keep: number, removable: (r: RunRecord) => boolean, sync: boolean, gone?: (rs: RunRecord[]) => Promise<void>,
): Promise<number> {
  let total = 0;
  for await (const _ of subs.order.iterator({})) total++;
  let older = total - keep;
  let count = 0;
  for (let after: string | null = null; older > 0; ) {
    const page: [string, string][] = [];
    for await (const e of subs.order.iterator({ ...(after === null ? {} : { gt: after }), limit: Math.min(PRUNE_PAGE, older) })) page.push(e);
    if (page.length === 0) break;
    older -= page.length;
    after = page[page.length - 1]![0];
    const recs = await subs.runs.getMany(page.map(([, id]) => id));
    const batch: Op[] = [];
    const deleted: RunRecord[] = [];
    for (let i = 0; i < page.length; i++) {
      const r = recs[i];
      if (r !== undefined && !removable(r)) continue;
      batch.push(del(subs.order, page[i]![0]));
      if (r === undefined) continue;
      batch.push(del(subs.runs, r.runId));
      deleted.push(r);
    }
    if (batch.length > 0) await db.batch(batch as never, { sync });
    count += deleted.length;
    if (deleted.length > 0) await gone?.(deleted);
  }
  return count;
}
