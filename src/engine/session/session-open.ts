// The stages of opening a store, which Session.open (session.ts) runs in
// order: the store opened and locked with the options' parameters, a store
// written by a drum without values given them, the run catalog opened and
// brought in line with the manifest (a rebuild `drum repair --catalog` did
// not finish refused, lost run records written again, a
// forget's host counts taken off, piled-up host deltas folded in a child
// process), the options the store's own parameters override, the tiers in
// front of the store loaded, the work directory made. Does not build the
// Session or choose the order (session.ts does), and does not undo a stage
// that fails: the caller closes the catalog left in HeldCatalog, then the
// store.
// REQUIRES: the stages after openStore get that store, open in this process
// (and locked, unless read-only); openCatalog is given the HeldCatalog its
// caller closes on failure.

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Catalog, DELTAS_BEFORE_FOLD, foldDue } from '../../catalog/catalog.js';
import { foldInChild } from '../../catalog/hosts/fold-child.js';
import { reconcileRuns } from '../../catalog/reconcile.js';
import { rebuiltRecord } from '../jobs/maintain/rebuilt-records.js';
import { UNFINISHED_REBUILD, unfinishedRebuild } from '../../catalog/rebuild-marker.js';
import type { CanonicalPolicy, CanonicalPolicyOptions } from '../../canonicalize/types.js';
import { DrumError } from '../../errors.js';
import { HASH_ID } from '../../fingerprint/key.js';
import type { DrumFs } from '../../io/fs.js';
import type { ResolvedOptions } from '../../options.js';
import { namedRunIds, type ManifestBody, type StoreParams } from '../../store/manifest.js';
import { Store } from '../../store/store.js';
import { addValues } from '../../store/upgrade.js';
import type { BlockedBloom } from '../../tiers/bloom.js';
import { readBloom } from '../../tiers/bloom-file.js';
import { HotCache } from '../../tiers/hot-cache.js';
import { RecentTable } from '../../tiers/recent-table.js';
import { loadTiers, TIER_FILE } from '../../tiers/tier-file.js';
import { recoverForgetHosts } from '../jobs/maintain/forget-records.js';
import { Front } from '../url-seen/front.js';
import { upgradedValue, URL_VALUE_BYTES } from '../url-seen/url-values.js';
import type { BudgetPlan } from './budget.js';

/** The catalog an open holds so far (null: none open), for its caller to close if a later stage fails. */
export interface HeldCatalog {
  catalog: Catalog | null;
  /** Host-count deltas the open folded, and the fold's wall ms (absent: no fold was due, fold-policy.ts). */
  foldedAtOpen?: { deltas: number; ms: number };
}

/** drum's files are little-endian typed arrays: refuses any other machine. */
export function requireLittleEndian(): void {
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
    throw new DrumError('DRUM_INTERNAL', 'drum needs a little-endian machine (its files are little-endian typed arrays)');
  }
}

/** Opens (or creates) the store at `dir` with the options' parameters and `policy`, taking its lock unless read-only. */
export function openStore(dir: string, dfs: DrumFs, opts: ResolvedOptions, policy: CanonicalPolicy, canonical: CanonicalPolicyOptions): Promise<Store> {
  return Store.open(dir, dfs, {
    buckets: opts.buckets, hostBits: opts.hostBits, hash: HASH_ID, policy: policy.id, canonical,
    valueBytes: opts.values === false ? 0 : URL_VALUE_BYTES,
  }, { readOnly: opts.readOnly, forcePolicy: opts.forcePolicy, fsync: opts.fsync, asked: { buckets: opts.asked.buckets, hostBits: opts.asked.hostBits, values: opts.values } });
}

/** A store written by a drum without values gets them on its first write (never silently: a notice says so). */
export function upgradeOldStore(dir: string, store: Store, dfs: DrumFs, opts: ResolvedOptions): void {
  if (!opts.readOnly && store.params.valueBytes === undefined && opts.values !== false) {
    const n = upgradeToValues(store, dfs, opts.fsync);
    opts.onNotice(`${dir}: upgraded to a store with values (docs/file-format.md): its ${n} URLs got docIDs 0..${Math.max(0, n - 1)} in key order, firstRun and lastEmitted unknown (0)`);
  }
}

/**
 * A writer's run catalog, in `held.catalog` (none read-only): refused when
 * lost although runs were committed, then brought in line with the manifest,
 * its piled-up host deltas folded.
 */
export async function openCatalog(dir: string, store: Store, opts: ResolvedOptions, held: HeldCatalog): Promise<void> {
  if (!opts.readOnly && unfinishedRebuild(dir) !== null) {
    // A rebuild cut short holds some runs' host counts and not others: writing on would keep the host table short for good.
    throw new DrumError('DRUM_CORRUPT_FILE', `${join(dir, 'catalog')}: ${UNFINISHED_REBUILD}: run it again`, { file: join(dir, 'catalog') });
  }
  if (!opts.readOnly && store.body.history.length > 0 && !existsSync(join(dir, 'catalog', 'CURRENT'))) {
    // Never paper over a lost catalog with an empty one: the run history and host table would vanish silently.
    throw new DrumError('DRUM_CORRUPT_FILE', `${join(dir, 'catalog')}: the run catalog is missing although runs were committed`, { file: join(dir, 'catalog') });
  }
  held.catalog = opts.readOnly ? null : await Catalog.open(dir, { sync: opts.fsync, faultHook: opts.faultHook });
  // A run whose final catalog write was lost (e.g. a full disk under catalog/) is recorded again from the manifest.
  if (held.catalog !== null) await reconcileRuns(held.catalog, store.body.history, (h) => rebuiltRecord(h, store.body, 'reconcile'));
  // A forget whose host counts a crash kept from the catalog: they come off now.
  if (held.catalog !== null) await recoverForgetHosts(store.body.history, held.catalog);
  // Fold piled-up per-round host deltas now, off the ingest's hot path, once they are due: at least
  // DELTAS_BEFORE_FOLD of them and as many bytes as the table (or a great many).
  if (held.catalog !== null && foldDue(await held.catalog.pendingShape(), DELTAS_BEFORE_FOLD)) {
    const t0 = performance.now();
    const deltas = await foldHostsInChild(dir, opts, held, namedRunIds(store.body));
    held.foldedAtOpen = { deltas, ms: performance.now() - t0 };
  }
}

/**
 * Folds the catalog's pending host deltas in a child process whose memory
 * goes when it exits (fold-child.ts), dropping the round markers of runs
 * not in `keepRuns`: `held.catalog` is closed for it and opened again, also
 * when the fold fails. Returns the deltas folded.
 */
export async function foldHostsInChild(
  dir: string, opts: Pick<ResolvedOptions, 'fsync' | 'faultHook'>, held: HeldCatalog, keepRuns: readonly string[],
): Promise<number> {
  const { fsync, faultHook } = opts;
  await held.catalog?.close();
  held.catalog = null;
  let folded: number;
  try {
    folded = await foldInChild(dir, fsync, keepRuns);
  } catch (e) {
    // Open again for whoever holds it (a failed fold leaves the old table and deltas), but report the fold's error.
    held.catalog = await Catalog.open(dir, { sync: fsync, faultHook }).catch(() => null);
    throw e;
  }
  held.catalog = await Catalog.open(dir, { sync: fsync, faultHook });
  return folded;
}

/**
 * The options an open store works with: the store's own parameters (a
 * caller that set others was refused at the open), and the bits per key of
 * its Bloom file unless the caller set them, so a filter rebuilt by a merge
 * or a forget keeps the store's size instead of going back to the default.
 */
export function storeOptions(opts: ResolvedOptions, p: StoreParams, bloom: ManifestBody['bloom']): ResolvedOptions {
  const bloomBitsPerKey = opts.asked.bloomBitsPerKey !== null || bloom === null ? opts.bloomBitsPerKey : bloom.bitsPerKey;
  return { ...opts, buckets: p.buckets, bucketBits: Math.log2(p.buckets), hostBits: p.hostBits, bloomBitsPerKey };
}

/** The tiers in front of the store: hot cache and recent table warmed from the last commit's saved tables, the Bloom filter read. */
export async function openFront(dir: string, dfs: DrumFs, store: Store, eff: ResolvedOptions, plan: BudgetPlan): Promise<Front> {
  let bloom: BlockedBloom | null = null;
  if (eff.bloom !== 'off' && store.body.bloom !== null) bloom = await readBloom(dfs, join(dir, store.body.bloom.file));
  const front = new Front(new HotCache(eff.cacheEntries), new RecentTable(eff.recentEntries), bloom, eff.bloom, plan.roundCapacity);
  // Warm tiers from the last commit's saved tables (ignored unless they match this commit exactly).
  loadTiers(join(dir, TIER_FILE), store.committed, [front.cache, front.recent]);
  return front;
}

/**
 * The work directory, made when given (default <dir>/work). `workDir` null (a
 * read-only open whose temp directory was refused): a path under one that
 * does not exist, so a stray write fails instead of landing elsewhere.
 */
export function openWorkDir(dir: string, dfs: DrumFs, workDir: string | null | undefined, eff: ResolvedOptions): string {
  if (workDir === null && !eff.readOnly) throw new DrumError('DRUM_INTERNAL', 'a writer needs a work directory');
  const wd = workDir === null ? join(dir, 'work', 'no-work-directory', String(process.pid)) : workDir ?? join(dir, 'work');
  if (workDir !== null) dfs.mkdirp(wd);
  return wd;
}

/**
 * Gives a keys-only store URL values (store/upgrade.ts): each stored key gets
 * docID = its index in key order, firstRun and lastEmitted unknown, no host
 * check (url-values.ts sentinels). Returns the keys upgraded.
 */
export function upgradeToValues(store: Store, dfs: DrumFs, fsync: boolean): number {
  return addValues(store, dfs, URL_VALUE_BYTES, (index, v, at) => upgradedValue(index, v, at), fsync);
}
