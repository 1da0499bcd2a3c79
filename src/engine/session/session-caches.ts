// A session's warm-start caches: the tiers (hot cache and recent table,
// tiers.cache), the parse threads' line memos (memo.cache) and the bucket
// files known sound (verified.cache, store/verified-cache.ts), each tied to
// the commit it was saved after. Loads the memos at open, and saves both
// when a commit changed them and CACHE_SAVE_MS passed (or when asked to now:
// a process closing). Only a warm start for the next process: a failed save
// means a cold start, never a wrong answer (a cache saved after another
// commit is ignored), and a notice says so once per file and session. Does not load the tiers (Session.open does, with the
// Bloom filter) or decide what the tiers hold.
// REQUIRES: saves only with no round in flight (every key the tiers and
// memos hold is stored).

import { join } from 'node:path';
import { saveCache } from '../../tiers/cache-file.js';
import { osCode, type DrumError } from '../../errors.js';
import { loadMemos, MEMO_FILE, saveMemos } from '../../tiers/memo-file.js';
import { saveTiers, TIER_FILE } from '../../tiers/tier-file.js';
import type { Session } from './session.js';

/** A long-running process saves its warm-start caches at most this often (and when it closes). */
const CACHE_SAVE_MS = 60_000;

export class WarmCaches {
  /** A commit changed the tiers since they were last saved (or loaded). */
  dirty = false;
  private lastSave = performance.now();
  /** Caches whose save failed in this session (told once). */
  private readonly unsaved = new Set<string>();

  constructor(private readonly s: Session) {}

  /** Warms the line memos from memo.cache if it was saved after the committed state (else they stay as they are). */
  loadMemos(): void {
    const s = this.s;
    const tables = loadMemos(join(s.dir, MEMO_FILE), s.store.committed, s.policy.id, s.pool.memoEntries);
    s.pool.loadMemoTables(tables);
  }

  /**
   * Saves the tiers and line memos when a commit changed them and
   * CACHE_SAVE_MS passed since the last save (or `now`): a process saves
   * them when it closes and a long-running one every CACHE_SAVE_MS, not
   * after every commit (19 MiB at the defaults).
   */
  async save(now = false): Promise<void> {
    const s = this.s;
    if (!this.dirty || s.opts.readOnly) return;
    if (!now && performance.now() - this.lastSave < CACHE_SAVE_MS) return;
    const t = performance.now();
    this.dirty = false;
    this.lastSave = t;
    saveCache(() => saveTiers(s.dfs, join(s.dir, TIER_FILE), s.store.committed, [s.front.cache, s.front.recent]), (e) => this.skipped(TIER_FILE, e));
    s.saveVerified();
    await this.saveMemos();
    s.timer.add('save-caches', performance.now() - t, 0);
  }

  /** A cache the OS would not let be written (a full disk): said once per file and session, as it changes nothing stored. */
  private skipped(file: string, e: DrumError): void {
    if (this.unsaved.has(file)) return;
    this.unsaved.add(file);
    this.s.opts.onNotice(`${join(this.s.dir, file)} not saved (${osCode(e) ?? e.message}): the next process starts without it; nothing stored is lost`);
  }

  /** Saves the line memos. REQUIRES: no chunk in flight (then every line a memo holds gave a URL that is now stored). */
  private async saveMemos(): Promise<void> {
    const s = this.s;
    if (s.opts.readOnly || s.pool.memoEntries === 0) return;
    let tables: Uint32Array[] = [];
    try {
      tables = await s.pool.lendMemoTables();
      if (tables.length === 0) return; // memos off, or a failed pool: nothing whole to save
      saveCache(() => saveMemos(s.dfs, join(s.dir, MEMO_FILE), s.store.committed, s.policy.id, s.pool.memoEntries, tables), (e) => this.skipped(MEMO_FILE, e));
    } finally {
      s.pool.returnMemoTables(tables);
    }
  }
}
