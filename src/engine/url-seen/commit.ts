// Runs a merge round against the committed store and commits its result
// (or, for a small plain round, a journal round: journal-round.ts; a merging
// round folds the journal into the bucket files first):
// the new bucket files and Bloom file named in a new manifest (one rename;
// a round without a Bloom mode names none: roundBloomEntry),
// then resets the buckets, aux log and per-round tier state. The caller
// supplies the rest of the manifest (its run state) and makes its own
// outputs durable in `beforeCommit`, so they commit with the store.

import { join } from 'node:path';
import type { RunCounters } from '../../stats/counters.js';
import { DrumError } from '../../errors.js';
import type { ManifestBody, ValuesEntry } from '../../store/manifest.js';
import { chainShape } from '../../store/values/value-chain.js';
import { writeBloom } from '../../tiers/bloom-file.js';
import type { BlockedBloom } from '../../tiers/bloom.js';
import { urlLogOf } from '../../store/url-log/url-log-format.js';
import type { UrlLogWriter } from '../../store/url-log/url-log-writer.js';
import { mergeRound } from './round.js';
import type { BlockSink } from '../workers/dispatch.js';
import type { Session } from '../session/session.js';
import type { CoreValues, WrittenBucket } from '../core/drum-core.js';
import { urlValueHooks } from './url-values.js';
import { RevisitRound, revisitHook, type RevisitRule } from './revisit.js';
import { foldJournal, journalRound, journalRoundFits } from './journal-round.js';

export interface CommitParams {
  counters: RunCounters;
  /** Each new URL and its ordinal in the round's aux log (arrival order), when the round dispatches on this thread. */
  emit: (buf: Buffer, start: number, end: number, ordinal: number) => void;
  /** Takes whole blocks of new URLs when the round dispatches through a worker (round.ts). */
  sink?: BlockSink;
  /** A revisit run: its rule, and where each due URL goes (in arrival order, after the round's merge). */
  revisit?: { rule: RevisitRule; emit: (buf: Buffer, start: number, end: number) => void };
  /** Stores with values: sees every new and hit ordinal's value after the merge (a graph run's docIDs). */
  valuesOut?: CoreValues['out'];
  /**
   * A plain check+update (no revisit, no values out): a round small enough
   * is answered by a check and journaled instead of merged (journal-round.ts).
   */
  journal?: boolean;
  /**
   * Makes the caller's outputs durable and returns the manifest fields it
   * owns (run, history); `storeUrls` and `journalKeys` are what the store and
   * its key journal hold once this commit lands.
   */
  beforeCommit: (storeUrls: number, journalKeys: number) => Promise<Pick<ManifestBody, 'run' | 'history'>>;
}

/**
 * Merges everything pending and commits it. Returns the number of new URLs
 * dispatched. On failure it leaves the round as it is: the job that owns the
 * round (Drum) calls forgetRound.
 */
export async function mergeAndCommit(s: Session, p: CommitParams): Promise<number> {
  if (p.journal === true && p.revisit === undefined && p.valuesOut === undefined && journalRoundFits(s)) return journalRound(s, p);
  // A merging round takes the journal's keys into the bucket files first (their values are needed by revisit and values out).
  await foldJournal(s, p.counters);
  const tm = performance.now();
  const body = s.store.body;
  const { log, emit } = loggedEmit(s, p.emit);
  const out = p.sink;
  const sink: BlockSink | undefined = log === null ? out : out && {
    urlsPerFile: out.urlsPerFile,
    room: () => out.room(),
    block: (b) => {
      log.appendLines(b.bytes, b.len, b.n, b.ends);
      out.block(b);
    },
  };
  const nowSec = Math.floor(s.opts.now() / 1000);
  const due = p.revisit !== undefined && s.valued ? new RevisitRound(s.aux.records) : null;
  const update = due === null ? null : revisitHook(p.revisit!.rule, due, nowSec);
  const res = await mergeRound({
    core: s.core, front: s.front, counters: p.counters, fsync: s.opts.fsync,
    files: s.storeFiles(), bloomKeys: s.plan.bloomMaxKeys, bloomBitsPerKey: s.opts.bloomBitsPerKey, emit,
    worker: { pool: s.pool, minRecords: s.opts.tuning.workerDispatchMin }, sink,
    time: (stage, ms, items) => s.timer.add(stage, ms, items), values: roundValues(s, nowSec, update, p.valuesOut ?? null),
  });
  if (due !== null && due.count > 0) {
    // The due URLs, in arrival order: one more sequential read of the round's aux log.
    const td = performance.now();
    s.aux.forEachWanted(due.bits, 4 << 20, (_o, buf, start, end) => p.revisit!.emit(buf, start, end));
    s.timer.add('revisit', performance.now() - td, due.count);
  }
  if (due !== null) p.counters.revisitUrls += due.count;
  s.timer.add('merge', performance.now() - tm, s.aux.records);
  const buckets = namedBuckets(s, body, res.written);
  const bloom = await roundBloomEntry(s, res.bloom);
  const storeUrls = buckets.reduce((a, e) => a + (e ? e.keys : 0), 0);
  const owned = await p.beforeCommit(storeUrls, s.journal?.count ?? 0); // the fold above emptied the journal
  const docIDs = s.valued ? { docIDs: (body.docIDs ?? 0) + res.newUrls } : {};
  const urlLog = log === null ? {} : { urlLog: await log.sync() };
  s.store.commit({ ...body, ...owned, buckets, bloom, storeUrls, ...docIDs, ...urlLog });
  s.front.bloom = res.bloom;
  s.front.recent.onMerged();
  s.nextRound();
  // Every key in the cache and the recent table is stored now; the session saves them for the next process.
  s.committed(writtenFiles(buckets, res.written));
  return res.newUrls;
}

/**
 * Starts the URL log's commit (stores with values) and wraps `emit` so each
 * new URL is appended to it as it is dispatched: every new URL takes the
 * next docID, in dispatch order. The log is null for a keys-only store.
 */
export function loggedEmit(s: Session, emit: CommitParams['emit']): { log: UrlLogWriter | null; emit: CommitParams['emit'] } {
  const log = s.urlLog;
  log?.begin(urlLogOf(s.store.body));
  return {
    log,
    emit: log === null ? emit : (buf, start, end, ordinal) => {
      log.append(buf, start, end);
      emit(buf, start, end, ordinal);
    },
  };
}

/**
 * The Bloom entry of a commit that rewrites key files (a merging round, a
 * fold): the filter the round rebuilt from every key it streamed past, or
 * null when it rebuilt none (no Bloom mode). The older file is never kept
 * then: it lacks the keys the round merged, and a `lossy` run that reloads
 * it, sized for the store it was built for, fills it with every new key it
 * routes until nearly every key is "maybe seen" and dropped.
 */
export async function roundBloomEntry(s: Session, bloom: BlockedBloom | null): Promise<ManifestBody['bloom']> {
  if (bloom === null) return null;
  const name = `bloom-g${String(s.store.body.commit + 1).padStart(6, '0')}.bloom`;
  await writeBloom(s.dfs, join(s.dir, name), bloom, { fsync: s.opts.fsync });
  return { file: name, keys: bloom.keys, bitsPerKey: s.opts.bloomBitsPerKey };
}

/** The key and values files a round wrote, as the new manifest names them (a bucket may keep an older values file). */
export function writtenFiles(buckets: ManifestBody['buckets'], written: Map<number, WrittenBucket>): string[] {
  const out: string[] = [];
  for (const [b, w] of written) {
    const e = buckets[b]!;
    out.push(e.file);
    if (w.values !== undefined && e.values !== undefined) out.push(w.values.delta === undefined ? e.values.file : e.values.deltas!.at(-1)!.file);
  }
  return out;
}

/**
 * The manifest's bucket list after a round that wrote `written`: each written
 * bucket names its new key file and, when its values changed, its new values
 * file, or its values file with the round's delta after its others (else it
 * keeps the values it had).
 */
export function namedBuckets(s: Session, body: ManifestBody, written: Map<number, WrittenBucket>): ManifestBody['buckets'] {
  const buckets = body.buckets.slice();
  for (const [b, w] of written) {
    const had = buckets[b]?.values;
    let values: ValuesEntry | undefined = had;
    const v = w.values;
    if (v !== undefined && v.delta !== undefined) {
      if (had === undefined) throw new DrumError('DRUM_INTERNAL', `bucket ${b}: a values delta without a values file`);
      values = { ...had, deltas: [...(had.deltas ?? []), { file: s.store.nextDeltaFile(b).name, bytes: v.file.bytes, crc: v.file.crc, count: v.delta }] };
    } else if (v !== undefined) {
      values = { file: s.store.nextValuesFile(b).name, bytes: v.file.bytes, crc: v.file.crc };
    }
    buckets[b] = { file: s.store.nextKeysFile(b).name, keys: w.file.keys, bytes: w.file.bytes, crc: w.file.crc, ...(values !== undefined ? { values } : {}) };
  }
  return buckets;
}

/**
 * A writing round's values for a store with values (URL values,
 * url-values.ts), else undefined. Every round that writes the store's key
 * files must pass it ('delete' too: the dropped keys' values go).
 */
export function roundValues(
  s: Session, nowSec = Math.floor(s.opts.now() / 1000), update: CoreValues['update'] = null, out: CoreValues['out'] = null,
): CoreValues | undefined {
  if (!s.valued) return undefined;
  const st = s.store;
  const body = st.body;
  return {
    files: {
      openValues: (b, buffers) => st.openValues(b, buffers),
      valuesOutputPath: (b) => st.nextValuesFile(b).path,
      deltas: { chainOf: (b) => chainShape(st.body.buckets[b]), outputPath: (b) => st.nextDeltaFile(b).path },
    },
    ...urlValueHooks({ docBase: body.docIDs ?? 0, run: body.run?.seq ?? 0, nowSec }),
    update,
    out,
  };
}

/**
 * After a job that failed or stopped early (ingest, checkUpdate, stream):
 * the keys it routed but never committed are dropped (dropRound), and every
 * tier is put back to what the committed store vouches for — line memos, hot
 * cache, recent table and the in-RAM Bloom filter (Session.resetTiers) —
 * since they may vouch for those keys. The committed input position is where
 * a retry starts.
 */
export async function forgetRound(s: Session): Promise<void> {
  dropRound(s);
  await s.resetTiers();
}

/**
 * Drops the keys a job routed but never committed: pending buckets and aux
 * log. Enough on its own after a check, which routes without feeding the
 * tiers (Front.route's `learn`).
 */
export function dropRound(s: Session): void {
  try {
    s.core.reset();
  } catch {
    // Leftover work files are removed when the store is next opened for writing.
  }
}

/** True when the buckets or the round are full enough that a merge must run now. */
export function mergeDue(s: Session): boolean {
  return s.pending.largest >= s.plan.maxBucketEntries || s.aux.records >= s.plan.maxRoundEntries;
}
