// The host table's reads behind Catalog: one host's count, the top hosts,
// and every host in name order, each the table (the current file, or the
// LevelDB sublevel of catalogs written before it) plus the pending deltas
// of completed rounds (host-table.ts forEachPending). Does not write or
// fold (host-table.ts, host-fold.ts do).
// REQUIRES: runs inside Catalog's read path, on an open catalog.

import { join } from 'node:path';
import { CURRENT_KEY, HOST_DIR } from './host-fold.js';
import { HostFileReader } from './host-file.js';
import { forEachPending, pendingEntries, type HostTable } from './host-table.js';
import { topHosts, type EntryScan } from './top-hosts.js';
import type { HostCount } from '../records.js';

/** The current table file, or null while the table is still the legacy sublevel. */
async function tableFile(t: HostTable): Promise<HostFileReader | null> {
  const cur = await t.pointer.get(CURRENT_KEY);
  return cur === undefined ? null : HostFileReader.open(join(t.stateDir, HOST_DIR, cur.name));
}

/** Every (host, count) of the table, in name order. */
async function* tableEntries(t: HostTable): AsyncGenerator<[string, number]> {
  const f = await tableFile(t);
  if (f === null) {
    yield* t.hosts.iterator();
    return;
  }
  try {
    yield* f.entries();
  } finally {
    f.close();
  }
}

/** Unique URLs of one host: its table entry plus the deltas not yet in it. */
export async function hostCountOf(t: HostTable, host: string): Promise<number> {
  const f = await tableFile(t);
  let n: number;
  if (f === null) n = (await t.hosts.get(host)) ?? 0;
  else {
    try {
      n = f.get(host);
    } finally {
      f.close();
    }
  }
  await forEachPending(t, (_, c) => void (n += c), host); // called for `host`'s entries only
  return n;
}

/** Every host of the pending deltas with the sum of its counts there. */
async function pendingCounts(t: HostTable): Promise<Map<string, number>> {
  const pending = new Map<string, number>();
  await forEachPending(t, (h, c) => pending.set(h, (pending.get(h) ?? 0) + c));
  return pending;
}

/** The n hosts with most URLs (table plus pending deltas; hosts at 0 left out), without a map of every pending host (top-hosts.ts). */
export async function topHostCounts(t: HostTable, n: number): Promise<HostCount[]> {
  const f = await tableFile(t);
  const table: EntryScan = f === null
    ? async (fn) => {
      for await (const [h, c] of t.hosts.iterator()) {
        const b = Buffer.from(h, 'latin1');
        fn(b, 0, b.length, c);
      }
    }
    : async (fn) => f.forEachEntry(fn);
  try {
    const pending = await pendingEntries(t);
    return await topHosts({ table, pending: pending.scan, pendingEntries: pending.entries }, n);
  } finally {
    f?.close();
  }
}

/** Every host and its count in name order: the table merged with the sorted pending hosts. */
export async function* sortedHostCounts(t: HostTable): AsyncGenerator<[string, number]> {
  const pending = await pendingCounts(t);
  const names = [...pending.keys()].sort();
  let j = 0;
  for await (const [h, c] of tableEntries(t)) {
    while (j < names.length && names[j]! < h) yield [names[j]!, pending.get(names[j++]!)!];
    if (j < names.length && names[j] === h) yield [h, c + pending.get(names[j++]!)!];
    else yield [h, c];
  }
  while (j < names.length) yield [names[j]!, pending.get(names[j++]!)!];
}
