// The run catalog and per-host table of one state directory, in an embedded
// LevelDB at <state>/catalog/ (the `level` package). Holds run records (an
// index by start time for newest-first listing), which input contents were
// fully ingested, and host -> unique-URL counts (top-N by a scan with a
// bounded heap; see docs/cli.md for why not a by-count index). Does not hold URLs or keys (the store does) and does not
// decide when a run starts or commits (the engine does). Preconditions: one
// writer per state directory (the engine's lock; LevelDB's own LOCK also
// refuses a second writer with DRUM_LOCKED). Every multi-key change is ONE
// level batch, so a crash leaves either all of it or none (but for finishing
// a legacy fold, which went slice by slice under its own record); the host
// table's bulk bytes (round delta files, the table file) live in files
// under hosts/ that a batch names only once they are written whole
// (host-table.ts). The LevelDB handle, its serialized writes and its error
// codes are catalog-db.ts's.

import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { mkdirpSync } from '../io/mkdirp.js';
import { DrumError } from '../errors.js';
import { levelError } from './level-errors.js';
import { openReaderDb } from './snapshot.js';
import { pruneOldRuns } from './run-prune.js';
import { roundKey, inputKey } from './keys.js';
import { del, openLevel, put, type CatalogOpenOptions, type HostCount, type Op, type RunRecord } from './records.js';
import { applyRound, foldDeltas, pendingDeltaCount, pendingShape, type HostCounts } from './hosts/host-table.js';
import { hostCountOf, sortedHostCounts, topHostCounts } from './hosts/host-reads.js';
import { CatalogDb } from './catalog-db.js';

export { DELTAS_BEFORE_FOLD, foldDue, type PendingShape } from './hosts/fold-policy.js';
import type { PendingShape } from './hosts/fold-policy.js';
export type { CatalogOpenOptions, HostCount, RunCounts, RunInput, RunRecord, RunStatus } from './records.js';
export type { HostCounts } from './hosts/host-table.js';

export class Catalog extends CatalogDb {
  /**
   * A writer's pending deltas and table bytes as of its last host-table
   * write (null: read them from the records at the next pendingShape). Kept
   * up by applyHostCounts, dropped by compactHosts: a process that stays
   * open asks after every library run, and reading the record of every
   * pending round each time cost ~3 us a round (12 ms a run at 4,096).
   */
  private shape: PendingShape | null = null;

  /**
   * Opens <stateDir>/catalog. Writers create it if missing. Read-only: a missing state
   * directory is DRUM_NOT_FOUND; a state directory without a catalog reads as empty; any
   * other is read from a copy taken at open (snapshot.ts), never opened in place: LevelDB
   * locks and rewrites a database it opens, even to read it, so a reader in place would
   * write to the state and make a writer starting meanwhile fail with DRUM_LOCKED.
   */
  static async open(stateDir: string, opts: CatalogOpenOptions = {}): Promise<Catalog> {
    const readOnly = opts.readOnly ?? false;
    const sync = opts.sync ?? true;
    const dir = join(stateDir, 'catalog');
    if (!readOnly) {
      try {
        mkdirpSync(dir);
        return new Catalog(dir, await openLevel(dir, true), false, sync, null, opts);
      } catch (e) {
        throw levelError('cannot open the run catalog', e, dir);
      }
    }
    if (!existsSync(stateDir) || !statSync(stateDir).isDirectory()) throw new DrumError('DRUM_NOT_FOUND', `no drum state at ${stateDir}`, { file: stateDir });
    if (!existsSync(join(dir, 'CURRENT'))) return new Catalog(dir, null, true, sync, null, opts);
    const { db, temp } = await openReaderDb(stateDir, dir, opts.writerLockHeld === true);
    return new Catalog(dir, db, true, sync, temp, opts);
  }

  /**
   * Inserts or replaces a run. A complete run also records each input it read whole (not skipped, not damaged) as ingested (first run wins);
   * a forget (kind 'forget') clears that index instead: an input ingested before it may hold URLs it made new again.
   */
  putRun(rec: RunRecord): Promise<void> {
    return this.write('cannot record the run', async (db) => {
      if (!rec.runId || !/^\d{4}-\d\d-\d\dT/.test(rec.startedAt)) {
        throw new DrumError('DRUM_INTERNAL', `bad run record: runId ${JSON.stringify(rec.runId)} startedAt ${JSON.stringify(rec.startedAt)}`);
      }
      const runs = this.sub<RunRecord>('runs');
      const order = this.sub<string>('runOrder');
      const inputs = this.sub<string>('inputs');
      const prev = await runs.get(rec.runId);
      const batch: Op[] = [];
      if (prev && prev.startedAt !== rec.startedAt) batch.push(del(order, `${prev.startedAt}|${prev.runId}`));
      batch.push(put(runs, rec.runId, rec), put(order, `${rec.startedAt}|${rec.runId}`, rec.runId));
      if (rec.kind === 'forget') {
        // A forget makes URLs new again: no input read before it is wholly in the store any more.
        for (const k of await inputs.keys({}).all()) batch.push(del(inputs, k));
      } else if (rec.status === 'complete') {
        // Only inputs hashed whole and read to their end; a large one is also found by its sample (then confirmed).
        const fresh = rec.inputs.filter((i) => i.sha256 !== null && i.sha256 !== '' && !i.skipped && i.damaged === undefined && i.sampled !== true);
        const keys = fresh.flatMap((i) => [inputKey(i.sha256!, i.bytes), ...(i.sample ? [inputKey(i.sample, i.bytes)] : [])]);
        const known = keys.length > 0 ? await inputs.getMany(keys) : [];
        keys.forEach((k, i) => {
          if (known[i] === undefined) batch.push(put(inputs, k, rec.runId));
        });
      }
      await db.batch(batch as never, { sync: this.sync });
    });
  }

  /** Which of these run ids have no record (one getMany). */
  async missingRuns(runIds: string[]): Promise<string[]> {
    if (runIds.length === 0) return [];
    return this.read('cannot read the run catalog', [], async () => {
      const recs = await this.sub<RunRecord>('runs').getMany(runIds);
      return runIds.filter((_, i) => recs[i] === undefined);
    });
  }

  async getRun(runId: string): Promise<RunRecord | undefined> {
    return this.read('cannot read the run catalog', undefined, () => this.sub<RunRecord>('runs').get(runId));
  }

  /** The `limit` most recently started runs, newest first. */
  async listRuns(limit = 20): Promise<RunRecord[]> {
    return this.read('cannot list runs', [], async () => {
      const ids = await this.sub<string>('runOrder').values({ reverse: true, limit }).all();
      const recs = ids.length > 0 ? await this.sub<RunRecord>('runs').getMany(ids) : [];
      return recs.filter((r): r is RunRecord => r !== undefined);
    });
  }

  /**
   * Deletes the records of runs older than the newest `keep` for which
   * `removable` says yes, with their listing entries (run-prune.ts); their
   * host-count round markers stay. An input such a run ingested first stays
   * indexed under its id and reads as not ingested. `gone` gets the deleted
   * records a page at a time. Returns how many went.
   */
  pruneRuns(keep: number, removable: (r: RunRecord) => boolean, gone?: (rs: RunRecord[]) => Promise<void>): Promise<number> {
    return this.write('cannot prune the run history', (db) =>
      pruneOldRuns(db, { order: this.sub<string>('runOrder'), runs: this.sub<RunRecord>('runs') }, keep, removable, this.sync, gone));
  }

  /** The complete run that first ingested an input with this content (whole SHA-256, or the sample of a large input) into this store, if any. */
  async findIngestedInput(sha256: string, bytes: number): Promise<RunRecord | undefined> {
    return this.read('cannot read the run catalog', undefined, async () => {
      const runId = await this.sub<string>('inputs').get(inputKey(sha256, bytes));
      if (runId === undefined) return undefined;
      const rec = await this.sub<RunRecord>('runs').get(runId);
      return rec?.status === 'complete' ? rec : undefined;
    });
  }

  /** True when round `round` of run `runId` was already applied to the host table. */
  async hasRound(runId: string, round: number): Promise<boolean> {
    return this.read('cannot read the host table', false, async () => (await this.sub<number>('rounds').get(roundKey(runId, round))) !== undefined);
  }

  /**
   * Records the per-host unique-URL counts of one committed round, then the
   * marker (runId, round). Returns false (and changes nothing) when that
   * round was already recorded. The parts go to a round delta file under
   * hosts/ (tmp, fsync, rename), then one batch records the file with the
   * marker: `counts` may be an iterable that reads its parts from disk one
   * at a time. A crash before that batch leaves the round unmarked: reads
   * ignore the file and the redo writes it again (host-table.ts). Reads fold the deltas in, and a writer
   * folds them into the host table once they are due (fold-policy.ts)
   * (see compactHosts).
   */
  applyHostCounts(runId: string, round: number, counts: HostCounts): Promise<boolean> {
    return this.write('cannot update the host table', async () => {
      if (!Number.isInteger(round) || round < 0) throw new DrumError('DRUM_INTERNAL', `bad host-count round ${round}`);
      const rec = await applyRound(this.hostTable(), roundKey(runId, round), counts);
      if (rec === null) return false;
      if (this.shape !== null) this.shape = { ...this.shape, parts: this.shape.parts + rec.parts, bytes: this.shape.bytes + rec.bytes };
      return true;
    });
  }

  /**
   * Folds the pending per-round deltas into a new host table file, one range
   * of host names at a time (bounded RAM; host-fold.ts), after finishing a
   * legacy fold a crash cut short.
   * Writers call it when they open a catalog with many deltas; readers
   * never need it. With `keepRuns` (the runs the manifest names, the only
   * ones a recovery can redo a round of), the round markers of every other
   * run go too. Returns the number of deltas folded.
   */
  compactHosts(keepRuns?: readonly string[]): Promise<number> {
    return this.write('cannot compact the host table', async () => {
      this.shape = null; // read again after the fold, whether it commits or not
      return foldDeltas(this.hostTable(), keepRuns === undefined ? undefined : new Set(keepRuns));
    });
  }

  /** Per-round host deltas (parts of completed rounds) not yet folded into the host table. */
  async pendingDeltas(): Promise<number> {
    return this.read('cannot read the host table', 0, async () => pendingDeltaCount(this.hostTable()));
  }

  /**
   * The pending deltas' parts and bytes and the table's bytes: what decides a
   * fold (fold-policy.ts foldDue). A writer reads the records once and then
   * adds each round it applies (in its write queue, so no apply is missed
   * or counted twice); a reader reads them each time.
   */
  async pendingShape(): Promise<PendingShape> {
    if (this.readOnly || !this.db) return this.read('cannot read the host table', { parts: 0, bytes: 0, tableBytes: 0 }, async () => pendingShape(this.hostTable()));
    return this.write('cannot read the host table', async () => ({ ...(this.shape ??= await pendingShape(this.hostTable())) }));
  }

  /** Unique URLs stored for one host (0 when unknown). */
  async hostCount(host: string): Promise<number> {
    return this.read('cannot read the host table', 0, async () => hostCountOf(this.hostTable(), host));
  }

  /** The `n` hosts with most unique URLs, most first; ties by host name. One scan of the table and the deltas. */
  async topHosts(n: number): Promise<HostCount[]> {
    // A host whose every URL was forgotten is at 0: it has no URL in the store, so it is not listed.
    return this.read('cannot read the host table', [], () => topHostCounts(this.hostTable(), n));
  }

  /** Every host and its count, in host order (the table file merged with the pending deltas); for checks and scripts. */
  async *allHosts(): AsyncGenerator<HostCount> {
    if (!this.db) return;
    this.assertOpen();
    const it = sortedHostCounts(this.hostTable())[Symbol.asyncIterator]();
    for (;;) {
      let r: IteratorResult<[string, number]>;
      try {
        r = await it.next();
      } catch (e) {
        throw levelError('cannot read the host table', e, this.dir);
      }
      if (r.done === true) return;
      yield { host: r.value[0], uniqueUrls: r.value[1] };
    }
  }

}
