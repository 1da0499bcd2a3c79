// Record types of the run catalog and the small LevelDB plumbing it uses:
// the sublevel view, batch operations placed in sublevels, and opening the
// database. No catalog logic here (catalog.ts has it).

import { Level } from 'level';
import type { ForgetCounts } from '../store/manifest.js';
import type { FaultHook } from '../io/io-counters.js';

/**
 * `running`: unfinished (stored while a run works; listed as `interrupted`
 * once no writer holds the store); `abandoned`: a later run replaced it
 * unfinished (its committed URLs stay in its output directory).
 */
export type RunStatus = 'running' | 'interrupted' | 'abandoned' | 'complete' | 'failed';

export interface RunInput {
  path: string;
  bytes: number;
  /** Hex SHA-256 of the input's bytes; null for stdin. */
  sha256: string | null;
  /** True when this run skipped the input as already ingested. */
  skipped?: boolean;
  /** Set when reading the input ended in an error (read up to this decompressed offset and line): not ingested. */
  damaged?: { offset: number; line: number; code: string; message: string };
  /** True when sha256 is only a sampled hash (the input was never hashed whole): not ingested. */
  sampled?: boolean;
  /** Inputs over the whole-hash limit: the sampled hash (size, first and last MiB) that finds candidates to confirm. */
  sample?: string;
  /** How the run read it (InputRecord.read): an input counts as ingested only for a run that reads it the same way. */
  read?: string;
}

export interface RunRecord {
  runId: string;
  /** ISO 8601 UTC, e.g. 2025-01-31T12:00:00.000Z. */
  startedAt: string;
  finishedAt: string | null;
  status: RunStatus;
  inputs: RunInput[];
  counts: RunCounts;
  outDir: string;
  outputFiles: string[];
  /** Short summary of the options the run used (policy id, memory, bloom, ...); in a rebuilt record, only those the store kept (often none). */
  options: Record<string, string | number | boolean | null>;
  /**
   * Set on a record drum rebuilt from the store rather than one the run wrote: 'repair' by
   * `drum repair --catalog`, 'reconcile' by a writer's open that found the run's record lost
   * (reconcile.ts). Absent: written by the run itself.
   */
  rebuilt?: 'repair' | 'reconcile';
  /** 'forget': a `drum forget` (it removed URLs; `forget` has its counts). Absent: an ingest. */
  kind?: 'forget';
  /** A forget's counts and its first rejects with their line numbers. */
  forget?: ForgetCounts & { rejects?: { input: number; line: number; reason: string }[] };
}

/**
 * A run's counts. linksRead = uniqueUrls + duplicateUrls + rejectedLines for
 * an ingest (docs/report.md). duplicateUrls and rejectedLines are null only
 * in a record rebuilt from the store (RunRecord.rebuilt) that could not learn
 * them (the run's report.json is gone): the manifest keeps only linksRead
 * and uniqueUrls of past runs, so only their sum is known then.
 */
export interface RunCounts {
  linksRead: number;
  uniqueUrls: number;
  duplicateUrls: number | null;
  rejectedLines: number | null;
}

/** The split of linksRead - uniqueUrls into duplicates and rejects, when `dup` and `rej` are one (both whole numbers adding up); else unknown (null, null). */
export function splitOrUnknown(linksRead: number, uniqueUrls: number, dup: unknown, rej: unknown): Pick<RunCounts, 'duplicateUrls' | 'rejectedLines'> {
  const whole = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
  return whole(dup) && whole(rej) && linksRead === uniqueUrls + dup + rej ? { duplicateUrls: dup, rejectedLines: rej } : { duplicateUrls: null, rejectedLines: null };
}

export interface HostCount {
  host: string;
  uniqueUrls: number;
}

export interface CatalogOpenOptions {
  /** Open for reading only; never creates anything. Default false. */
  readOnly?: boolean;
  /** Make each write durable (LevelDB sync write) before it resolves. Default true. */
  sync?: boolean;
  /** Delta bytes per fold slice (default FOLD_SLICE_BYTES; small in tests). */
  foldSliceBytes?: number;
  /** The fault seam of the host table's files (src/io/fs.ts), as DrumOptions.faultHook is the store's; LevelDB's own files do not pass it. */
  faultHook?: FaultHook | null;
  /**
   * Read-only: the caller holds the state's writer lock (`drum repair`), so no writer can change the
   * catalog while it is copied, and a copy that will not open is damage at once (snapshot.ts).
   */
  writerLockHeld?: boolean;
}

export type Db = Level<string, unknown>;

/** One part of a round's host counts, encoded by host-delta.ts. */
export type HostDelta = Uint8Array;

/** Key range and order of a sublevel scan. */
export interface Range {
  gt?: string;
  lt?: string;
  limit?: number;
  reverse?: boolean;
}

/** What the catalog needs of a sublevel (level's own generic types are deep). */
export interface Sub<V> {
  get(key: string): Promise<V | undefined>;
  getMany(keys: string[]): Promise<(V | undefined)[]>;
  keys(o: Range): { all(): Promise<string[]> };
  values(o: Range): { all(): Promise<V[]> };
  iterator(o?: Range): AsyncIterable<[string, V]>;
  clear?(): Promise<void>;
}

/** One operation of an atomic root-db batch, placed in a sublevel. */
export interface Op {
  type: 'put' | 'del';
  key: string;
  value?: unknown;
  sublevel: unknown;
}

export function put<V>(sublevel: Sub<V>, key: string, value: V): Op {
  return { type: 'put', key, value, sublevel };
}

export function del(sublevel: Sub<unknown> | Sub<string>, key: string): Op {
  return { type: 'del', key, sublevel };
}

export async function openLevel(dir: string, createIfMissing: boolean): Promise<Db> {
  const db = new Level<string, unknown>(dir, { valueEncoding: 'json', createIfMissing });
  await db.open();
  return db;
}
