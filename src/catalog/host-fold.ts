// Folds the per-round host deltas into a new host table file, the DRUM way:
// one sequential merge of the old table (the current file, or the LevelDB
// sublevel `hosts` of catalogs written before the file existed) with the
// pending counts, taken one range of host names at a time so RAM holds one
// range's pending hosts, never the table. Then one LevelDB batch points the
// catalog at the new file and deletes the folded deltas, so a crash leaves
// the old table and its deltas or the new table without them; a fold cut
// short is simply done again. Does not decide when to fold (the engine
// does) and does not read counts for callers (host-table.ts does).
// REQUIRES: runs inside Catalog's write queue; `keys` are deltas of marked
// rounds; no legacy fold in progress (host-table.ts finishes one first).

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { forEachHost } from './host-delta.js';
import { HostFileReader, HostFileWriter } from './host-file.js';
import { del, put, type Db, type HostDelta, type Op, type Sub } from './records.js';
import type { DrumFs } from '../io/fs.js';

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

export interface FoldTarget {
  db: Db;
  deltas: Sub<HostDelta>;
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
async function boundaries(t: FoldTarget, keys: string[], ranges: number, entries: number): Promise<string[]> {
  if (ranges <= 1) return [];
  const stride = Math.max(1, Math.floor(entries / (ranges * SAMPLES_PER_RANGE)));
  const sample: string[] = [];
  let i = 0;
  for (const k of keys) {
    const d = await t.deltas.get(k);
    if (d !== undefined) forEachHost(d, (h) => { if (i++ % stride === 0) sample.push(h); }, t.dir);
  }
  sample.sort();
  const out: string[] = [];
  for (let r = 1; r < ranges; r++) {
    const b = sample[Math.floor((r * sample.length) / ranges)];
    if (b !== undefined && (out.length === 0 || b > out[out.length - 1]!)) out.push(b);
  }
  return out;
}

/** Sums the pending counts of hosts in [lo, hi) (hi null: no upper bound). */
async function rangeSums(t: FoldTarget, keys: string[], lo: string | null, hi: string | null): Promise<Map<string, number>> {
  const sum = new Map<string, number>();
  for (const k of keys) {
    const d = await t.deltas.get(k);
    if (d === undefined) continue;
    forEachHost(d, (h, n) => {
      if ((lo === null || h >= lo) && (hi === null || h < hi)) sum.set(h, (sum.get(h) ?? 0) + n);
    }, t.dir);
  }
  return sum;
}

/** Writes old table + pending of one range, in name order; hosts at 0 are left out. */
async function mergeRange(w: HostFileWriter, old: Cursor, sum: Map<string, number>, hi: string | null): Promise<void> {
  const names = [...sum.keys()].sort();
  let j = 0;
  const emit = (h: string, c: number): void => { if (c > 0) w.add(h, c); };
  while (old.head !== null && (hi === null || old.head[0] < hi)) {
    const [h, c] = old.head;
    while (j < names.length && names[j]! < h) emit(names[j]!, sum.get(names[j++]!)!);
    if (j < names.length && names[j] === h) emit(h, c + sum.get(names[j++]!)!);
    else emit(h, c);
    const p = old.next();
    if (p !== undefined) await p;
  }
  while (j < names.length) emit(names[j]!, sum.get(names[j++]!)!);
}

/**
 * Folds the deltas `keys` (whose bytes and host entries are given) into a new
 * table file and commits it. `extra` ops go into the commit batch. Returns the
 * new pointer.
 */
export async function foldIntoFile(t: FoldTarget, keys: string[], bytes: number, entries: number, extra: Op[]): Promise<HostFilePointer> {
  const cur = await t.pointer.get(CURRENT_KEY);
  const seq = (cur?.seq ?? 0) + 1;
  const dir = join(t.stateDir, HOST_DIR);
  t.fs.mkdirp(dir);
  const name = hostFileName(seq);
  const tmp = join(dir, `${name}.tmp`);
  const bounds = await boundaries(t, keys, Math.max(1, Math.ceil(bytes / t.foldSliceBytes)), entries);
  const w = new HostFileWriter(t.fs, tmp);
  const old = await oldTable(t, cur);
  let fileBytes: number;
  try {
    for (let r = 0; r <= bounds.length; r++) {
      const lo = r === 0 ? null : bounds[r - 1]!;
      const hi = r === bounds.length ? null : bounds[r]!;
      await mergeRange(w, old.cursor, await rangeSums(t, keys, lo, hi), hi);
    }
    fileBytes = w.finish(t.sync);
  } catch (e) {
    w.abandon();
    t.fs.unlink(tmp);
    throw e;
  } finally {
    old.close();
  }
  t.fs.rename(tmp, join(dir, name));
  if (t.sync) t.fs.fsyncDir(dir);
  const next: HostFilePointer = { name, seq, hosts: w.hosts, bytes: fileBytes };
  const batch: Op[] = [...extra, ...keys.map((k) => del(t.deltas, k)), put(t.pointer, CURRENT_KEY, next)];
  await t.db.batch(batch as never, { sync: t.sync });
  if (cur === undefined) await t.legacy.clear?.();
  removeOldFiles(t, dir, seq);
  return next;
}

/**
 * Removes every table file but the current and the previous one: older ones,
 * leftovers of folds a crash cut short, and files of a catalog that
 * `drum repair --catalog` replaced. The previous file stays: a reader that
 * took its catalog copy before this fold's commit still reads it.
 */
function removeOldFiles(t: FoldTarget, dir: string, seq: number): void {
  if (!existsSync(dir)) return;
  for (const n of readdirSync(dir)) {
    const m = /^hosts-(\d{6})\.tbl(\.tmp)?$/.exec(n);
    if (m === null) continue;
    const s = Number(m[1]);
    if ((s !== seq && s !== seq - 1) || m[2] !== undefined) t.fs.unlink(join(dir, n));
  }
}
