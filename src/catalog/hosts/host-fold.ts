// Folds the per-round host deltas into a new host table file, the DRUM way:
// one sequential merge of the old table (the current file, or the LevelDB
// sublevel `hosts` of catalogs written before the file existed) with the
// pending counts, taken one range of host names at a time so RAM holds one
// range's pending hosts, never the table. The deltas are read twice: a
// sample places the range boundaries, then each entry is copied to its
// range's spill file (fold-spill.ts), and each range is summed from its own
// file. The fold holds few descriptors whatever the deltas' size: at most
// MAX_OPEN_SPILLS spill files, one delta file at a time, the old and the
// new table file (and LevelDB's own). Then one LevelDB batch points the catalog at the new file and
// deletes the folded deltas' records, so a crash leaves the old table and
// its deltas or the new table without them; a fold cut short is simply done
// again. The round delta files a fold took in stay until the next fold, like
// the previous table file. Does not decide when to fold (the engine does),
// does not choose the deltas (host-table.ts hands them over as a FoldSource)
// and does not read counts for callers (host-table.ts does).
// REQUIRES: runs inside Catalog's write queue; the source holds deltas of
// marked rounds only; no legacy fold in progress (legacy-fold.ts finishes one first).

import { existsSync, readdirSync } from 'node:fs';
import { DELTA_FILE_PATTERN, type DeltaFileRecord } from './delta-file.js';
import { join } from 'node:path';
import { forEachEntry } from './host-delta.js';
import { FoldSpill, type RangeSums } from './fold-spill.js';
import { HostFileReader, HostFileWriter } from './host-file.js';
import { put, type Db, type HostDelta, type Op, type Sub } from '../records.js';
import type { DrumFs } from '../../io/fs.js';

/** The catalog's record of the current host table file (sublevel hostFile, key CURRENT_KEY). */
export interface HostFilePointer {
  /** File name under <state>/hosts/. */
  name: string;
  seq: number;
  hosts: number;
  bytes: number;
}

export const CURRENT_KEY = 'current';
export const HOST_DIR = 'hosts';
/** Names sampled per range to place the range boundaries. */
const SAMPLES_PER_RANGE = 256;
/** Most name ranges of one fold; past it a range holds more than foldSliceBytes. Spill files open at once are fewer (fold-spill.ts MAX_OPEN_SPILLS). */
const MAX_RANGES = 512;

/** The deltas one fold takes in. */
export interface FoldSource {
  /** Bytes of parts and host entries over all of them (they size the fold's name ranges). */
  bytes: number;
  entries: number;
  /** Calls fn with every part, one at a time (a part may be a view valid only during fn); `file` names it in errors. */
  eachPart(fn: (part: Uint8Array, file: string) => void): Promise<void>;
  /** Ops that delete the deltas' records; they go in the commit batch. */
  done: Op[];
  /** Round delta files (names under hosts/) the fold takes in: kept until the next fold. */
  files: string[];
}

export interface FoldTarget {
  db: Db;
  /** Parts of rounds recorded by older catalogs, one LevelDB value each. */
  deltas: Sub<HostDelta>;
  /** Round delta files, by round marker. */
  files: Sub<DeltaFileRecord>;
  /** The table of catalogs written before the table file. */
  legacy: Sub<number>;
  pointer: Sub<HostFilePointer>;
  fs: DrumFs;
  stateDir: string;
  sync: boolean;
  dir: string;
  foldSliceBytes: number;
}

export function hostFileName(seq: number): string {
  return `hosts-${String(seq).padStart(6, '0')}.tbl`;
}

/** (host, count) in name order from the old table, one at a time; next() is synchronous for a table file. */
interface Cursor {
  head: [string, number] | null;
  next(): Promise<void> | undefined;
}

async function oldTable(t: FoldTarget, cur: HostFilePointer | undefined): Promise<{ cursor: Cursor; close: () => void }> {
  if (cur !== undefined) {
    const r = HostFileReader.open(join(t.stateDir, HOST_DIR, cur.name));
    const it = r.entries();
    const c: Cursor = {
      head: null,
      next: () => {
        const x = it.next();
        c.head = x.done === true ? null : x.value;
        return undefined;
      },
    };
    c.next();
    return { cursor: c, close: () => r.close() };
  }
  const it = t.legacy.iterator()[Symbol.asyncIterator]();
  const c: Cursor = { head: null, next: async () => { const x = await it.next(); c.head = x.done === true ? null : x.value; } };
  await c.next();
  return { cursor: c, close: () => void it.return?.() };
}

/** Range boundaries: names sampled from the deltas, sorted, at equal steps (ranges of about equal pending load). */
async function boundaries(src: FoldSource, ranges: number): Promise<string[]> {
  if (ranges <= 1) return [];
  const stride = Math.max(1, Math.floor(src.entries / (ranges * SAMPLES_PER_RANGE)));
  const sample: string[] = [];
  let i = 0;
  await src.eachPart((d, file) => forEachEntry(d, (v, s, e) => { if (i++ % stride === 0) sample.push(v.toString('latin1', s, e)); }, file));
  sample.sort();
  const out: string[] = [];
  for (let r = 1; r < ranges; r++) {
    const b = sample[Math.floor((r * sample.length) / ranges)];
    if (b !== undefined && (out.length === 0 || b > out[out.length - 1]!)) out.push(b);
  }
  return out;
}

/** Copies every pending entry to its range's spill file: one pass over the deltas, names never decoded. */
async function spillDeltas(src: FoldSource, spill: FoldSpill): Promise<void> {
  const add = spill.add.bind(spill);
  await src.eachPart((d, file) => forEachEntry(d, add, file));
  spill.finishWriting();
}

/** Writes old table + pending of one range, in name order; hosts at 0 are left out. */
async function mergeRange(w: HostFileWriter, old: Cursor, sums: RangeSums, hi: string | null): Promise<void> {
  let j = 0;
  let name = sums.size > 0 ? sums.name(0) : null;
  const take = (c: number): void => {
    if (c > 0) w.add(name!, c);
    name = ++j < sums.size ? sums.name(j) : null;
  };
  while (old.head !== null && (hi === null || old.head[0] < hi)) {
    const [h, c] = old.head;
    while (name !== null && name < h) take(sums.count(j));
    if (name === h) take(c + sums.count(j));
    else if (c > 0) w.add(h, c);
    const p = old.next();
    if (p !== undefined) await p;
  }
  while (name !== null) take(sums.count(j));
}

/** Folds the deltas of `src` into a new table file and commits it with `src.done`. Returns the new pointer. */
export async function foldIntoFile(t: FoldTarget, src: FoldSource): Promise<HostFilePointer> {
  const cur = await t.pointer.get(CURRENT_KEY);
  const seq = (cur?.seq ?? 0) + 1;
  const dir = join(t.stateDir, HOST_DIR);
  t.fs.mkdirp(dir, t.sync);
  const name = hostFileName(seq);
  const tmp = join(dir, `${name}.tmp`);
  const bounds = await boundaries(src, Math.min(MAX_RANGES, Math.max(1, Math.ceil(src.bytes / t.foldSliceBytes))));
  const spill = new FoldSpill(t.fs, dir, seq, bounds);
  const w = new HostFileWriter(t.fs, tmp);
  const old = await oldTable(t, cur);
  let fileBytes: number;
  try {
    await spillDeltas(src, spill);
    for (let r = 0; r <= bounds.length; r++) {
      const hi = r === bounds.length ? null : bounds[r]!;
      await mergeRange(w, old.cursor, spill.sortedSums(r), hi);
    }
    fileBytes = w.finish(t.sync);
  } catch (e) {
    w.abandon();
    t.fs.unlink(tmp);
    throw e;
  } finally {
    old.close();
    spill.remove();
  }
  t.fs.rename(tmp, join(dir, name));
  if (t.sync) t.fs.fsyncDir(dir);
  const next: HostFilePointer = { name, seq, hosts: w.hosts, bytes: fileBytes };
  const batch: Op[] = [...src.done, put(t.pointer, CURRENT_KEY, next)];
  await t.db.batch(batch as never, { sync: t.sync });
  if (cur === undefined) await t.legacy.clear?.();
  await dropDeleted(t.db, cur === undefined ? [t.deltas, t.legacy] : [t.deltas]);
  removeOldFiles(t, dir, seq, new Set([...src.files, ...(await namedDeltaFiles(t))]));
  return next;
}

/** The root keys of a sublevel: from its prefix (abstract-level's `!name!`) to just past it. */
function sublevelRange(sub: Sub<unknown>): [string, string] {
  const prefix = (sub as unknown as { prefix: string }).prefix;
  return [prefix, prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)];
}

/**
 * Has LevelDB compact the deltas' key range (and the legacy table's, when it
 * was just moved into a file: `subs`) so the bytes this fold deleted leave its table
 * files now. Until a compaction reaches them, every scan of the deltas steps
 * over the tombstones and old values, and the table files it maps for that
 * count in the process's RSS: a catalog of the streamed run at 2.3 x 10^8
 * URLs held 243 MB of tables, 13 MB after this, and counting its pending
 * deltas mapped 125-280 MB of them.
 */
async function dropDeleted(db: Db, subs: Sub<unknown>[]): Promise<void> {
  // `level` types the union of its browser and Node backends; on Node it is classic-level, which compacts.
  const classic = db as unknown as { compactRange(start: string, end: string): Promise<void> };
  try {
    for (const sub of subs) await classic.compactRange(...sublevelRange(sub));
  } catch {
    // The fold is committed; the bytes go at a later fold's compaction (or LevelDB's own).
  }
}

/** Names of the round delta files the catalog's records name now. */
async function namedDeltaFiles(t: FoldTarget): Promise<string[]> {
  return (await t.files.values({}).all()).map((r) => r.name);
}

/**
 * Removes every table file but the current and the previous one: older ones,
 * leftovers of folds a crash cut short (table and spill files), and files of a catalog that
 * `drum repair --catalog` replaced. The previous file stays: a reader that
 * took its catalog copy before this fold's commit still reads it. Likewise
 * every round delta file but those in `keepDeltas` (named by a record, or
 * just folded: a reader's older copy still names them): older folds' and
 * those of applies a crash cut short before their batch.
 */
function removeOldFiles(t: FoldTarget, dir: string, seq: number, keepDeltas: Set<string>): void {
  if (!existsSync(dir)) return;
  for (const n of readdirSync(dir)) {
    if (/^fold-\d{6}-\d{4,}\.tmp$/.test(n)) { t.fs.unlink(join(dir, n)); continue; }
    if (DELTA_FILE_PATTERN.test(n)) {
      if (!keepDeltas.has(n)) t.fs.unlink(join(dir, n));
      continue;
    }
    const m = /^hosts-(\d{6})\.tbl(\.tmp)?$/.exec(n);
    if (m === null) continue;
    const s = Number(m[1]);
    if ((s !== seq && s !== seq - 1) || m[2] !== undefined) t.fs.unlink(join(dir, n));
  }
}
