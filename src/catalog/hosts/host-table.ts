// The host table's catalog logic behind Catalog: recording one round's
// host-count parts, folding the pending rounds into the host table file
// (host-fold.ts), and which pending deltas the reads (host-reads.ts) add
// on top of the table: exactly those of completed rounds. Does not open or close the
// database or serialize writers (Catalog does: every function here that
// writes must run inside Catalog's write queue).
//
// Crash safety:
// - A round's parts go to a round delta file of their own under hosts/
//   (delta-file.ts: tmp, fsync, rename), then ONE batch records the file
//   (sublevel hostDeltaFiles) with the round marker. A file no record names
//   is ignored by every read and removed by the next fold; a redo of the
//   round writes the same file name again.
// - A fold writes a whole new table file and commits it with the deletion
//   of its deltas' records in one batch (host-fold.ts).
// - Catalogs written before the round delta files kept each part as a
//   LevelDB value (`${marker}#NNNNNN`, sublevel hostDeltas), counted only
//   when the round's marker was there; they are read and folded as before.
// - Catalogs written before the table file kept the table in the sublevel
//   `hosts` and folded into it slice by slice, recording {keys, slices, done}
//   (sublevel hostFold) in each slice's batch; until the deltas were deleted,
//   reads skip a folded delta for hosts of slices < done. Such a fold cut
//   short is finished the old way first (legacy-fold.ts); the next fold
//   moves the sublevel into a file.

import { encodeHostMap, entrySlice, forEachEntry } from './host-delta.js';
import { del, put, type Op, type Sub } from '../records.js';
import { CURRENT_KEY, foldIntoFile, HOST_DIR, type FoldSource, type FoldTarget } from './host-fold.js';
import type { PendingShape } from './fold-policy.js';
import { deltaFileName, forEachDeltaPart, writeDeltaFile, type DeltaFileRecord } from './delta-file.js';
import { finishLegacyFold, FOLD_KEY, type FoldState } from './legacy-fold.js';
import { pruneRoundMarkers } from './round-markers.js';
import { DrumError } from '../../errors.js';
import { join } from 'node:path';

export type { FoldState } from './legacy-fold.js';

/** Delta bytes whose hosts one fold pass adds up in a Map (the fold's RAM bound). */
export const FOLD_SLICE_BYTES = 2 << 20;

/** What a fold writes to (host-fold.ts's FoldTarget, whose `legacy` is `hosts`), plus the rounds' markers and a legacy fold's record. */
export interface HostTable extends Omit<FoldTarget, 'legacy'> {
  /** The table of catalogs written before the table file. */
  hosts: Sub<number>;
  rounds: Sub<number>;
  fold: Sub<FoldState>;
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
 * Writes one round's parts to its delta file, then records the file and the
 * round's marker in one batch, and returns the file's record (its parts and
 * bytes are what the round adds to the pending deltas). Null (nothing
 * written) when the marker is there already. `counts` may yield views of a
 * buffer it reuses (HostParts does): each part is written before the next is
 * requested.
 */
export async function applyRound(t: HostTable, marker: string, counts: HostCounts): Promise<DeltaFileRecord | null> {
  if ((await t.rounds.get(marker)) !== undefined) return null;
  const rec = writeDeltaFile(t.fs, join(t.stateDir, HOST_DIR), deltaFileName(marker), toParts(counts), t.sync);
  // Parts an older version's apply of this round left as LevelDB values before it crashed: replaced, never added to.
  const batch: Op[] = (await t.deltas.keys({ gt: `${marker}#`, lt: `${marker}$` }).all()).map((k) => del(t.deltas, k));
  if (rec.parts > 0) batch.push(put(t.files, marker, rec));
  batch.push(put(t.rounds, marker, rec.hosts));
  await t.db.batch(batch as never, { sync: t.sync });
  if (rec.parts === 0) t.fs.unlink(join(t.stateDir, HOST_DIR, rec.name));
  return rec;
}

/**
 * Which deltas count: every round delta file a record names, and of the
 * older LevelDB parts those of marked rounds, minus, for hosts of slices <
 * done, those an unfinished legacy fold already added.
 */
interface DeltaView {
  /** Round delta files: [round marker, record]. */
  files: [string, DeltaFileRecord][];
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
  const files: [string, DeltaFileRecord][] = [];
  for await (const e of t.files.iterator()) files.push(e);
  return { files, marked, unmarked, fold, folded: new Set(fold !== undefined && fold.done > 0 ? fold.keys : []) };
}

function deltaPath(t: HostTable, rec: DeltaFileRecord): string {
  return join(t.stateDir, HOST_DIR, rec.name);
}

/** Calls fn with every part of the round delta files `files`, one at a time (views valid only during fn). */
function forEachFilePart(t: HostTable, files: [string, DeltaFileRecord][], fn: (part: Uint8Array, file: string) => void): void {
  for (const [, rec] of files) {
    const path = deltaPath(t, rec);
    forEachDeltaPart(t.fs, path, (part) => fn(part, path));
  }
}

/** Calls fn for every (host, count) the reads (host-reads.ts) must add on top of the table; with `only`, for that host's only. */
export async function forEachPending(t: HostTable, fn: (host: string, n: number) => void, only?: string): Promise<void> {
  if (only === undefined) return forEachPendingEntry(t, (b, s, e, n) => fn(b.toString('latin1', s, e), n));
  const want = Buffer.from(only, 'latin1');
  // Names are latin1 bytes: a name with a char above U+00FF names no host (latin1 encoding would cut each char to its low byte).
  if (want.toString('latin1') !== only) return;
  await forEachPendingEntry(t, (b, s, e, n) => {
    if (e - s === want.length && want.compare(b, s, e) === 0) fn(only, n);
  });
}

/** A name's bytes b[nameStart, nameEnd) (valid only during the call) and its count. */
type EntryFn = (b: Buffer, nameStart: number, nameEnd: number, n: number) => void;

/**
 * The pending deltas as they are now: their host entries (a host counted
 * once per part it is in) and a scan of them that can be run again, names
 * never decoded. It reads the same deltas each time unless a fold of this
 * same catalog commits in between (the engine folds in a child process,
 * with its own catalog closed).
 */
export async function pendingEntries(t: HostTable): Promise<{ entries: number; scan: (fn: EntryFn) => Promise<void> }> {
  const v = await deltaView(t);
  let entries = v.files.reduce((a, [, f]) => a + f.hosts, 0);
  for await (const [k, delta] of t.deltas.iterator()) if (v.marked.has(k)) entries += hostsIn(delta);
  return { entries, scan: (fn) => scanPending(t, v, fn) };
}

async function forEachPendingEntry(t: HostTable, fn: EntryFn): Promise<void> {
  await scanPending(t, await deltaView(t), fn);
}

async function scanPending(t: HostTable, v: DeltaView, fn: EntryFn): Promise<void> {
  const slices = v.fold?.slices ?? 1;
  const done = v.fold?.done ?? 0;
  for await (const [k, delta] of t.deltas.iterator()) {
    if (!v.marked.has(k)) continue;
    if (!v.folded.has(k)) forEachEntry(delta, fn, t.dir);
    // An unfinished legacy fold already added this delta's hosts of slices < done.
    else forEachEntry(delta, (b, s, e, n) => void (entrySlice(b, s, e, slices) >= done && fn(b, s, e, n)), t.dir);
  }
  forEachFilePart(t, v.files, (part, file) => forEachEntry(part, fn, file));
}

/** Deltas of marked rounds not yet folded (what a fold would take). */
export async function pendingDeltaCount(t: HostTable): Promise<number> {
  const v = await deltaView(t);
  return v.marked.size + v.files.reduce((a, [, f]) => a + f.parts, 0);
}

/** The pending deltas' parts and bytes (Infinity with legacy LevelDB parts, whose sizes are not recorded) and the table file's bytes. */
export async function pendingShape(t: HostTable): Promise<PendingShape> {
  const v = await deltaView(t);
  const table = await t.pointer.get(CURRENT_KEY);
  return {
    parts: v.marked.size + v.files.reduce((a, [, f]) => a + f.parts, 0),
    bytes: v.marked.size > 0 ? Infinity : v.files.reduce((a, [, f]) => a + f.bytes, 0),
    tableBytes: table?.bytes ?? 0,
  };
}

/**
 * Folds every delta of a marked round into a new table file (host-fold.ts)
 * and drops deltas of unmarked rounds (leftovers of a crashed apply, which a
 * redo rewrites). Finishes a legacy fold a crash interrupted first. With
 * `keepRuns`, then drops the round markers of every other run
 * (round-markers.ts). Returns the number of deltas folded.
 */
export async function foldDeltas(t: HostTable, keepRuns?: ReadonlySet<string>): Promise<number> {
  const legacy = await t.fold.get(FOLD_KEY);
  if (legacy !== undefined) await finishLegacyFold(t, legacy);
  const v = await deltaView(t);
  const drop: Op[] = v.unmarked.map((k) => del(t.deltas, k));
  const parts = v.marked.size + v.files.reduce((a, [, f]) => a + f.parts, 0);
  if (parts === 0) {
    if (drop.length > 0) await t.db.batch(drop as never, { sync: t.sync });
  } else {
    await foldPending(t, v, drop);
  }
  // Every delta is folded or dropped now: the markers of runs no recovery can redo may go.
  if (keepRuns !== undefined) await pruneRoundMarkers(t.db, t.rounds, keepRuns, t.sync);
  return parts;
}

/** Folds the marked deltas and round files of `v` into a new table file, committing `drop` with them. */
async function foldPending(t: HostTable, v: DeltaView, drop: Op[]): Promise<void> {
  const keys = [...v.marked];
  let bytes = 0;
  let entries = 0;
  for await (const [k, delta] of t.deltas.iterator()) {
    if (!v.marked.has(k)) continue;
    bytes += delta.byteLength;
    entries += hostsIn(delta);
  }
  for (const [, f] of v.files) {
    bytes += f.bytes;
    entries += f.hosts;
  }
  const source: FoldSource = {
    bytes,
    entries,
    async eachPart(fn) {
      for (const k of keys) {
        const d = await t.deltas.get(k);
        if (d !== undefined) fn(d, t.dir);
      }
      forEachFilePart(t, v.files, fn);
    },
    done: [...drop, ...keys.map((k) => del(t.deltas, k)), ...v.files.map(([marker]) => del(t.files, marker))],
    files: v.files.map(([, f]) => f.name),
  };
  await foldIntoFile({ ...t, legacy: t.hosts }, source);
}
