// MinHash-LSH the DRUM way: one sorted band table and one ordered sweep of
// the signatures file per round.
// - mergeBands: every document of the round that takes part (enough text,
//   not an exact duplicate: its text is its original's) has LSH_BANDS band
//   keys (the band number mixed into each 64-bit key). They are sorted by
//   (key, docID) and merged with the band table in one sequential pass; the
//   table keeps every (key, docID) record, ascending. Within a key, a
//   document's candidates are the key's earliest MAX_BAND_CANDIDATES
//   documents before it (stored or earlier in the round), so a key shared
//   by thousands of template pages costs a bounded number of pairs.
// - CandidatePairs.verify: the round's candidate pairs (earlier docID,
//   document) sorted by earlier docID; signatures of stored documents come
//   from the signatures file in increasing offset order, those of the round
//   from the batch; a pair whose signatures agree in at least `minEqual` of
//   MINHASH_K positions is a near copy, and each document keeps its earliest
//   one (nearOf, with the count of equal minima in nearDist).
// Does not open or name files (content-store.ts).
// REQUIRES: the batch's exact verdicts (mergeExact) before mergeBands;
// table reader and writer of BAND_KIND.

import type { ContentBatch } from './batch.js';
import { LSH_BANDS, MINHASH_K, bandKey, equalMinima } from './minhash.js';
import { SIG_PIECE_DOCS, type SigFile } from './sig-file.js';
import type { TableReader, TableWriter } from './table-file.js';

/** Earliest documents of one band key that are candidates for a later one. */
export const MAX_BAND_CANDIDATES = 32;
/** Candidate pairs held before a sweep checks them (8 bytes each). */
const PAIRS_PER_SWEEP = 1 << 20;

/** The round's candidate pairs, checked in sweeps of at most PAIRS_PER_SWEEP. */
export class CandidatePairs {
  private earlier = new Uint32Array(PAIRS_PER_SWEEP);
  private doc = new Uint32Array(PAIRS_PER_SWEEP);
  private n = 0;
  /** Pairs offered over the round (before removing repeats). */
  offered = 0;

  constructor(private readonly b: ContentBatch, private readonly sigs: SigFile, private readonly minEqual: number) {}

  /** Document i of the round (docID first + i) may be a near copy of docID e < first + i. */
  add(e: number, i: number): void {
    this.earlier[this.n] = e;
    this.doc[this.n++] = i;
    this.offered++;
    if (this.n === PAIRS_PER_SWEEP) this.verify();
  }

  /** Checks the held pairs in increasing earlier docID and keeps each document's earliest near copy. */
  verify(): void {
    const { b, sigs, earlier, doc } = this;
    const order = new Uint32Array(this.n);
    for (let x = 0; x < this.n; x++) order[x] = x;
    order.sort((x, y) => (earlier[x]! - earlier[y]!) || (doc[x]! - doc[y]!));
    let lastE = -1;
    let lastI = -1;
    for (let x = 0; x < order.length; x++) {
      const e = earlier[order[x]!]!;
      const i = doc[order[x]!]!;
      if (e === lastE && i === lastI) continue;
      lastE = e;
      lastI = i;
      if (b.nearOf[i]! >= 0 && b.nearOf[i]! <= e) continue;
      let eq: number;
      if (e >= b.first) eq = equalMinima(b.sigs, b.sigAt(e - b.first), b.sigs, b.sigAt(i));
      else {
        if (!sigs.loaded(e)) sigs.load(e, lastStoredNear(earlier, order, x, b.first));
        eq = equalMinima(sigs.words, sigs.at(e), b.sigs, b.sigAt(i));
      }
      if (eq >= this.minEqual) {
        b.nearOf[i] = e;
        b.nearDist[i] = eq;
      }
    }
    this.n = 0;
  }
}

/** The last stored docID among the pairs from order[x] on that one read starting at earlier[order[x]] can cover. */
function lastStoredNear(earlier: Uint32Array, order: Uint32Array, x: number, first: number): number {
  const e0 = earlier[order[x]!]!;
  let last = e0;
  for (let y = x + 1; y < order.length; y++) {
    const e = earlier[order[y]!]!;
    if (e >= first || e - e0 >= SIG_PIECE_DOCS) break;
    last = e;
  }
  return last;
}

/** Band keys of the round's taking-part documents, sorted by (key, document). */
function roundKeys(b: ContentBatch): { hi: Uint32Array; lo: Uint32Array; idx: Uint32Array; order: Uint32Array } {
  let m = 0;
  for (let i = 0; i < b.n; i++) if (b.usable[i] === 1 && b.exactOf[i]! < 0) m++;
  const hi = new Uint32Array(m * LSH_BANDS);
  const lo = new Uint32Array(m * LSH_BANDS);
  const idx = new Uint32Array(m * LSH_BANDS);
  const key = new Uint32Array(2);
  let k = 0;
  for (let i = 0; i < b.n; i++) {
    if (b.usable[i] !== 1 || b.exactOf[i]! >= 0) continue;
    for (let band = 0; band < LSH_BANDS; band++, k++) {
      bandKey(b.sigs, band, key, 0, b.sigAt(i));
      hi[k] = key[0]!;
      lo[k] = key[1]!;
      idx[k] = i;
    }
  }
  const order = new Uint32Array(k);
  for (let x = 0; x < k; x++) order[x] = x;
  order.sort((x, y) => (hi[x]! - hi[y]!) || (lo[x]! - lo[y]!) || (idx[x]! - idx[y]!));
  return { hi, lo, idx, order };
}

function less(ah: number, al: number, bh: number, bl: number): boolean {
  return ah < bh || (ah === bh && al < bl);
}

/** Merges the round's band keys with the band table (r -> w), offering every candidate pair to `pairs`. */
export function mergeBands(b: ContentBatch, r: TableReader, w: TableWriter, pairs: CandidatePairs): void {
  const { hi, lo, idx, order } = roundKeys(b);
  const stored = new Uint32Array(MAX_BAND_CANDIDATES);
  const round = new Uint32Array(MAX_BAND_CANDIDATES);
  let j = 0;
  while (j < order.length) {
    const h = hi[order[j]!]!;
    const l = lo[order[j]!]!;
    while (r.has && less(r.hi, r.lo, h, l)) {
      w.push(r.hi, r.lo, r.doc);
      r.next();
    }
    let ns = 0;
    for (; r.has && r.hi === h && r.lo === l; r.next()) {
      w.push(r.hi, r.lo, r.doc);
      if (ns < MAX_BAND_CANDIDATES) stored[ns++] = r.doc;
    }
    let nr = 0;
    let lastI = -1;
    for (; j < order.length && hi[order[j]!] === h && lo[order[j]!] === l; j++) {
      const i = idx[order[j]!]!;
      if (i === lastI) continue; // two bands of one document with one key
      lastI = i;
      for (let s = 0; s < ns; s++) pairs.add(stored[s]!, i);
      for (let s = 0; s < nr; s++) pairs.add(b.first + round[s]!, i);
      if (ns + nr < MAX_BAND_CANDIDATES) round[nr++] = i;
      w.push(h, l, b.first + i);
    }
  }
  for (; r.has; r.next()) w.push(r.hi, r.lo, r.doc);
}

/** Equal minima a near copy needs for an estimated Jaccard similarity of at least minJaccard. */
export function minEqualOf(minJaccard: number): number {
  return Math.max(1, Math.ceil(minJaccard * MINHASH_K - 1e-9));
}
