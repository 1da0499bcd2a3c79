// Finishes a host-table fold of the legacy layout that a crash cut short:
// catalogs written before the table file kept the table in the sublevel
// `hosts` and folded the deltas into it one hash slice per batch, recording
// {keys, slices, done} (sublevel hostFold, key FOLD_KEY) in each slice's
// batch. This adds the remaining slices the same way, then deletes the
// folded deltas and the record in one batch. Does not move the table into a
// file (the next fold does, host-fold.ts) and starts no new legacy fold.
// REQUIRES: runs inside Catalog's write queue; `start` is the recorded state.

import { forEachHostIn } from './host-delta.js';
import { del, type Op, type Sub } from '../records.js';
import type { HostTable } from './host-table.js';

export const FOLD_KEY = 'fold';

/** A fold in progress: which delta keys, into how many slices, how many are in the table. */
export interface FoldState {
  keys: string[];
  slices: number;
  done: number;
}

/** Finishes a fold into the legacy sublevel that a crash cut short (catalogs written before the table file). */
export async function finishLegacyFold(t: HostTable, start: FoldState): Promise<void> {
  let st = start;
  const inFold = new Set(st.keys);
  for (let s = st.done; s < st.slices; s++) {
    const sum = new Map<string, number>();
    for await (const [k, delta] of t.deltas.iterator()) {
      if (inFold.has(k)) forEachHostIn(delta, s, st.slices, (h, n) => sum.set(h, (sum.get(h) ?? 0) + n), t.dir);
    }
    const names = [...sum.keys()];
    const olds = names.length > 0 ? await t.hosts.getMany(names) : [];
    const batch = t.db.batch();
    for (let i = 0; i < names.length; i++) {
      const h = names[i]!;
      batch.put(h, (olds[i] ?? 0) + sum.get(h)!, { sublevel: t.hosts } as never);
    }
    sum.clear();
    st = { ...st, done: s + 1 };
    batch.put(FOLD_KEY, st, { sublevel: t.fold } as never);
    await batch.write({ sync: t.sync } as never);
  }
  const end: Op[] = st.keys.map((k) => del(t.deltas, k));
  end.push(del(t.fold as Sub<unknown>, FOLD_KEY));
  await t.db.batch(end as never, { sync: t.sync });
}
