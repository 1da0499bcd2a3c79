// The catalog's LevelDB handle and how every access goes through it: one
// sublevel object per name, reads that answer `empty` on a state directory
// with no catalog yet, writes serialized in one queue (so read-modify-write
// batches never interleave), LevelDB errors turned into DrumErrors with
// their stable codes (level-errors.ts), and the host table's handles
// (host-table.ts). Does not know what the records mean: catalog.ts does
// (runs, inputs, host counts), and opens the database.
// REQUIRES: one writer per state directory (the engine's lock); no access
// after close() (DRUM_CLOSED).

import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { DrumFs } from '../io/fs.js';
import { DrumError } from '../errors.js';
import { levelError } from './level-errors.js';
import type { CatalogOpenOptions, Db, HostDelta, Sub } from './records.js';
import { FOLD_SLICE_BYTES, type FoldState, type HostTable } from './hosts/host-table.js';
import type { HostFilePointer } from './hosts/host-fold.js';
import type { DeltaFileRecord } from './hosts/delta-file.js';

export abstract class CatalogDb {
  private closed = false;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly subs = new Map<string, Sub<unknown>>();
  private readonly fs: DrumFs;

  protected constructor(
    readonly dir: string,
    protected readonly db: Db | null,
    protected readonly readOnly: boolean,
    protected readonly sync: boolean,
    private readonly tempDir: string | null,
    private readonly opts: CatalogOpenOptions = {},
  ) {
    this.fs = new DrumFs(undefined, opts.faultHook ?? null);
  }

  /** Waits for queued writes, closes the database and drops a reader's copy (snapshot.ts); idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.queue.catch(() => undefined);
    try {
      await this.db?.close();
    } catch (e) {
      throw levelError('cannot close the run catalog', e, this.dir);
    } finally {
      if (this.tempDir) rmSync(this.tempDir, { recursive: true, force: true });
    }
  }

  protected hostTable(): HostTable {
    return {
      db: this.db!, deltas: this.sub<HostDelta>('hostDeltas'), files: this.sub<DeltaFileRecord>('hostDeltaFiles'), hosts: this.sub<number>('hosts'), rounds: this.sub<number>('rounds'),
      fold: this.sub<FoldState>('hostFold'), pointer: this.sub<HostFilePointer>('hostFile'), fs: this.fs, stateDir: dirname(this.dir),
      sync: this.sync, dir: this.dir,
      foldSliceBytes: this.opts.foldSliceBytes ?? FOLD_SLICE_BYTES,
    };
  }

  /** Sublevels are created once per catalog: creating one per operation is very slow in abstract-level. */
  protected sub<V>(name: string): Sub<V> {
    let s = this.subs.get(name);
    if (s === undefined) {
      const json = name === 'runs' || name === 'hosts' || name === 'rounds' || name === 'hostFold' || name === 'hostFile' || name === 'hostDeltaFiles';
      const enc = name === 'hostDeltas' ? 'view' : json ? 'json' : 'utf8';
      s = this.db!.sublevel(name, { valueEncoding: enc }) as unknown as Sub<unknown>;
      this.subs.set(name, s);
    }
    return s as Sub<V>;
  }

  protected assertOpen(): void {
    if (this.closed) throw new DrumError('DRUM_CLOSED', 'the run catalog was used after close()', { file: this.dir });
  }

  /** Runs a read; `empty` is the answer on a state directory that has no catalog yet. */
  protected async read<T>(what: string, empty: T, fn: () => Promise<T>): Promise<T> {
    this.assertOpen();
    if (!this.db) return empty;
    try {
      return await fn();
    } catch (e) {
      throw levelError(what, e, this.dir);
    }
  }

  /** Serializes writers: read-modify-write batches never interleave. */
  protected write<T>(what: string, fn: (db: Db) => Promise<T>): Promise<T> {
    this.assertOpen();
    if (this.readOnly || !this.db) {
      return Promise.reject(new DrumError('DRUM_INTERNAL', `${what}: the catalog is open read-only`, { file: this.dir }));
    }
    const db = this.db;
    const run = this.queue.then(async () => {
      try {
        return await fn(db);
      } catch (e) {
        throw levelError(what, e, this.dir);
      }
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
