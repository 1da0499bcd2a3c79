// The key journal's two rounds (docs/design.md, "Key journal"): LevelDB's
// log and memtable, with DRUM's merge as the compaction.
// journalRound answers a small round by DRUM's "check" — a merge with the
// bucket files that writes nothing and reads only the blocks its keys land
// in — then appends the round's new keys with their values to the journal
// (one batch, one fsync) and commits the manifest naming the journal's new
// end: a small batch costs in proportion to the batch, not to the store.
// The front answers a key the journal holds as a duplicate (front.ts).
// foldJournal merges every journal key, with the value it got when it was
// journaled, into the bucket files ('update' on a core of its own, so the
// session's pending round is untouched) and commits the manifest without a
// journal, and a Bloom file rebuilt from every stored key, or none without a
// Bloom mode (a journal round writes none and keeps the last one: a Bloom
// filter that lacks the journal's keys only sends them to the disk check,
// and the session adds them to it in RAM).
// REQUIRES: the session opened for writing; one round at a time; the
// round's keys recorded (DrumCore.recordKeys) from its first add().

import { join } from 'node:path';
import { AuxLog } from '../../bucket/aux-log.js';
import { PendingBuckets } from '../../bucket/pending.js';
import { newRunCounters } from '../../stats/counters.js';
import type { CommitParams } from './commit.js';
import { loggedEmit, namedBuckets, roundBloomEntry, roundValues, writtenFiles } from './commit.js';
import { BlockedBloom } from '../../tiers/bloom.js';
import { DrumCore } from '../core/drum-core.js';
import { mergeRound } from './round.js';
import { JOURNAL_ROUND_RECORDS } from '../session/budget.js';
import type { Session } from '../session/session.js';


/** True when the round pending now can be a journal round (its keys recorded, the journal on). */
export function journalRoundFits(s: Session): boolean {
  const j = s.journal;
  return j !== null && s.opts.journalKeys > 0 && s.aux.records <= Math.min(JOURNAL_ROUND_RECORDS, s.core.recordedKeys, j.capacity);
}

/**
 * Answers the pending round against the bucket files, journals its new keys
 * and commits; folds first when the journal lacks room for them. Returns the
 * number of new URLs dispatched. On failure it leaves the round as it is
 * (the job calls forgetRound).
 */
export async function journalRound(s: Session, p: CommitParams): Promise<number> {
  const journal = s.journal!;
  if (journal.room < s.aux.records) await foldJournal(s, p.counters);
  const tm = performance.now();
  const body = s.store.body;
  const { log, emit } = loggedEmit(s, p.emit);
  const files = { ...s.storeFiles(), outputPath: () => null, firstKeys: s.store.firstKeys.bind(s.store) };
  const res = await mergeRound({
    core: s.core, op: 'check', front: s.front, counters: p.counters, fsync: s.opts.fsync, files, bloomKeys: 0,
    bloomBitsPerKey: s.opts.bloomBitsPerKey, emit, time: (stage, ms, items) => s.timer.add(stage, ms, items),
  });
  // The check counted a merge; this round stores nothing in the bucket files.
  const tj = performance.now();
  // The round's own entries: another store's journal round may run while this one awaits its commit.
  const entries = newEntries(s, res.newBits, res.newUrls);
  const point = res.newUrls === 0 ? s.store.body.journal ?? null : s.journalLog!.append(entries, res.newUrls, s.store.body.commit + 1);
  s.timer.add('journal', performance.now() - tj, res.newUrls);
  s.timer.add('merge', performance.now() - tm, s.aux.records);
  const storeUrls = body.storeUrls + res.newUrls;
  p.counters.journalRounds++; // before beforeCommit: a final round's report counts it
  // The round's keys join the journal's table only once the manifest names them: count them now for the report.
  const owned = await p.beforeCommit(storeUrls, journal.count + res.newUrls);
  const docIDs = s.valued ? { docIDs: (body.docIDs ?? 0) + res.newUrls } : {};
  const urlLog = log === null ? {} : { urlLog: await log.sync() };
  const next = { ...body, ...owned, storeUrls, ...docIDs, ...urlLog, ...(point === null ? {} : { journal: point }) };
  try {
    s.store.commit(next);
  } finally {
    // Also when the commit threw after its manifest landed (Store.commit): the journal's end and table follow the disk.
    if (s.store.body === next) {
      if (point !== null) s.journalLog!.committed(point);
      addToTable(s, entries, res.newUrls);
    }
  }
  s.front.recent.onMerged();
  s.nextRound();
  s.committed([]);
  return res.newUrls;
}

/**
 * Each new key's entry, in arrival order — its key and the value a merging
 * round would have given it (url-values.ts: the docID of its rank, the run,
 * the clock, its host check) — from the round's verdicts `bits`.
 */
function newEntries(s: Session, bits: Uint8Array, newKeys: number): Uint32Array {
  const w = 2 + s.core.valueWords;
  const scratch = new Uint32Array(newKeys * w);
  if (newKeys === 0) return scratch;
  const hooks = roundValues(s);
  const key = new Uint32Array(3);
  let rank = 0;
  for (let o = 0; o < s.aux.records; o++) {
    if ((bits[o >>> 3]! & (1 << (o & 7))) === 0) continue;
    s.core.keyOf(o, key, 0);
    const at = rank * w;
    scratch[at] = key[0]!;
    scratch[at + 1] = key[1]!;
    hooks?.fill(o, rank, scratch, at + 2, key[2]!);
    rank++;
  }
  return scratch;
}

/** After the commit: the journaled keys join the table the front asks. */
function addToTable(s: Session, entries: Uint32Array, newKeys: number): void {
  const w = 2 + s.core.valueWords;
  for (let e = 0; e < newKeys; e++) s.journal!.add(entries[e * w]!, entries[e * w + 1]!, entries, e * w + 2);
}

/**
 * Merges every journal key into the bucket files and commits the manifest
 * without a journal. A no-op when the journal is empty. Does not touch the
 * session's pending round. `wholeValues`: each touched bucket's values file
 * is written whole (folding its deltas) instead of taking the journal's
 * values as a delta, for a caller that folds every delta next (compact).
 */
export async function foldJournal(s: Session, counters = newRunCounters(), wholeValues = false): Promise<void> {
  const journal = s.journal;
  const body = s.store.body;
  if (journal === null || body.journal === undefined) return;
  const t = performance.now();
  const wd = join(s.workDir, 'fold');
  s.dfs.mkdirp(wd);
  const per = Math.min(4096, Math.max(64, Math.ceil((1.25 * journal.count) / s.pending.count)));
  const pending = new PendingBuckets(s.dfs, wd, s.pending.bits, per, s.pending.seeded);
  const aux = new AuxLog(s.dfs, join(wd, 'aux.dat'), 64 << 10);
  const core = new DrumCore(s.dfs, pending, aux, s.area, s.core.valueWords, join(wd, 'values-events.dat'));
  try {
    const none = new Uint8Array(0);
    // Ordinal e is journal entry e: its value is the one it was journaled with.
    for (let e = 0; e < journal.count; e++) core.add(journal.keys[2 * e]!, journal.keys[2 * e + 1]!, none, 0, 0);
    const vw = s.core.valueWords;
    const base = roundValues(s);
    const values = base === undefined ? undefined : {
      ...base,
      files: wholeValues ? { openValues: base.files.openValues, valuesOutputPath: base.files.valuesOutputPath } : base.files,
      fill: (o: number, _rank: number, v: Uint32Array, at: number): void => {
        for (let k = 0; k < vw; k++) v[at + k] = journal.values[o * vw + k]!;
      },
    };
    // As a merging round does, the fold rebuilds the Bloom filter from every key it stores or keeps.
    const bloom = s.plan.bloomMaxKeys === 0 ? null
      : BlockedBloom.forStore(body.storeUrls, s.opts.bloomBitsPerKey, s.plan.bloomMaxKeys);
    const v = await core.merge('update', {
      files: s.storeFiles(), fsync: s.opts.fsync, counters: newRunCounters(), onHit: null, values,
      keySink: bloom === null ? null : (keys, n) => bloom.addPairs(keys, n),
      time: (stage, ms, items) => s.timer.add(`fold-${stage}`, ms, items),
    });
    const buckets = namedBuckets(s, body, v.written);
    const storeUrls = buckets.reduce((a, e) => a + (e ? e.keys : 0), 0);
    const bloomEntry = await roundBloomEntry(s, bloom);
    const { journal: _folded, ...rest } = body;
    try {
      s.store.commit({ ...rest, buckets, storeUrls, bloom: bloomEntry });
    } finally {
      // At once, and also when the commit threw after its manifest landed: the journal the disk no longer names
      // must not be appended to or asked again.
      if (s.store.body.journal === undefined) {
        s.journalLog!.reset();
        journal.clear();
      }
    }
    // It lacks the keys of a round routed but not merged yet: a filter without them only sends them to the check.
    s.front.bloom = bloom;
    s.committed(writtenFiles(buckets, v.written));
  } finally {
    core.reset();
  }
  counters.journalFolds++;
  s.timer.add('fold', performance.now() - t, 0);
}
