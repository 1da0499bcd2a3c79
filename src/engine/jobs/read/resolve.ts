// The job behind `drum resolve` (Drum.resolve): the docID of each stored URL
// of the inputs, in input order, by one batch merge — DRUM's check with the
// values of its hits — instead of a seek per URL, as Google's URLresolver
// "converted [URLs] into docIDs in batch by doing a merge with this file".
// Reads and canonicalizes on this thread (canonicalize-lines.ts's way: no
// line memo, no tiers, so every link reaches the merge and gets an answer);
// keeps each link's canonical text and, per round, an exact table of the
// keys seen (in-round repeats take their first arrival's answer), adds each
// distinct key to the core once, and runs a 'check' whose values pass reads
// every touched bucket's values (file and deltas) once, in order, handing each hit's
// docID back by ordinal (merged again when a reader that could not pin the
// store's files finds a bucket's values replaced by a writer meanwhile,
// store/unpinned-buckets.ts). A key the journal holds (stored by a small round,
// not yet in a bucket file) is answered from the journal's value. A round holds at most `roundLinks` links; a bigger
// input takes more rounds (each one sequential pass per touched bucket).
// Writes nothing (a read-only session's spills and aux log go to its
// private work directory).
// REQUIRES: a store with values (docIDs).

import { BatchScratch, canonicalizeBatch } from '../../../canonicalize/batch.js';
import { AUX_MAX_URL_BYTES } from '../../../bucket/aux-log.js';
import { DrumError, isDrumError } from '../../../errors.js';
import { keysOfBatch } from '../../../fingerprint/key.js';
import { readInputs } from '../../../input/read.js';
import type { Reject } from '../../../input/types.js';
import { newRunCounters } from '../../../stats/counters.js';
import type { ReadOptions } from '../../api.js';
import { dropRound } from '../../url-seen/commit.js';
import type { Session } from '../../session/session.js';
import { docIDOf } from '../../url-seen/url-values.js';
import { RoundKeys } from '../../core/round-keys.js';
import { chainFiles } from '../../../store/values/value-chain.js';

export interface ResolveRequest extends ReadOptions {
  inputs: string[];
  /** Each accepted link in input order: its canonical URL and docID, or null when the store does not hold it. */
  onResolved: (docId: number | null, url: string) => void;
  /** Each rejected line (line numbers per input), in line order. */
  onReject?: (r: Reject) => void;
}

export interface ResolveResult {
  linksRead: number;
  resolved: number;
  notStored: number;
  rejectedLines: number;
  merges: number;
  /** Bytes the merges read (key and values files, and the round's own spill and aux files). */
  bytesRead: number;
  /** Bytes of the store's key and values files, values deltas included (what one pass over every bucket reads). */
  storeBytes: number;
}

/** Links per round: RAM ~120 bytes a link (text, keys, table, answers), so 2^21 links take ~250 MiB at most. */
export const RESOLVE_ROUND_LINKS = 1 << 21;

/** Merges of one round before values that keep being replaced under a reader without pins are reported (DRUM_IO). */
const MAX_MERGES = 20;

export async function resolve(s: Session, req: ResolveRequest, roundLinks = RESOLVE_ROUND_LINKS): Promise<ResolveResult> {
  if (!s.valued) {
    throw new DrumError('DRUM_NEEDS_UPGRADE', `${s.dir} keeps no docIDs (a keys-only store); drum upgrade gives it values`);
  }
  const r = new Round(s);
  try {
    let storeBytes = 0;
    for (const e of s.store.body.buckets) {
      if (e) storeBytes += e.bytes;
      if (e?.values) for (const f of chainFiles(e.values)) storeBytes += f.bytes;
    }
    const res: ResolveResult = { linksRead: 0, resolved: 0, notStored: 0, rejectedLines: 0, merges: 0, bytesRead: 0, storeBytes };
    const scratch = new BatchScratch();
    let broken: DrumError | null = null;
    for (let i = 0; i < req.inputs.length; i++) {
      try {
        await resolveInput(s, req, i, r, res, scratch, roundLinks);
      } catch (e) {
        // A damaged input (a cut .gz): the links read before the damage are answered, then the error.
        if (!isDrumError(e, 'DRUM_INPUT')) throw e;
        broken ??= e;
      }
    }
    await r.run(req, res);
    if (broken !== null) throw broken;
    return res;
  } finally {
    dropRound(s);
  }
}

/** Reads input `i` into the round, answering a round whenever it fills. */
async function resolveInput(s: Session, req: ResolveRequest, i: number, r: Round, res: ResolveResult, scratch: BatchScratch, roundLinks: number): Promise<void> {
  const policy = s.policy;
  for await (const chunk of readInputs([{ path: req.inputs[i]! }], {
    format: req.format ?? 'auto', maxLineBytes: policy.maxLineBytes, chunkBytes: 1 << 20,
    links: req.links, warcLinks: req.warcLinks, reuseBuffers: true,
  })) {
    const batch = canonicalizeBatch(chunk, policy, scratch);
    const keys = new Uint32Array(2 * batch.count);
    keysOfBatch(batch.bytes, batch.count, batch.ends, batch.hostStarts, batch.hostEnds, s.opts.hostBits, keys);
    const rejects = chunk.rejects.concat(batch.rejects);
    let start = 0;
    for (let k = 0; k < batch.count; k++) {
      const end = batch.ends[k]!;
      if (end - start > AUX_MAX_URL_BYTES) {
        rejects.push({ line: batch.lines[k]!, input: i, reason: 'too-long', excerpt: Buffer.from(batch.bytes.subarray(start, start + 200)) });
      } else {
        if (r.links === roundLinks) await r.run(req, res);
        r.add(keys[2 * k]!, keys[2 * k + 1]!, batch.bytes, start, end);
        res.linksRead++;
      }
      start = end;
    }
    rejects.sort((a, b) => a.line - b.line);
    for (const x of rejects) {
      x.input = i;
      req.onReject?.(x);
    }
    res.rejectedLines += rejects.length;
    res.linksRead += rejects.length;
  }
}

/** firstOrd of a link the key journal answered. */
const JOURNALED = 0xffffffff;

/** One round's links: their text, the first ordinal of each link's key, and the table that finds it. */
class Round {
  links = 0;
  private text = Buffer.allocUnsafe(1 << 20);
  private textUsed = 0;
  private ends = new Uint32Array(1024);
  private firstOrd = new Uint32Array(1024);
  /** docID of each link the key journal answered (its firstOrd is JOURNALED). */
  private journalDoc = new Float64Array(1024);
  private readonly keys = new RoundKeys();

  constructor(private readonly s: Session) {}

  /** Adds a link: its key goes to the core unless an earlier link of the round had it. */
  add(hi: number, lo: number, src: Buffer, start: number, end: number): void {
    const n = this.links;
    if (n === this.ends.length) {
      this.ends = grow(this.ends);
      this.firstOrd = grow(this.firstOrd);
      const d = new Float64Array(2 * this.journalDoc.length);
      d.set(this.journalDoc);
      this.journalDoc = d;
    }
    const len = end - start;
    if (this.textUsed + len > this.text.length) {
      const t = Buffer.allocUnsafe(Math.max(2 * this.text.length, this.textUsed + len));
      this.text.copy(t, 0, 0, this.textUsed);
      this.text = t;
    }
    src.copy(this.text, this.textUsed, start, end);
    this.textUsed += len;
    this.ends[n] = this.textUsed;
    const j = this.s.journal;
    const e = j === null ? -1 : j.find(hi, lo);
    if (e >= 0) {
      // Stored by a journal round, not yet in a bucket file: its value is in the journal.
      this.firstOrd[n] = JOURNALED;
      this.journalDoc[n] = docIDOf(j!.values, e * j!.valueWords);
      this.links++;
      return;
    }
    let o = this.keys.find(hi, lo);
    if (o < 0) {
      // First arrival: the core gets the key (its payload is not needed: the text is kept here).
      o = this.s.core.add(hi, lo, src, start, start);
      this.keys.add(hi, lo, o);
    }
    this.firstOrd[n] = o;
    this.links++;
  }

  /**
   * The round's merge: each hit's docID into `docOf` by ordinal. A reader
   * without pins that found a bucket's values replaced after reading its
   * keys (Store.valuesReplaced) merges again: the merge wrote nothing.
   */
  private async merge(docOf: Float64Array): Promise<void> {
    const s = this.s;
    const st = s.store;
    for (let attempt = 1; ; attempt++) {
      const replaced = st.valuesReplaced;
      try {
        await s.core.merge('check', {
          files: s.storeFiles(), fsync: false, counters: newRunCounters(), onHit: null, keySink: null,
          values: {
            files: { openValues: (b) => st.openValues(b), valuesOutputPath: () => { throw new DrumError('DRUM_INTERNAL', 'a check writes no values'); } },
            fill: () => undefined,
            update: null,
            out: (o, v, at) => void (docOf[o] = docIDOf(v, at)),
          },
        });
        return;
      } catch (e) {
        if (st.valuesReplaced === replaced || attempt >= MAX_MERGES) throw e;
        docOf.fill(-1);
      }
    }
  }

  /** Merges the round ('check' with values) and answers its links in order; then empties it. */
  async run(req: ResolveRequest, res: ResolveResult): Promise<void> {
    if (this.links === 0) return;
    const s = this.s;
    const records = s.core.records;
    const docOf = new Float64Array(records).fill(-1);
    const read0 = s.dfs.counters.bytesRead;
    await this.merge(docOf);
    res.merges++;
    res.bytesRead += s.dfs.counters.bytesRead - read0;
    let start = 0;
    for (let k = 0; k < this.links; k++) {
      const end = this.ends[k]!;
      const o = this.firstOrd[k]!;
      const d = o === JOURNALED ? this.journalDoc[k]! : docOf[o]!;
      const url = this.text.toString('utf8', start, end);
      if (d < 0) res.notStored++;
      else res.resolved++;
      req.onResolved(d < 0 ? null : d, url);
      start = end;
    }
    s.core.reset();
    this.links = 0;
    this.textUsed = 0;
    this.keys.clear();
  }
}

function grow(a: Uint32Array<ArrayBuffer>): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(2 * a.length);
  b.set(a);
  return b;
}
