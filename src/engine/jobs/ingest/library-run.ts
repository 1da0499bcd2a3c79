// A library run: what Drum.add, Drum.stream and Drum.checkUpdate store goes
// through a run like an ingest's, without input files. It has a run id and
// its own directory under <state>/runs/ (unique-*.txt of its new URLs in
// arrival order, rejects.tsv, report.json at its end), its state in the
// MANIFEST (so the host counts of a round a crash cut off are recovered, as
// for ingest), a record in the run catalog updated at every committed round,
// and host-table counts per round. Each round's new URLs also go back to the
// callers that fed them, by arrival ordinal (Taker). Does not decide when a
// round commits (add-links.ts and feed.ts do) and does not split lines.
// REQUIRES: a session opened for writing; one run at a time per session.

import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { RunRecord } from '../../../catalog/records.js';
import { foldDue } from '../../../catalog/hosts/fold-policy.js';
import type { LineChunk, Reject } from '../../../input/types.js';
import { flattenCounters, newRunCounters, restoreCounters, type RunCounters } from '../../../stats/counters.js';
import type { RunReport } from '../../../stats/report.js';
import { namedRunIds, type RunState } from '../../../store/manifest.js';
import type { LibraryRunStats } from '../../api.js';
import { forgetRound, mergeAndCommit, mergeDue } from '../../url-seen/commit.js';
import type { Session } from '../../session/session.js';
import { recoverHostCounts } from '../../hosts/host-recovery.js';
import { pushHistory } from './run-history.js';
import { settleAbandoned } from './run-records.js';
import { RunOutputs } from './run-outputs.js';
import { buildReport, writeReport } from './report-build.js';
import { IoTally } from './run-meter.js';
import { newRunId, URLS_PER_FILE } from './run-setup.js';

/** The input path a library run records: its links came through the API, not from a file. */
export const LIBRARY_INPUT = '(library)';

/** A caller waiting for its share of a round: the new URLs of its ordinals, and its rejects. */
export interface Taker {
  /** Receives each new URL of this taker, in arrival order; null: the caller does not want them. */
  newUrls: string[] | null;
  /** Counts this taker's new URLs (also when newUrls is null). */
  news: number;
  onReject?: (r: Reject) => void;
  /** Called with this taker's new URLs of a round before the round commits (newUrls must then be kept). */
  beforeCommit?: (newUrls: readonly string[]) => Promise<void>;
}

/** Ordinals [a, b) of the round's aux log routed for one taker. */
interface Segment {
  a: number;
  b: number;
  taker: Taker;
}

export class LibraryRun {
  private readonly c: RunCounters = newRunCounters();
  private readonly t0 = performance.now();
  private segments: Segment[] = [];
  private readonly tooLong: Reject[] = [];
  private readonly decoder = new TextDecoder();
  private roundFrom: { file: number; bytes: number };
  private ended = false;
  /** Lines fed so far: the next link's line number is lines + 1. */
  lines = 0;

  private constructor(
    private readonly s: Session,
    private readonly run: RunState,
    private readonly out: RunOutputs,
    /** The run's IO and tier counts: its start, routing and commits (readers may run between them). */
    private readonly io: IoTally,
  ) {
    this.roundFrom = { file: run.unique.file, bytes: run.unique.bytes };
    io.addTo(this.c);
  }

  /**
   * Starts a run: records it in the MANIFEST (a 'running' run left by an
   * earlier job is abandoned into the history), `runOptions` among its options.
   */
  static async start(s: Session, runOptions: Readonly<Record<string, string>> = {}): Promise<LibraryRun> {
    s.timer.startRun();
    const io = new IoTally(s.dfs, s.front);
    await recoverHostCounts(s.store.body.run, s.catalog, { dfs: s.dfs, path: join(s.workDir, 'hosts-recovery.parts') });
    const runId = newRunId();
    const run: RunState = {
      runId, status: 'running', startedAt: new Date().toISOString(), finishedAt: null,
      inputs: [{ path: LIBRARY_INPUT, bytes: 0, sha256: '', sampled: false }], skipped: [false], options: { ...runOptions, format: 'library' },
      outDir: join(resolve(s.dir), 'runs', runId), position: { input: 0, offset: 0, line: 0 }, rounds: 0,
      unique: { file: 1, bytes: 0, urls: 0, urlsPerFile: s.opts.tuning.urlsPerFile ?? URLS_PER_FILE }, rejectsBytes: 0, counters: {},
    };
    const body = s.store.body;
    let history = body.history;
    if (body.run !== null && body.run.status === 'running') {
      const old = body.run;
      // Its outputs are cut to its last commit first, as an ingest cuts them: a round a crash cut off may have written
      // new URLs past it that were never stored, which this run may find new again.
      settleAbandoned(s.dfs, old);
      history = pushHistory(history, { ...old, status: 'abandoned' }, restoreCounters(old.counters));
    }
    run.seq = (body.runSeq ?? 0) + 1;
    s.store.commit({ ...body, run: { ...run }, history, runSeq: run.seq });
    const out = new RunOutputs(s.dfs, run, false, s.workDir, s.opts.fsync);
    s.front.startRound();
    return new LibraryRun(s, run, out, io);
  }

  stats(): LibraryRunStats {
    const c = this.c;
    return {
      runId: this.run.runId, outDir: this.run.outDir, linksRead: c.linksRead, uniqueUrls: c.uniqueUrls, duplicateUrls: c.duplicateUrls,
      rejectedLines: c.rejectedLines, rejectsByReason: { ...c.rejectsByReason }, rounds: this.run.rounds,
    };
  }

  /** Parses and routes one chunk; its URLs that reach the aux log are the taker's. Commits first when the round is full. */
  async route(chunk: LineChunk, taker: Taker): Promise<void> {
    const s = this.s;
    this.io.restart();
    const p = await s.pool.parse(chunk);
    this.reject(p.rejects, taker);
    const a = s.aux.records;
    s.front.route(p, s.core, this.c, this.tooLong);
    s.pool.release(p); // route() copied what it keeps
    if (s.aux.records > a) this.segments.push({ a, b: s.aux.records, taker });
    this.reject(this.tooLong, taker);
    this.tooLong.length = 0;
    this.lines = Math.max(this.lines, chunk.endLine);
    this.run.position.line = this.lines;
    this.io.addTo(this.c);
    if (this.due()) await this.commit();
  }

  /** The round is full enough that it must merge now (buckets, round capacity, or `roundUrls` pending URLs). */
  due(roundUrls = Infinity): boolean {
    return mergeDue(this.s) || this.s.aux.records >= roundUrls;
  }

  private reject(rs: readonly Reject[], taker: Taker): void {
    if (rs.length === 0) return;
    if (taker.onReject !== undefined) for (const r of rs) taker.onReject(r);
    this.out.countRejects(this.c, rs);
  }

  /**
   * Merges and commits everything routed: the round's new URLs go to the
   * unique files, the host counter and their takers; the MANIFEST names the
   * run's new state; then the catalog gets the round's host counts and the
   * run's record. `final`: the run ends with this round (report.json).
   */
  async commit(final = false): Promise<RunReport | null> {
    const s = this.s;
    this.io.restart();
    const run = this.run;
    const segs = this.segments;
    this.segments = [];
    let k = 0;
    let report: RunReport | null = null;
    const hooked = new Map<Taker, number>();
    for (const g of segs) if (g.taker.beforeCommit !== undefined && g.taker.newUrls !== null) hooked.set(g.taker, g.taker.newUrls.length);
    await mergeAndCommit(s, {
      counters: this.c,
      journal: true,
      emit: (buf, start, end, ordinal) => {
        this.out.emit(buf, start, end);
        while (k < segs.length && segs[k]!.b <= ordinal) k++;
        const seg = segs[k];
        if (seg === undefined || seg.a > ordinal) return;
        seg.taker.news++;
        seg.taker.newUrls?.push(this.decoder.decode(buf.subarray(start, end)));
      },
      beforeCommit: async (storeUrls, journalKeys) => {
        // Together, so callers can share one fsync of their queue; the round waits for every one before it fails.
        const hooks = await Promise.allSettled([...hooked].map(([t, from]) => t.beforeCommit!(t.newUrls!.slice(from))));
        for (const h of hooks) if (h.status === 'rejected') throw h.reason;
        const point = await this.out.sync();
        this.io.addTo(this.c);
        this.c.elapsedMs = performance.now() - this.t0;
        const status = final ? 'complete' : 'running';
        if (final) {
          report = buildReport(s, { ...run, status }, this.c, [false], this.out.unique.fileNames(), this.c.elapsedMs, 'complete', [], { storeUrls, journalKeys });
          writeReport(s.dfs, run.outDir, report);
        }
        const next: RunState = {
          ...run, position: { ...run.position }, rounds: run.rounds + 1, unique: point, lastRoundFrom: { ...this.roundFrom },
          rejectsBytes: this.out.rejects.committedLength(), counters: flattenCounters(this.c), status,
          finishedAt: final ? new Date().toISOString() : null,
        };
        run.rounds = next.rounds;
        const history = s.store.body.history;
        return { run: next, history: final ? pushHistory(history, next, this.c) : history };
      },
    });
    this.roundFrom = { file: s.store.body.run!.unique.file, bytes: s.store.body.run!.unique.bytes };
    await this.out.applyHostCounts(s.catalog, run.runId, run.rounds);
    await this.record(final ? 'complete' : 'running');
    if (final) await afterLibraryRun(s);
    return report;
  }

  /** Ends the run: a last round (possibly empty) commits with report.json; the outputs are closed. Returns the report. */
  async end(): Promise<RunReport> {
    let report: RunReport | null;
    try {
      report = await this.commit(true);
    } finally {
      // Until the last round's MANIFEST has landed, fail() must still forget what the run routed.
      const landed = this.s.store.body.run;
      this.ended = landed?.runId === this.run.runId && landed.status === 'complete';
    }
    await this.out.close();
    // Every routed chunk was committed: the tiers and memos now vouch only for stored URLs.
    await this.s.saveCaches();
    return report!;
  }

  /**
   * The run stops without its last round: what it routed but did not commit
   * is forgotten (the tiers are reset to the store), the outputs closed at
   * their committed length, and the catalog record marked failed. Its
   * MANIFEST state stays 'running'; the next run abandons it.
   */
  async fail(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await forgetRound(this.s);
    await this.out.abandon();
    await this.record('failed').catch(() => undefined);
  }

  private async record(status: 'running' | 'complete' | 'failed'): Promise<void> {
    const cat = this.s.catalog;
    if (cat === null) return;
    const run = this.run;
    const c = this.c;
    await cat.putRun({
      runId: run.runId, startedAt: run.startedAt, finishedAt: status === 'running' ? null : new Date().toISOString(), status,
      inputs: [{ path: LIBRARY_INPUT, bytes: 0, sha256: null }],
      counts: { linksRead: c.linksRead, uniqueUrls: c.uniqueUrls, duplicateUrls: c.duplicateUrls, rejectedLines: c.rejectedLines },
      outDir: run.outDir, outputFiles: this.out.unique.fileNames(), options: { ...run.options },
    });
  }
}

/**
 * Removes the run directories pruned runs left in their default place,
 * `<state>/runs/<run-id>/` (their new URLs went to the caller; an output
 * directory the caller named stays). Best effort: one that cannot go stays.
 */
async function removeRunDirs(stateDir: string, rs: RunRecord[]): Promise<void> {
  for (const r of rs) {
    const dir = join(resolve(stateDir), 'runs', r.runId);
    if (r.outDir === dir) await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Pending host-count deltas from which a long-running process folds them (in a child process) after a library run, once due (fold-policy.ts). */
export const LIBRARY_FOLD_DELTAS = 1024;

/**
 * After a library run, in a process that may never close (a crawler's
 * batches, drum serve's rounds): the host-count deltas are folded in a child
 * process once due (fold-policy.ts: at least LIBRARY_FOLD_DELTAS, where a
 * writer's open needs 64, and as many bytes as the table); and
 * with `libraryRunRecords`, at the process's first library run and every
 * tenth of that many after, the complete library runs older than the newest
 * `libraryRunRecords` go from the catalog. Best effort: the run is committed
 * and its URLs are the caller's, so a failure is a notice, not the run's.
 */
async function afterLibraryRun(s: Session): Promise<void> {
  const keep = s.opts.libraryRunRecords;
  const n = s.libraryRunsEnded++;
  try {
    const pending = s.catalog === null ? null : await s.catalog.pendingShape();
    if (pending !== null && foldDue(pending, Math.max(s.opts.tuning.libraryFoldDeltas ?? LIBRARY_FOLD_DELTAS, s.libraryFoldAfter))) {
      // A fold that fails (a damaged host table: verify names it) is tried again only once twice as many wait.
      s.libraryFoldAfter = 2 * pending.parts;
      await s.foldHostCounts();
      s.libraryFoldAfter = 0;
    }
    if (keep === null || s.catalog === null || n % Math.max(1, Math.floor(keep / 10)) !== 0) return;
    // The manifest's runs stay whatever their start times say (a clock stepped back): reconcile would add them again.
    const named = new Set(namedRunIds(s.store.body));
    const removable = (r: RunRecord): boolean =>
      r.status === 'complete' && r.kind === undefined && r.inputs.length === 1 && r.inputs[0]!.path === LIBRARY_INPUT && !named.has(r.runId);
    await s.catalog.pruneRuns(keep, removable, (rs) => removeRunDirs(s.dir, rs));
  } catch (e) {
    s.opts.onNotice(`after run: ${(e as Error).message}`);
  }
}
