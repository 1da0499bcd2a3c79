// The public engine: open a store on a state directory, then ingest (check +
// update, writing a run's outputs), check (read-only), stats and verify;
// close() releases everything. Re-exports canonicalizeLines (its own file)
// for `drum canonicalize`. The CLI and the stream API are thin layers over this class.
// Does not do the jobs (src/engine/jobs) or arbitrate between them
// (job-gate.ts: one job at a time, close() waits).
// REQUIRES: close() once done: a writer holds the store's lock, and the
// parse workers keep the process alive, until then.

import * as fs from 'node:fs';
import { DrumError } from '../errors.js';
import type { DrumOptions } from '../options.js';
import type {
  AddOptions, AddResult, CheckRequest, FeedOptions, ForgetReport, ForgetRequest, IngestRequest, LibraryRunStats, Link, RunReport, StoreStats, UrlStream, UrlStreamOptions,
  VerifyResult,
} from './api.js';
import { check, type CheckResult } from './jobs/read/check.js';
import { forgetJob } from './jobs/maintain/forget.js';
import { compactJob, type CompactResult } from './jobs/maintain/compact.js';
import { storeStats } from './jobs/read/store-stats.js';
import { forgetRound } from './url-seen/commit.js';
import { ingest } from './jobs/ingest/ingest.js';
import { Session } from './session/session.js';
import { assertDocIds, assertOpenArgs, assertFeedFormat, assertForgetRequest, assertReadRequest } from './job-args.js';
import { assertFeedSource, assertRunOptions, Feeder, FEED_ROUND_URLS, feedRun, type FeedItem } from './pipeline/feed.js';
import { LinkStream } from './jobs/ingest/stream.js';
import { LinkAdder } from './jobs/ingest/add-links.js';
import { isDrumError } from '../errors.js';
import { readManifest } from '../store/manifest.js';
import { verifyStore } from './jobs/maintain/verify-store.js';
import { docUrls } from './jobs/read/doc-urls.js';
import { readOnlyWorkDir } from '../io/private-temp.js';
import { resolve, type ResolveRequest, type ResolveResult } from './jobs/read/resolve.js';
import { JobGate } from './job-gate.js';

export { repair, type RepairResult } from './jobs/maintain/repair.js';
export { upgradeStore, type UpgradeResult } from './jobs/maintain/upgrade.js';
export type { CompactResult } from './jobs/maintain/compact.js';

export class Drum {
  private session: Session | null;
  private tempWork: string | null;
  private closed: Promise<void> | null = null;
  private readonly gate = new JobGate();
  private adder: LinkAdder | null = null;
  /** Jobs started on this open store (the first one may report what the open did). */
  private jobs = 0;

  /** A read-only open whose private work directory could not be made: why (only check needs one). */
  private readonly tempFault: DrumError | null;

  private constructor(session: Session, tempWork: string | null, tempFault: DrumError | null = null) {
    this.session = session;
    this.tempWork = tempWork;
    this.tempFault = tempFault;
  }

  /**
   * Opens (or creates) the store in stateDir. Writers take the lock
   * (DRUM_LOCKED if held); `readOnly` opens see the last committed state
   * (a bucket a writer replaced since is read from its newer files when the
   * process cannot keep every store file open: store/unpinned-buckets.ts),
   * take no lock and write only to a private temporary directory (when the
   * temp directory refuses one, they still read: stats and verify work while
   * no writer runs, reading the run catalog in place, and check fails with
   * DRUM_IO).
   */
  static async open(stateDir: string, opts: DrumOptions = {}): Promise<Drum> {
    assertOpenArgs(stateDir, opts);
    const work = opts.readOnly ? readOnlyWorkDir() : { dir: null, fault: null };
    try {
      return new Drum(await Session.open(stateDir, opts, opts.readOnly ? work.dir : undefined), work.dir, work.fault);
    } catch (e) {
      if (work.dir) fs.rmSync(work.dir, { recursive: true, force: true });
      throw e;
    }
  }

  private writer(s: Session): Session {
    if (s.opts.readOnly) throw new DrumError('DRUM_BAD_OPTION', 'storing URLs needs a store opened for writing');
    return s;
  }

  /**
   * Runs a job alone; the run of earlier add() calls ends first. A `reader` (it shares the session's round,
   * so never runs beside one) keeps their run: it waits for the calls made before it, later ones wait for it.
   */
  private job<T>(fn: (s: Session) => Promise<T>, reader = false, assertArgs?: () => void): Promise<T> {
    let s: Session;
    try {
      s = this.gate.use(this.session);
      assertArgs?.();
    } catch (e) {
      // A closed or busy store rejects the promise, as every other failure does: `.catch()` sees it.
      return Promise.reject(e);
    }
    this.jobs++;
    if (!reader) return this.gate.run(s, () => this.endAdds().then(() => undefined), fn);
    const adder = s.opts.readOnly ? null : (this.adder ??= new LinkAdder(s));
    return this.gate.run(s, async () => adder?.pause(), fn, true);
  }

  /** Check+update: ingests the inputs, writing unique-*.txt, rejects.tsv and report.json to the run's out dir. */
  ingest(req: IngestRequest): Promise<RunReport> {
    return this.job(async (s) => {
      if (s.opts.readOnly) throw new DrumError('DRUM_BAD_OPTION', 'ingest needs a store opened for writing');
      try {
        return await ingest(s, req);
      } catch (e) {
        // Routed but uncommitted keys are gone; nothing in RAM may vouch for them in a later job.
        await forgetRound(s);
        throw e;
      }
    }, false, () => assertReadRequest('ingest', req));
  }

  /**
   * Removes URLs from the store in one merge round: each is new again to the
   * next ingest (docs/library.md). `urls` (or the URL files of `inputs`) are
   * canonicalized with the store's policy; the forget is recorded as a run
   * (forgotten.txt and rejects.tsv in its output directory, `drum runs`) and
   * its URLs come off the host counts. Ends the run of earlier add() calls.
   */
  forget(req: ForgetRequest | Iterable<string>): Promise<ForgetReport> {
    return this.job((s) => forgetJob(s, req), false, () => assertForgetRequest(req));
  }

  /**
   * Does the deferred merges now (docs/library.md): the key journal into the
   * key files, the pending host counts into the host table. Nothing is
   * ingested; a no-op on a compact store. Ends the run of earlier add() calls.
   */
  compact(): Promise<CompactResult> {
    // The open's host fold is this compaction's to report only when nothing ran on the store before it.
    const first = this.jobs === 0 && this.adder === null;
    return this.job((s) => compactJob(this.writer(s), first));
  }

  /** Read-only check: calls req.onNew for each URL not yet stored, in input order. Adds nothing. */
  check(req: CheckRequest): Promise<CheckResult> {
    if (this.tempFault !== null) return Promise.reject(this.tempFault);
    return this.job((s) => check(s, req), false, () => assertReadRequest('check', req));
  }

  /**
   * Check+update of a crawler's links: resolves, once they are stored, with
   * the canonical form of each link new to the store (in the order given),
   * the rejects by index and the duplicate count. `base` is the page the
   * links were found on (relative links resolve against it); a Link's own
   * `source` wins. Calls made while a round merges are stored together in the
   * next round (group commit); they share one library run, which endRun() or
   * close() ends (docs/library.md). Waits for a reader (stats, urls, resolve); fails beside another job.
   */
  add(links: Iterable<string | Link>, opts: AddOptions = {}): Promise<AddResult> {
    try {
      const s = this.writer(this.gate.use(this.session, true));
      this.adder ??= new LinkAdder(s);
      return this.adder.add(links, opts);
    } catch (e) {
      return Promise.reject(e);
    }
  }

  /** Counts of the run that add() calls feed; null when none is open. */
  runStats(): LibraryRunStats | null {
    return this.adder?.stats() ?? null;
  }

  /** Ends the run of the add() calls made before it (report.json, catalog record 'complete'; later calls start the next) and returns its report; null when none was open. */
  async endRun(): Promise<RunReport | null> {
    // Once close() is called it ends the run itself: the calls after it fail, as add() does.
    if (this.session === null || this.gate.closing) throw new DrumError('DRUM_CLOSED', 'this drum store is closed');
    return this.endAdds();
  }

  /** Ends the run of add() calls (for a job, a stream or checkUpdate that starts after them). */
  private async endAdds(): Promise<RunReport | null> {
    return (await this.adder?.end()) ?? null;
  }

  /**
   * Check+update over links in memory, as a run of its own: strings and
   * Buffers are text of URL lines or TSV rows (opts.format), a list is a batch
   * of links (one link per element), a Link object one link. Yields the new
   * URLs in arrival order as rounds commit (at least every FEED_ROUND_URLS
   * pending URLs, and at the end); returns the run's report.
   */
  async *checkUpdate(source: Iterable<FeedItem> | AsyncIterable<FeedItem>, opts: FeedOptions = {}): AsyncGenerator<string, RunReport | null> {
    assertFeedSource(source);
    assertFeedFormat('checkUpdate', opts);
    assertRunOptions(opts.runOptions);
    const s = this.writer(this.gate.use(this.session));
    const release = this.gate.hold();
    return yield* feedRun(new Feeder(s, opts, FEED_ROUND_URLS, this.endAdds()), source, release);
  }

  /**
   * A Transform stream (node:stream), a run of its own: write URL lines or
   * TSV rows in, read new URLs out ("url\n" lines, arrival order). The store
   * is busy until the stream ends; close() waits for that. Destroying the
   * stream drops what it routed but had not committed.
   */
  stream(opts: UrlStreamOptions = {}): UrlStream {
    assertFeedFormat('stream', opts);
    const s = this.writer(this.gate.use(this.session));
    const release = this.gate.hold();
    const t = new LinkStream(s, opts, this.endAdds());
    t.releaseWhenSettled(release);
    return t;
  }

  /** The store's size, parameters and recent runs. Does not end the run of add() calls (waits for the calls made before it). */
  stats(): Promise<StoreStats> {
    return this.job(storeStats, true);
  }

  /** Full check of every committed file: manifest, key files (CRCs, order, buckets), Bloom file, URL log, run catalog. */
  verify(): Promise<VerifyResult> {
    return this.job(verifyStore);
  }

  /**
   * The URL each docID was assigned to, in the order given (docs/library.md):
   * null for a docID the store never assigned, or assigned before its URL
   * log began. A forgotten URL's docID still gives its URL. Reads the
   * committed state; does not end the run of add() calls (waits for the calls made before it).
   */
  urls(docIds: Iterable<number>): Promise<(string | null)[]> {
    return this.job(async (s) => docUrls(s, docIds), true, () => assertDocIds(docIds));
  }

  /**
   * The docID of each link of the inputs, in input order, by one batch merge
   * per round (docs/library.md): onResolved(docID, canonical URL), docID null
   * when the store does not hold the URL. Reads only (a store with values), beside the add() run as urls().
   */
  resolve(req: ResolveRequest): Promise<ResolveResult> {
    return this.job((s) => resolve(s, req, s.opts.tuning.resolveRoundLinks), true, () => assertReadRequest('resolve', req));
  }

  /**
   * Closes the store. Waits for what is running first: a job, a live stream
   * (until its writer ends it) or checkUpdate, and the add() calls in flight;
   * then ends the add() run. Calls made after close() fail with DRUM_CLOSED.
   */
  close(): Promise<void> {
    if (this.session === null) return Promise.resolve();
    return (this.closed ??= this.shut(this.session));
  }

  private async shut(s: Session): Promise<void> {
    await this.gate.drain();
    let failed: unknown = null;
    try {
      await this.adder?.end();
    } catch (e) {
      failed = e;
    }
    this.session = null;
    try {
      await s.close();
    } finally {
      if (this.tempWork) fs.rmSync(this.tempWork, { recursive: true, force: true });
    }
    if (failed !== null) throw failed;
  }
}

/** Verifies a state directory without opening it for work: a broken manifest is a problem, not a throw. */
export async function verifyStateDir(stateDir: string): Promise<VerifyResult> {
  try {
    if (readManifest(stateDir) === null) throw new DrumError('DRUM_NOT_FOUND', `no drum store at ${stateDir}`, { file: stateDir });
  } catch (e) {
    if (isDrumError(e, 'DRUM_CORRUPT_FILE')) {
      return { ok: false, filesChecked: 1, keysChecked: 0, problems: [{ file: e.file ?? stateDir, code: e.code, message: e.message }] };
    }
    throw e;
  }
  const d = await Drum.open(stateDir, { readOnly: true, forcePolicy: true, workers: 0 });
  try {
    return await d.verify();
  } finally {
    await d.close();
  }
}

export { canonicalizeLines } from './jobs/read/canonicalize-lines.js';
