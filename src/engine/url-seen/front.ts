// Routes each parsed URL through the in-RAM tiers — the parse threads'
// line-memo answers and in-chunk repeat marks, hot cache, recently-added table, optional Bloom
// gate, and the key journal's table of stored keys no fold has merged yet — and sends what they cannot answer to the DRUM core (drum-core.ts):
// the key, with the URL text as its aux payload, under its arrival ordinal.
// Counts every tier's lookups and hits. Does not merge or decide when to.
// Tier semantics: a key in the cache or the recent table was seen earlier in
// the stream (stored, or pending with an earlier ordinal): a certain duplicate.
// A key in the journal table is stored: a certain duplicate too.
// The Bloom filter learns the keys it calls "definitely new" only while it
// has room (BlockedBloom.room), so no round fills it past its design rate;
// the front counts the false positives its answers should carry.

import { AUX_MAX_URL_BYTES } from '../../bucket/aux-log.js';
import type { Reject } from '../../input/types.js';
import type { BloomMode } from '../../options.js';
import type { RunCounters } from '../../stats/counters.js';
import type { BlockedBloom } from '../../tiers/bloom.js';
import type { HotCache } from '../../tiers/hot-cache.js';
import type { RecentTable } from '../../tiers/recent-table.js';
import type { ParsedChunk } from '../pipeline/parse.js';
import type { DrumCore } from '../core/drum-core.js';
import { hostCheckOf } from '../../fingerprint/key.js';
import type { JournalTable } from '../../store/journal/journal-table.js';

export class Front {
  /** Gate mode: bit per ordinal of this round, set when the Bloom said "maybe seen". */
  maybeSeen: Uint8Array = new Uint8Array(0);
  /** Stores with values: each key carries its URL's host check as its seed (its value needs it once it is known to be new). */
  seedHostChecks = false;
  /** The key journal's keys (stored, not yet in a bucket file), or null when the store has no journal. */
  journal: JournalTable | null = null;

  constructor(
    readonly cache: HotCache,
    readonly recent: RecentTable,
    public bloom: BlockedBloom | null,
    readonly bloomMode: BloomMode,
    /** Entries a round can reach (the budget's roundCapacity): sizes the gate's per-ordinal bits. */
    private readonly roundCapacity: number,
  ) {}

  /** Starts a round: clears the gate's per-ordinal bits. */
  startRound(): void {
    if (this.bloomMode === 'gate') {
      const need = (this.roundCapacity >>> 3) + 1;
      if (this.maybeSeen.length < need) this.maybeSeen = new Uint8Array(need);
      else this.maybeSeen.fill(0);
    }
  }

  /**
   * Routes every URL of `p`. Counts accepted links and in-RAM duplicates into
   * `c`; URLs too long for the aux log are appended to `tooLong` as rejects.
   * `learn` false (a check, whose URLs are never stored): the tiers answer
   * but take in nothing — no recent-table add, no promotion, no Bloom add —
   * so a repeat within the job reaches the buckets, where the merge drops it.
   * One method on purpose: it is the main thread's per-URL loop, every tier
   * asked in turn with the chunk's arrays in locals.
   */
  route(p: ParsedChunk, core: DrumCore, c: RunCounters, tooLong: Reject[], learn = true): void {
    const { batch, keys, repeats } = p;
    const anyRepeats = p.repeatCount > 0;
    const n = batch.count;
    const bytes = batch.bytes;
    const ends = batch.ends;
    const cache = this.cache;
    const recent = this.recent;
    const bloom = this.bloom;
    const journal = this.journal !== null && this.journal.count > 0 ? this.journal : null;
    // The filter takes new keys only up to what it was sized for: past that it would answer above its design rate.
    const bloomBefore = bloom === null ? 0 : bloom.keys;
    let bloomRoom = bloom === null || !learn ? 0 : bloom.room;
    let passed = 0;
    let journalLookups = 0;
    let journalHits = 0;
    const lossy = this.bloomMode === 'lossy';
    const gate = this.bloomMode === 'gate';
    const seeded = learn && this.seedHostChecks;
    const hostStarts = batch.hostStarts;
    const hostEnds = batch.hostEnds;
    let start = 0;
    let prevS = -1; // the URL this call last appended to the aux log (its records share prefixes)
    let prevE = -1;
    let dups = 0;
    let reps = 0;
    let accepted = 0;
    for (let i = 0; i < n; i++) {
      const end = ends[i]!;
      const s = start;
      start = end;
      if (end - s > AUX_MAX_URL_BYTES) {
        tooLong.push({ line: batch.lines[i]!, input: p.input, reason: 'too-long', excerpt: Buffer.from(bytes.subarray(s, s + 200)) });
        continue;
      }
      accepted++;
      if (anyRepeats && repeats[i] === 1) {
        // Repeats an earlier link of this chunk: answered by the parse worker's chunk set.
        dups++;
        reps++;
        continue;
      }
      const hi = keys[2 * i]!;
      const lo = keys[2 * i + 1]!;
      if (cache.has(hi, lo)) {
        dups++;
        continue;
      }
      if (learn ? recent.hasOrAdd(hi, lo) : recent.has(hi, lo)) {
        // Seen twice now: popular enough for the hot cache.
        if (learn) cache.insert(hi, lo);
        dups++;
        continue;
      }
      if (journal !== null) {
        journalLookups++;
        if (journal.has(hi, lo)) {
          // Stored by an earlier small round: a store hit answered in RAM, and as a store hit it warms the cache.
          if (learn) cache.insert(hi, lo);
          journalHits++;
          dups++;
          continue;
        }
      }
      if (bloom !== null) {
        if (bloom.mayContain(hi, lo)) {
          c.bloomMaybeSeen++;
          if (lossy) {
            c.lossyDropped++;
            dups++;
            continue;
          }
          if (gate) {
            const o = core.records;
            this.maybeSeen[o >>> 3]! |= 1 << (o & 7);
          }
        } else {
          passed++;
          if (bloomRoom > 0) {
            bloomRoom--;
            bloom.add(hi, lo);
          }
        }
      }
      core.add(hi, lo, bytes, s, end, prevS, prevE, seeded ? hostCheckOf(bytes, hostStarts[i]!, hostEnds[i]!) : 0);
      prevS = s;
      prevE = end;
    }
    if (bloom !== null && passed > 0) countBloomPasses(c, bloom, bloomBefore, passed, learn);
    // Lines the parse thread's line memo answered never became URLs of the batch: count them here.
    c.linksRead += accepted + p.lineRepeats;
    c.duplicateUrls += dups + p.lineRepeats;
    c.lineRepeats += p.lineRepeats;
    c.journalLookups += journalLookups;
    c.journalHits += journalHits;
    c.lineLookups += p.lineLookups;
    c.chunkRepeats += reps;
    countParseThread(c, p);
  }
}

/**
 * The "definitely new" answers of one route call: how many, how many the
 * full filter did not take (`learn`: a check takes none by design), and the
 * false positives (new URLs it called "maybe seen") to expect behind them at
 * the fill each met.
 */
function countBloomPasses(c: RunCounters, bloom: BlockedBloom, before: number, passed: number, learn: boolean): void {
  const added = bloom.keys - before;
  c.bloomDefinitelyNew += passed;
  if (learn) c.bloomNotAdded += passed - added;
  c.bloomExpectedFp += bloom.expectedFalsePositives(before, added, passed - added);
}

/** Where a chunk's parse ran: the report's split of the parse stage between the threads. */
export function countParseThread(c: RunCounters, p: Pick<ParsedChunk, 'onWorker' | 'parseMs'>): void {
  if (p.onWorker) {
    c.chunksOnWorkers++;
    c.parseMsWorkers += p.parseMs;
  } else {
    c.chunksOnMain++;
    c.parseMsMain += p.parseMs;
  }
}
