// The host table's LevelDB logic behind Catalog: applying one round's
// host-count parts in bounded batches, folding the per-round deltas into the
// host table file (host-fold.ts), and the reads that see exactly the counts
// of completed rounds: the table plus the pending deltas. Does not open or
// close the database or serialize writers (Catalog does: every function here
// that writes must run inside Catalog's write queue).
//
// Crash safety without one giant batch:
// - A round's parts are `${marker}#NNNNNN` keys written in batches of about
//   `batchBytes`; the round marker goes in the LAST batch. A delta whose
//   round has no marker is ignored by every read and fold, and a redo of the
//   round first deletes those leftovers, so a crash between batches neither
//   shows partial counts nor double counts after the redo.
// - A fold writes a whole new table file and commits it with the deletion
//   of its deltas in one batch (host-fold.ts).
// - Catalogs written before the table file kept the table in the sublevel
//   `hosts` and folded into it slice by slice, recording {keys, slices, done}
//   (sublevel hostFold) in each slice's batch; until the deltas were deleted,
//   reads skip a folded delta for hosts of slices < done. Such a fold cut
//   short is finished the old way first (finishLegacyFold); the next fold
//   moves the sublevel into a file.

import { encodeHostMap, forEachHost, forEachHostIn, hostSlice } from './host-delta.js';
import { del, put, type Db, type HostDelta, type Op, type Sub } from './records.js';
import { CURRENT_KEY, foldIntoFile, HOST_DIR, type HostFilePointer } from './host-fold.js';
import { HostFileReader } from './host-file.js';
import { DrumError } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import { join } from 'node:path';

/** Bytes of parts per LevelDB batch when applying a round (a ~2 MB sealed part then goes alone; see docs/engineering-log.md). */
export const HOST_BATCH_BYTES = 1 << 20;
/** Delta bytes whose hosts one fold pass adds up in a Map (the fold's RAM bound). */
export const FOLD_SLICE_BYTES = 2 << 20;

const FOLD_KEY = 'fold';

/** A fold in progress: which delta keys, into how many slices, how many are in the table. */
export interface FoldState {
  keys: string[];
  slices: number;
  done: number;
}

export interface HostTable {
  db: Db;
  deltas: Sub<HostDelta>;
  hosts: Sub<number>;
  rounds: Sub<number>;
  fold: Sub<FoldState>;
  pointer: Sub<HostFilePointer>;
  fs: DrumFs;
  stateDir: string;
  sync: boolean;
  dir: string;
  batchBytes: number;
  foldSliceBytes: number;
}

export type HostCounts = ReadonlyMap<string, number> | Uint8Array | Iterable<Uint8Array>;

/** The round marker a delta key belongs to. */
function markerOf(deltaKey: string): string {
  const i = deltaKey.lastIndexOf('#');
  return i < 0 ? deltaKey : deltaKey.slice(0, i);
}

function toParts(counts: HostCounts): Iterable<Uint8Array> {
  if (counts instanceof Uint8Array) return [counts];
  if (counts instanceof Map) {
    const m = counts as ReadonlyMap<string, number>;
    for (const [host, n] of m) {
      if (!Number.isSafeInteger(n) || n < 0) throw new DrumError('DRUM_INTERNAL', `bad host count ${n} for ${host}`);
    }
    return [encodeHostMap(m)];
  }
  return counts as Iterable<Uint8Array>;
}

function hostsIn(delta: Uint8Array): number {
  return delta.length >= 4 ? Buffer.from(delta.buffer, delta.byteOffset, delta.byteLength).readUInt32LE(0) : 0;
}

/**
 * Writes one round's parts, then its marker. False (nothing written) when the
 * marker is there already. Each part is copied into one reused batch buffer
 * before the next is requested, so `counts` may yield views of a buffer it
 * reuses (HostParts does); a part larger than that buffer goes in a batch of
 * its own.
 */
export async function applyRound(t: HostTable, marker: string, counts: HostCounts): Promise<boolean> {
  if ((await t.rounds.get(marker)) !== undefined) return false;
  const parts = toParts(counts);
  // Leftovers of an apply of this round that crashed between batches: replaced, never added to.
  let batch: Op[] = (await t.deltas.keys({ gt: `${marker}#`, lt: `${marker}$` }).all()).map((k) => del(t.deltas, k));
  const arena = Buffer.allocUnsafe(t.batchBytes);
  let used = 0;
  let hosts = 0;
  let i = 0;
  const flush = async (): Promise<void> => {
    await t.db.batch(batch as never, { sync: t.sync });
    batch = [];
    used = 0;
  };
  for (const delta of parts) {
    const n = hostsIn(delta);
    if (n === 0) continue;
    hosts += n;
    const key = `${marker}#${String(i++).padStart(6, '0')}`;
    if (used + delta.length > arena.length && batch.length > 0) await flush();
    if (delta.length > arena.length) {
      batch.push(put(t.deltas, key, delta));
      await flush();
      continue;
    }
    arena.set(delta, used);
    batch.push(put(t.deltas, key, arena.subarray(used, used + delta.length)));
    used += delta.length;
  }
  batch.push(put(t.rounds, marker, hosts));
  await t.db.batch(batch as never, { sync: t.sync });
  return true;
}

/** Which deltas count: those of marked rounds, minus, for hosts of slices < done, those an unfinished fold already added. */
interface DeltaView {
  marked: Set<string>;
  unmarked: string[];
  fold: FoldState | undefined;
  folded: Set<string>;
}

async function deltaView(t: HostTable): Promise<DeltaView> {
  const keys = await t.deltas.keys({}).all();
  const markers = [...new Set(keys.map(markerOf))];
  const got = markers.length > 0 ? await t.rounds.getMany(markers) : [];
  const markedRounds = new Set(markers.filter((_, i) => got[i] !== undefined));
  const marked = new Set<string>();
  const unmarked: string[] = [];
  for (const k of keys) {
    if (markedRounds.has(markerOf(k))) marked.add(k);
    else unmarked.push(k);
  }
  const fold = await t.fold.get(FOLD_KEY);
  return { marked, unmarked, fold, folded: new Set(fold !== undefined && fold.done > 0 ? fold.keys : []) };
}

/** Calls fn for every (host, count) the reads must add on top of the table. */
async function forEachPending(t: HostTable, fn: (host: string, n: number) => void, only?: string): Promise<void> {
  const v = await deltaView(t);
  const slices = v.fold?.slices ?? 1;
  const done = v.fold?.done ?? 0;
  const onlySlice = only === undefined ? -1 : hostSlice(only, slices);
  for await (const [k, delta] of t.deltas.iterator()) {
    if (!v.marked.has(k)) continue;
    if (!v.folded.has(k)) {
      forEachHost(delta, fn, t.dir);
    } else if (only !== undefined) {
      if (onlySlice >= done) forEachHostIn(delta, onlySlice, slices, fn, t.dir);
    } else {
      forEachHost(delta, (h, n) => {
        if (hostSlice(h, slices) >= done) fn(h, n);
      }, t.dir);
    }
  }
}

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
  await forEachPending(t, (h, c) => {
    if (h === host) n += c;
  }, host);
  return n;
}

/**
 * Calls fn once per host with its count (table plus pending deltas), table
 * hosts in name order, then hosts only in deltas. RAM: the pending deltas'
 * hosts as a Map (the fold keeps them few), never the table.
 */
export async function forEachHostCount(t: HostTable, fn: (host: string, count: number) => void): Promise<void> {
  const pending = new Map<string, number>();
  await forEachPending(t, (h, c) => pending.set(h, (pending.get(h) ?? 0) + c));
  for await (const [h, c] of tableEntries(t)) {
    const p = pending.get(h);
    if (p !== undefined) pending.delete(h);
    fn(h, c + (p ?? 0));
  }
  for (const [h, c] of pending) fn(h, c);
}

/** Every host and its count in name order: the table merged with the sorted pending hosts. */
export async function* sortedHostCounts(t: HostTable): AsyncGenerator<[string, number]> {
  const pending = new Map<string, number>();
  await forEachPending(t, (h, c) => pending.set(h, (pending.get(h) ?? 0) + c));
  const names = [...pending.keys()].sort();
  let j = 0;
  for await (const [h, c] of tableEntries(t)) {
    while (j < names.length && names[j]! < h) yield [names[j]!, pending.get(names[j++]!)!];
    if (j < names.length && names[j] === h) yield [h, c + pending.get(names[j++]!)!];
    else yield [h, c];
  }
  while (j < names.length) yield [names[j]!, pending.get(names[j++]!)!];
}

/** Deltas of marked rounds not yet folded (what a fold would take). */
export async function pendingDeltaCount(t: HostTable): Promise<number> {
  return (await deltaView(t)).marked.size;
}

/**
 * Folds every delta of a marked round into a new table file (host-fold.ts)
 * and drops deltas of unmarked rounds (leftovers of a crashed apply, which a
 * redo rewrites). Finishes a legacy fold a crash interrupted first. Returns
 * the number of deltas folded.
 */
export async function foldDeltas(t: HostTable): Promise<number> {
  const legacy = await t.fold.get(FOLD_KEY);
  if (legacy !== undefined) await finishLegacyFold(t, legacy);
  const v = await deltaView(t);
  const drop: Op[] = v.unmarked.map((k) => del(t.deltas, k));
  if (v.marked.size === 0) {
    if (drop.length > 0) await t.db.batch(drop as never, { sync: t.sync });
    return 0;
  }
  let bytes = 0;
  let entries = 0;
  for await (const [k, delta] of t.deltas.iterator()) {
    if (!v.marked.has(k)) continue;
    bytes += delta.byteLength;
    entries += hostsIn(delta);
  }
  const keys = [...v.marked];
  await foldIntoFile({ ...t, legacy: t.hosts }, keys, bytes, entries, drop);
  return keys.length;
}

/** Finishes a fold into the legacy sublevel that a crash cut short (catalogs written before the table file). */
async function finishLegacyFold(t: HostTable, start: FoldState): Promise<void> {
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
