// Everything an open store holds while it works: the state directory's
// Store, the file-system seam, resolved options and budget plan, the
// canonicalization policy, the tiers, the pending buckets and aux log, the
// sort area, the parse pool and the catalog. Opening and closing these
// together is session.ts's only job (open runs its stages, session-open.ts,
// in order); the jobs (ingest, check) use them.
// REQUIRES: a little-endian machine (open refuses another); close() once
// done (it releases the store's lock and the catalog's).

import { join } from 'node:path';
import { availableParallelism, totalmem } from 'node:os';
import { AuxLog } from '../../bucket/aux-log.js';
import { PendingBuckets } from '../../bucket/pending.js';
import type { Catalog } from '../../catalog/catalog.js';
import { resolvePolicy } from '../../canonicalize/policy.js';
import type { CanonicalPolicy } from '../../canonicalize/types.js';
import { DrumFs } from '../../io/fs.js';
import { resolveOptions, type DrumOptions, type ResolvedOptions } from '../../options.js';
import { StageTimer } from '../../stats/counters.js';
import type { Store } from '../../store/store.js';
import { UrlLogWriter } from '../../store/url-log/url-log-writer.js';
import { namedRunIds, readManifest } from '../../store/manifest.js';
import { verifyKeyFiles, type StoreVerifyResult } from '../../store/verify.js';
import { VerifiedFiles } from './session-verified.js';
import { readBloom } from '../../tiers/bloom-file.js';
import { BlockedBloom } from '../../tiers/bloom.js';
import { chunkLinksMax, JOURNAL_ROUND_RECORDS, planBudget, type BudgetPlan } from './budget.js';
import type { Front } from '../url-seen/front.js';
import { WarmCaches } from './session-caches.js';
import {
  foldHostsInChild, openCatalog, openFront, openStore, openWorkDir, requireLittleEndian, storeOptions, upgradeOldStore, type HeldCatalog,
} from './session-open.js';
import { loadTiers, TIER_FILE } from '../../tiers/tier-file.js';
import { ParsePool } from '../workers/parse-pool.js';
import { SortArea } from '../core/sort-area.js';
import type { BucketFiles } from '../core/sort-stage.js';
import { DrumCore } from '../core/drum-core.js';
import { URL_VALUE_WORDS } from '../url-seen/url-values.js';
import type { JournalTable } from '../../store/journal/journal-table.js';
import { JournalLog, openJournal } from '../../store/journal/journal-file.js';

export class Session {
  readonly timer = new StageTimer();
  /** The host-count fold this session's open ran, if any; the first compaction reports it (compact.ts). */
  foldedAtOpen: { deltas: number; ms: number } | null = null;
  /** Library runs this session ended (their record pruning goes by it). */
  libraryRunsEnded = 0;
  /** After a failed fold: the pending host-count deltas at which a library run tries again. */
  libraryFoldAfter = 0;
  readonly area: SortArea;
  /** The DRUM core over this store's buckets, aux log and sort area; URL-seen is its client. */
  readonly core: DrumCore;
  /** The bucket files this session may trust without reading them again (session-verified.ts). */
  private readonly verified: VerifiedFiles;
  /** The warm-start caches (tiers.cache, memo.cache): when to save them, and their loads and saves. */
  readonly caches: WarmCaches;
  /** Appends each commit's new URLs to the URL log (their docIDs); null for a read-only session. */
  readonly urlLog: UrlLogWriter | null;
  /** The key journal's keys (journal-round.ts), or null when the journal is off and the store has none. */
  readonly journal: JournalTable | null;
  /** Appends small rounds' new keys to the journal file; null for a read-only session or without a journal. */
  readonly journalLog: JournalLog | null;

  private constructor(
    readonly dir: string,
    readonly dfs: DrumFs,
    readonly store: Store,
    readonly opts: ResolvedOptions,
    readonly policy: CanonicalPolicy,
    readonly plan: BudgetPlan,
    readonly front: Front,
    readonly pending: PendingBuckets,
    readonly aux: AuxLog,
    readonly pool: ParsePool,
    /** Open for a writer, null for a reader; foldHostCounts closes and opens it again. */
    public catalog: Catalog | null,
    readonly workDir: string,
  ) {
    const valued = store.valueBytes > 0;
    this.area = new SortArea(plan.sortEntries, valued);
    this.caches = new WarmCaches(this);
    this.core = new DrumCore(dfs, pending, aux, this.area, valued ? URL_VALUE_WORDS : 0, join(workDir, 'values-events.dat'));
    front.seedHostChecks = valued;
    // Stores with values keep the text of every docID (a keys-only store keeps its speed and has no docIDs).
    this.urlLog = opts.readOnly || !valued ? null : new UrlLogWriter(dfs, dir, { fsync: opts.fsync, ...opts.tuning.urlLog });
    this.journal = openJournal(dfs, dir, store.body.journal, this.core.valueWords, opts.journalKeys);
    this.journalLog = opts.readOnly || this.journal === null ? null : new JournalLog(dfs, dir, store.body.journal ?? null, this.core.valueWords, opts.fsync);
    front.journal = this.journal;
    this.verified = new VerifiedFiles(dfs, dir, store, opts.readOnly);
    // The keys of every round small enough to be a journal round are kept by ordinal (journal-round.ts).
    if (this.journalLog !== null) this.core.recordKeys(JOURNAL_ROUND_RECORDS);
    this.bloomWithJournal();
  }

  /**
   * A Bloom filter for a store whose every key is in the key journal: it
   * has no Bloom file (a fold writes the first one), so a Bloom mode would
   * otherwise answer nothing until then. It starts empty: the front asks
   * the journal's exact table before the filter, so no journaled key ever
   * reaches it, and adding them (to this filter or to one read from a
   * file) would only spend the room the run's new keys need. Written to no
   * file, it is sized for every key it can take before a fold or a merge
   * replaces it — the journal's room, then one merging round (at most the
   * budget's Bloom share) — so a new store's first big run does not fill
   * it. A store with keys in its key files and no Bloom file gets none
   * (docs/tiers.md).
   */
  private bloomWithJournal(): void {
    const j = this.journal, front = this.front;
    if (j === null || this.opts.bloom === 'off' || front.bloom !== null) return;
    if (this.store.body.storeUrls !== j.count || this.plan.bloomMaxKeys === 0) return;
    const keys = Math.min(this.plan.bloomMaxKeys, Math.max(1024, j.room + this.plan.roundCapacity));
    front.bloom = BlockedBloom.forKeys(keys, this.opts.bloomBitsPerKey);
  }

  /** True when the store keeps a value per URL (docs/file-format.md). */
  get valued(): boolean {
    return this.store.valueBytes > 0;
  }

  /**
   * `workDir`: where the buckets spill and the aux log goes (default <dir>/work); null for a
   * read-only session that has none (its temp directory was refused): it reads, and a spill fails.
   */
  static async open(dir: string, options: DrumOptions = {}, workDir?: string | null): Promise<Session> {
    requireLittleEndian();
    const t0 = performance.now();
    const opts = resolveOptions(options, availableParallelism(), totalmem());
    // Without policy options, an existing store keeps the policy it was built with.
    const canonical = opts.canonical ?? readManifest(dir)?.params.canonical ?? {};
    const policy = resolvePolicy(canonical);
    const dfs = new DrumFs(undefined, opts.faultHook);
    const store = await openStore(dir, dfs, opts, policy, canonical);
    const held: HeldCatalog = { catalog: null };
    try {
      upgradeOldStore(dir, store, dfs, opts);
      await openCatalog(dir, store, opts, held);
      const eff = storeOptions(opts, store.params, store.body.bloom);
      const plan = planBudget(eff, chunkLinksMax(eff.chunkBytes), store.valueBytes > 0);
      const front = await openFront(dir, dfs, store, eff, plan);
      const wd = openWorkDir(dir, dfs, workDir, eff);
      const pending = new PendingBuckets(dfs, wd, eff.bucketBits, plan.bufferEntries, store.valueBytes > 0);
      const aux = new AuxLog(dfs, join(wd, 'aux.dat'), 4 << 20);
      const pool = new ParsePool(policy, eff.hostBits, eff.workers, plan.lineMemoEntries, true, eff.tuning.typescriptFastPath !== 1);
      const session = new Session(dir, dfs, store, eff, policy, plan, front, pending, aux, pool, held.catalog, wd);
      session.foldedAtOpen = held.foldedAtOpen ?? null;
      session.caches.loadMemos();
      // Lock, manifest, tier caches, catalog open and reconcile: what a process pays before its first link.
      session.timer.add('open', performance.now() - t0, 0);
      return session;
    } catch (e) {
      // The catalog's LevelDB lock too: a later open in this process must not find it held.
      await held.catalog?.close().catch(() => undefined);
      await store.close();
      throw e;
    }
  }

  /** The committed store as the merge's file source. */
  storeFiles(): BucketFiles {
    const st = this.store;
    return {
      openReader: (b, buffer) => st.openReader(b, buffer),
      outputPath: (b) => st.nextKeysFile(b).path,
      keysIn: (b) => st.body.buckets[b]?.keys ?? 0,
    };
  }

  /** After a round's merge: empties the buckets and the aux log and starts the next round. */
  nextRound(): void {
    this.core.reset();
    this.front.startRound();
  }

  /**
   * Puts the in-RAM tiers back to what the committed store vouches for:
   * forgets the line memos, reloads the hot cache and recent table from the
   * commit's tiers.cache (empty if it has none) and the Bloom filter from its
   * file. forgetRound calls it after a job routed keys it never stored:
   * otherwise a later job would call those URLs seen.
   */
  async resetTiers(): Promise<void> {
    this.caches.dirty = false; // back to what the saved files hold (or cold): nothing to save
    this.pool.clearMemo();
    this.caches.loadMemos();
    this.front.cache.clear();
    this.front.recent.clear();
    loadTiers(join(this.dir, TIER_FILE), this.store.committed, [this.front.cache, this.front.recent]);
    const bf = this.store.body.bloom;
    // Dropped first: if the reload fails, no key of the abandoned work stays in the filter.
    this.front.bloom = null;
    this.front.bloom = this.opts.bloom !== 'off' && bf !== null ? await readBloom(this.dfs, join(this.dir, bf.file)) : null;
    this.bloomWithJournal();
  }

  /**
   * Empties the line memos, the hot cache and the recent table (a revisit
   * run: their answers must come from this run, not an earlier one). The
   * Bloom filter stays: it never answers without the store.
   */
  clearTiers(): void {
    this.pool.clearMemo();
    this.front.cache.clear();
    this.front.recent.clear();
  }

  /**
   * Reads and checks every key file the manifest names (verify). A reader
   * that could not pin them checks again, with the newest files of each
   * bucket a writer's commit took away meanwhile (store/unpinned-buckets.ts):
   * a file deleted by a commit is not damage.
   */
  verifyStore(): StoreVerifyResult {
    for (let attempt = 1; ; attempt++) {
      const r = verifyKeyFiles(this.dfs, this.dir, this.store.body);
      if (r.ok || attempt >= 20 || !this.store.followReplaced()) return r;
    }
  }

  /**
   * The check before a job writes: every key file this session has not
   * already verified or written itself (a long-running process reads the
   * store once, not before every batch; its merges check each block they
   * read by CRC anyway).
   */
  verifyBeforeWrite(): StoreVerifyResult {
    return this.verified.verifyBeforeWrite();
  }

  /** Records the committed bucket files this session verified or wrote, for the next writer's check (verified-cache.ts). */
  saveVerified(): void {
    this.verified.save();
  }

  /**
   * After a commit: `written` names the key and values files it wrote (a
   * bucket may keep a values file of an earlier commit); its key files are
   * known good, and each written file is vouched for with its identity now.
   * The tiers changed.
   */
  committed(written: Iterable<string>): void {
    this.verified.written(written);
    this.caches.dirty = true;
  }

  /** Saves the warm-start caches when a commit changed them and it is time (session-caches.ts). */
  async saveCaches(now = false): Promise<void> {
    await this.caches.save(now);
  }

  /**
   * Folds every pending host-count delta into the host table in a child
   * process, as a writer's open does once they pile up (fold-child.ts): the
   * catalog is closed for it and opened again. Returns the deltas folded.
   */
  async foldHostCounts(): Promise<number> {
    if (this.catalog === null || (await this.catalog.pendingDeltas()) === 0) return 0;
    const held: HeldCatalog = { catalog: this.catalog };
    try {
      return await foldHostsInChild(this.dir, this.opts, held, namedRunIds(this.store.body));
    } finally {
      // Not reopened: keep the closed one, so the next catalog write fails loudly instead of being skipped as a reader's.
      if (held.catalog !== null) this.catalog = held.catalog;
    }
  }

  /**
   * Closes everything, each part even when an earlier one fails (after an IO
   * error the work files may refuse to go; the catalog's LevelDB lock and the
   * store lock must still be released). Throws the first failure.
   */
  async close(): Promise<void> {
    const failures: unknown[] = [];
    const step = async (fn: () => unknown): Promise<void> => {
      try {
        await fn();
      } catch (e) {
        failures.push(e);
      }
    };
    // Only when nothing is routed but uncommitted (a job that failed has reset the tiers: nothing to save then).
    if (this.aux.records === 0 && this.pending.total === 0) await step(() => this.saveCaches(true));
    await step(() => this.pool.close());
    await step(() => this.pending.reset());
    await step(() => this.aux.discard());
    await step(() => this.urlLog?.close());
    await step(() => this.journalLog?.close());
    if (this.catalog !== null) await step(() => this.catalog!.close());
    await step(() => this.store.close());
    if (failures.length > 0) throw failures[0];
  }
}
