// Salvaging run records from a damaged run catalog, for `drum repair
// --catalog`: copies the catalog that was moved aside to a scratch
// directory (the damaged one is never written), lets LevelDB's own repair
// (RepairDB: it rebuilds the database's descriptor from every log and table
// file it can read, and skips blocks that fail their checksums) work on the
// copy, and reads back every run record that still has a run record's
// shape. A damaged CURRENT or MANIFEST, or a damaged host table (whose
// files live outside the catalog, under hosts/), loses no record this way;
// a damaged table file loses the records in its bad blocks.
// Does not decide which records to trust (repair-catalog.ts holds them to the
// store's manifest) and does not read the host table (the repair recounts it
// from the runs' unique files). Damage never throws: what LevelDB cannot
// repair or read salvages nothing, and the caller rebuilds from the manifest
// alone. A copy the OS refuses (a full disk, permissions) throws DRUM_IO: the
// records are still there for a repair run again once there is room.
// REQUIRES: the store's writer lock is held (no process has `damaged` open).

import * as fs from 'node:fs';
import { Level } from 'level';
import { ioError, isDrumError } from '../errors.js';
import type { RunInput, RunRecord, RunStatus } from './records.js';

/** What a salvage found: the records with a run record's shape, how many entries had another, and why nothing was read (null: it was). */
export interface Salvage {
  records: RunRecord[];
  malformed: number;
  error: string | null;
}

/** LevelDB's repair, which `level` runs as ClassicLevel.repair on Node (its types do not declare it). */
type Repairable = { repair?: (location: string) => Promise<void> };

/** Copies `damaged` to `scratch`, repairs the copy and reads its run records; removes `scratch` again. */
export async function salvageRunRecords(damaged: string, scratch: string): Promise<Salvage> {
  const out: Salvage = { records: [], malformed: 0, error: null };
  let db: Level<string, unknown> | null = null;
  try {
    copyAside(damaged, scratch);
    const repair = (Level as unknown as Repairable).repair;
    if (typeof repair !== 'function') throw new Error('this build of level has no repair');
    await repair.call(Level, scratch);
    db = new Level<string, unknown>(scratch, { valueEncoding: 'json', createIfMissing: false });
    await db.open();
    const runs = db.sublevel<string, unknown>('runs', { valueEncoding: 'json' });
    for await (const [key, value] of runs.iterator()) {
      if (isRunRecord(value) && value.runId === key) out.records.push(value);
      else out.malformed++;
    }
  } catch (e) {
    if (isDrumError(e, 'DRUM_IO')) throw e;
    out.records = [];
    out.error = e instanceof Error ? e.message : String(e);
  } finally {
    await db?.close().catch(() => undefined);
    try {
      fs.rmSync(scratch, { recursive: true, force: true });
    } catch {
      // Not there to remove (the copy failed), or left for the next repair, which removes it first.
    }
  }
  return out;
}

/** The copy LevelDB repairs (an OS refusal is DRUM_IO; a missing source salvages nothing). */
function copyAside(damaged: string, scratch: string): void {
  if (!fs.existsSync(damaged)) throw new Error(`${damaged}: no such directory`);
  try {
    fs.rmSync(scratch, { recursive: true, force: true }); // a copy left by a repair cut short
    fs.cpSync(damaged, scratch, { recursive: true });
  } catch (e) {
    throw ioError('cannot copy the damaged run catalog to salvage its records', e, scratch);
  }
  fs.rmSync(`${scratch}/LOCK`, { force: true });
}

const STATUSES: ReadonlySet<RunStatus> = new Set(['running', 'interrupted', 'abandoned', 'complete', 'failed']);

const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
const isCountOrNull = (n: unknown): boolean => n === null || isCount(n);
const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

function isInput(x: unknown): x is RunInput {
  return isObject(x) && typeof x.path === 'string' && isCount(x.bytes) && (x.sha256 === null || typeof x.sha256 === 'string');
}

/** True if `x` has every field a run record must have, with its type (what the catalog's readers rely on). */
export function isRunRecord(x: unknown): x is RunRecord {
  if (!isObject(x) || !isObject(x.counts) || !isObject(x.options)) return false;
  const c = x.counts;
  return typeof x.runId === 'string' && x.runId.length > 0
    && typeof x.startedAt === 'string' && /^\d{4}-\d\d-\d\dT/.test(x.startedAt)
    && (x.finishedAt === null || typeof x.finishedAt === 'string')
    && STATUSES.has(x.status as RunStatus)
    && Array.isArray(x.inputs) && x.inputs.every(isInput)
    && isCount(c.linksRead) && isCount(c.uniqueUrls) && isCountOrNull(c.duplicateUrls) && isCountOrNull(c.rejectedLines)
    && typeof x.outDir === 'string'
    && Array.isArray(x.outputFiles) && x.outputFiles.every((f) => typeof f === 'string')
    && (x.kind === undefined || x.kind === 'forget');
}
