// The public engine: open a store on a state directory, then ingest (check +
// update, writing a run's outputs), check (read-only), stats and verify;
// close() releases everything. Re-exports canonicalizeLines (its own file)
// for `drum canonicalize`. The CLI and the stream API are thin layers over this class.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { DrumError } from '../errors.js';
import { expectedCollisions } from '../fingerprint/key.js';
import type { DrumOptions } from '../options.js';
import { readBloom } from '../tiers/bloom-file.js';
import type { CheckRequest, IngestRequest, RunReport, StoreStats, VerifyProblem, VerifyResult } from './api.js';
import { check, type CheckResult } from './jobs/check.js';
import { dropRound, forgetRound } from './core/commit.js';
import { ingest } from './jobs/ingest.js';
import { diskUsage } from '../stats/disk-usage.js';
import { Session } from './core/session.js';
import { Catalog } from '../catalog/catalog.js';
import { Feeder } from './pipeline/feed.js';
import { feederStream } from './jobs/stream.js';
import type { UrlStream } from './jobs/stream.js';
import { isDrumError } from '../errors.js';
import { readManifest } from '../store/manifest.js';
import { makePrivateTemp, sweepStaleTemps } from '../io/private-temp.js';

export { repair, type RepairResult } from './jobs/repair.js';

export class Drum {
  private session: Session | null;
  private tempWork: string | null;
  private busy = false;
  /** Settles when a destroyed stream's last push and its forgetRound are done (close() waits for it). */
  private cleanup: Promise<unknown> = Promise.resolve();

  private constructor(session: Session, tempWork: string | null) {
    this.session = session;
    this.tempWork = tempWork;
  }

  /**
   * Opens (or creates) the store in stateDir. Writers take the lock
   * (DRUM_LOCKED if held); `readOnly` opens see the last committed state,
   * take no lock and write only to a private temporary directory.
   */
  static async open(stateDir: string, opts: DrumOptions = {}): Promise<Drum> {
    let temp: string | null = null;
    if (opts.readOnly) {
      // Spill directories of checks whose process is gone (killed by SIGKILL, power loss) go first.
      sweepStaleTemps();
      temp = makePrivateTemp();
    }
    try {
      return new Drum(await Session.open(stateDir, opts, temp ?? undefined), temp);
    } catch (e) {
      if (temp) fs.rmSync(temp, { recursive: true, force: true });
      throw e;
    }
  }

  private use(): Session {
    if (this.session === null) throw new DrumError('DRUM_CLOSED', 'this drum store is closed');
    if (this.busy) throw new DrumError('DRUM_BAD_OPTION', 'one job at a time per open store');
    return this.session;
  }

  private async job<T>(fn: (s: Session) => Promise<T>): Promise<T> {
    const s = this.use();
    this.busy = true;
    try {
      await abandonLeftovers(s);
      return await fn(s);
    } finally {
      this.busy = false;
    }
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
    });
  }

  /** Read-only check: calls req.onNew for each URL not yet stored, in input order. Adds nothing. */
  check(req: CheckRequest): Promise<CheckResult> {
    return this.job((s) => check(s, req));
  }

  /**
   * Check+update over URLs in memory: feed strings, string arrays or Buffers
   * of newline-separated lines; yields the new URLs in arrival order as
   * merges commit (at least every FEED_ROUND_URLS pending URLs, and at the end).
   * `opts.beforeCommit` receives each merge's new URLs before that merge
   * commits: a caller that must never lose a committed new URL writes them
   * durably there (a crash after it and before the commit leaves them recorded
   * but not stored; feeding them again stores them).
   */
  async *checkUpdate(
    source: Iterable<string | Buffer | readonly string[]> | AsyncIterable<string | Buffer | readonly string[]>,
    opts: { beforeCommit?: (newUrls: readonly string[]) => Promise<void> } = {},
  ): AsyncGenerator<string> {
    const s = this.use();
    this.busy = true;
    let completed = false;
    try {
      await abandonLeftovers(s);
      const f = new Feeder(s, undefined, undefined, opts.beforeCommit);
      for await (const item of source) yield* await f.push(item);
      yield* await f.end();
      completed = true;
    } finally {
      // A source that threw or a consumer that stopped early leaves keys routed but never committed.
      try {
        if (!completed) await forgetRound(s);
      } finally {
        this.busy = false;
      }
    }
  }

  /**
   * A Transform stream (through2): write URL lines in, read new URLs out
   * ("url\n" lines, arrival order). The store is busy until the stream ends.
   */
  stream(): UrlStream {
    const s = this.use();
    this.busy = true;
    const feeder = new Feeder(s);
    const t = feederStream(feeder);
    let settled = false;
    const done = (ended: boolean): void => {
      if (settled) return;
      settled = true;
      if (ended) {
        this.busy = false;
        return;
      }
      // Destroyed or failed before its end: what it routed was never committed. A push may still be
      // merging (destroying the stream does not stop it): let it finish before the round is dropped.
      feeder.abandon();
      this.cleanup = feeder.settled().then(() => forgetRound(s)).catch(() => undefined).finally(() => (this.busy = false));
    };
    t.once('end', () => done(true));
    t.once('error', () => done(false));
    t.once('close', () => done(false));
    return t;
  }

  stats(): Promise<StoreStats> {
    return this.job(async (s) => {
      const b = s.store.body;
      let storeBytes = 0;
      let files = 0;
      for (const e of b.buckets) {
        if (e) {
          storeBytes += e.bytes;
          files++;
        }
      }
      let bloom: StoreStats['bloom'] = null;
      if (b.bloom) {
        const size = s.dfs.size(join(s.dir, b.bloom.file));
        const f = await readBloom(s.dfs, join(s.dir, b.bloom.file));
        bloom = { bitsPerKey: b.bloom.bitsPerKey, sizeBytes: size, keys: b.bloom.keys, expectedFpRate: f.expectedFpRate() };
        files++;
        storeBytes += size;
      }
      // Same-host pairs dominate the collision estimate: use the host table's biggest hosts.
      const hostCounts: number[] = [];
      const cat = s.catalog ?? (await Catalog.open(s.dir, { readOnly: true }));
      try {
        for (const h of await cat.topHosts(1000)) hostCounts.push(h.uniqueUrls);
      } finally {
        if (cat !== s.catalog) await cat.close();
      }
      return {
        stateDir: s.dir,
        formatVersion: b.formatVersion,
        storeUrls: b.storeUrls,
        storeBytes,
        files,
        buckets: b.params.buckets,
        hostBits: b.params.hostBits,
        policy: b.params.policy,
        expectedCollisions: expectedCollisions(b.storeUrls, b.params.hostBits, hostCounts),
        bloom,
        recentRuns: b.history.slice().reverse().map((h) => ({
          runId: h.runId, status: h.status, startedAt: h.startedAt, uniqueUrls: h.uniqueUrls, linksRead: h.linksRead,
        })),
        disk: diskUsage(s.dir),
      };
    });
  }

  /** Full check of every committed file: manifest, key files (CRCs, order, buckets), Bloom file. */
  verify(): Promise<VerifyResult> {
    return this.job(async (s) => {
      const r = s.verifyStore();
      const body = s.store.body;
      if (body.bloom) {
        r.filesChecked++;
        try {
          await readBloom(s.dfs, join(s.dir, body.bloom.file));
        } catch (e) {
          if (!isDrumError(e)) throw e;
          r.problems.push({ file: e.file ?? body.bloom.file, code: e.code, message: e.message });
        }
      }
      r.filesChecked++; // the manifest, checked when the store opened
      const cat = await checkCatalog(s.dir, body.history.length > 0);
      const notChecked: VerifyProblem[] = [];
      if (cat !== null && cat.code === 'DRUM_IO') notChecked.push(cat);
      else if (cat !== null) r.problems.push(cat);
      if (notChecked.length === 0) r.filesChecked++;
      return { ok: r.problems.length === 0, filesChecked: r.filesChecked, keysChecked: r.keysChecked, problems: r.problems, notChecked };
    });
  }

  async close(): Promise<void> {
    const s = this.session;
    if (s === null) return;
    this.session = null;
    // A destroyed stream's last push may still be running: the session (pool, store, catalog) goes only after it.
    await this.cleanup;
    try {
      await s.close();
    } finally {
      if (this.tempWork) fs.rmSync(this.tempWork, { recursive: true, force: true });
    }
  }
}

/**
 * Reads the whole run catalog (runs, inputs, host table) read-only (from a
 * copy when the catalog is locked or on read-only media). A catalog that
 * LevelDB reports corrupt, or that is missing although runs were committed,
 * is a problem naming the catalog directory; one that cannot be opened or
 * copied for an OS reason (DRUM_IO) is returned as DRUM_IO: not checked.
 */
async function checkCatalog(stateDir: string, expected: boolean): Promise<VerifyProblem | null> {
  const dir = join(stateDir, 'catalog');
  if (!fs.existsSync(join(dir, 'CURRENT'))) {
    return expected
      ? { file: dir, code: 'DRUM_CORRUPT_FILE', message: 'the run catalog is missing (no CURRENT) although runs were committed' }
      : null;
  }
  let cat: Catalog | null = null;
  try {
    cat = await Catalog.open(stateDir, { readOnly: true });
    await cat.listRuns(1_000_000);
    await cat.topHosts(1);
    return null;
  } catch (e) {
    if (!isDrumError(e)) throw e;
    // The OS refused access (read-only media, permissions, descriptors, a full temp dir for the copy): not checked.
    const refused = e.code === 'DRUM_IO' && /Read-only file system|Permission denied|Operation not permitted|Too many open files|No space left|E(ROFS|ACCES|PERM|MFILE|NFILE|NOSPC)\b/.test(e.message);
    return { file: dir, code: refused ? 'DRUM_IO' : e.code === 'DRUM_IO' ? 'DRUM_CORRUPT_FILE' : e.code, message: e.message };
  } finally {
    await cat?.close().catch(() => undefined);
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

export { canonicalizeLines } from './jobs/canonicalize-lines.js';

/**
 * Before a job: a round an earlier job left without cleaning up (every job
 * path forgets its own; a backstop) is forgotten. A read-only session only
 * ever checks, which teaches the tiers nothing, so it drops the round
 * without reloading them.
 */
async function abandonLeftovers(s: Session): Promise<void> {
  if (s.pending.total === 0 && s.aux.records === 0) return;
  if (s.opts.readOnly) dropRound(s);
  else await forgetRound(s);
}
