// When the pending per-round host deltas are folded into the host table:
// the rule a writer's open and a long-running process's library runs apply.
// A fold rewrites the whole table (host-fold.ts) and reads every pending
// delta, so its cost is the table's bytes plus the deltas'. Folding after a
// fixed number of deltas rewrites a table that grows with the store again
// and again for the same few deltas; folding once the pending deltas' bytes
// reach the table's (a size ratio, as an LSM tree sets its levels) keeps a
// fold's rewrite of the table paid for by as many bytes of new deltas, and
// keeps what a read of the table and its deltas costs (drum hosts, stats,
// verify) within twice the table. A floor of parts keeps small folds from
// running after every round; a ceiling keeps the delta files a read opens
// bounded however small the rounds. Decides only: does not read the
// catalog (host-table.ts pendingShape does) nor fold.
// REQUIRES: nothing.

/** A writer's open folds no fewer pending deltas (round parts) than this. */
export const DELTAS_BEFORE_FOLD = 64;

/** Pending deltas (round parts) at which a fold is due whatever their bytes. */
export const MAX_PENDING_DELTAS = 4096;

/** A fold is due once the pending deltas' bytes reach this fraction of the table file's bytes. */
export const FOLD_TABLE_RATIO = 1;

/** The pending deltas and the table they would be folded into. */
export interface PendingShape {
  /** Deltas (round parts) of completed rounds not yet folded. */
  parts: number;
  /** Their bytes; Infinity for parts kept as LevelDB values by catalogs written before the round delta files. */
  bytes: number;
  /** Bytes of the current host table file (0: no file yet). */
  tableBytes: number;
}

/** Whether `p` is due for a fold, with at least `minParts` parts pending (the caller's floor). */
export function foldDue(p: PendingShape, minParts: number): boolean {
  if (p.parts === 0 || p.parts < minParts) return false;
  return p.parts >= Math.max(minParts, MAX_PENDING_DELTAS) || p.bytes >= FOLD_TABLE_RATIO * p.tableBytes;
}
