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
// Both sorts are LSD radix sorts of an index permutation (16 bits a pass,
// stable), into arrays allocated once per store and reused every round:
// RAM stays flat, with no boxed copies as a comparator sort makes.
// Does not open or name files (content-store.ts).
// REQUIRES: the batch's exact verdicts (mergeExact) before mergeBands;
// table reader and writer of BAND_KIND; reset() of the pairs each round.

import type { ContentBatch } from './batch.js';
import { LSH_BANDS, MINHASH_K, bandKey, equalMinima } from './minhash.js';
import { SIG_PIECE_DOCS, type SigFile } from './sig-file.js';
import type { TableReader, TableWriter } from './table-file.js';

/** Earliest documents of one band key that are candidates for a later one. */
export const MAX_BAND_CANDIDATES = 32;
/** Candidate pairs held before a sweep checks them (16 bytes each with the sort's two permutations). */
export const PAIRS_PER_SWEEP = 1 << 18;

const COUNTS = new Uint32Array(65537);

/** One stable counting pass of src into dst by 16 bits of key[index]; false (nothing written) when all have one digit. */
function radixPass(n: number, src: Uint32Array, dst: Uint32Array, key: Uint32Array, shift: number): boolean {
  const c = COUNTS;
  c.fill(0);
  for (let x = 0; x < n; x++) c[((key[src[x]!]! >>> shift) & 0xffff) + 1]!++;
  if (c[((key[src[0]!]! >>> shift) & 0xffff) + 1] === n) return false;
  for (let d = 0; d < 65536; d++) c[d + 1]! += c[d]!;
  for (let x = 0; x < n; x++) {
    const i = src[x]!;
    dst[c[(key[i]! >>> shift) & 0xffff]!++] = i;
  }
  return true;
}

/** Indices 0..n-1 sorted by keys (most significant first), ties in index order; a and b are scratch of length >= n; returns a view of one of them. */
export function radixOrder(n: number, keys: readonly Uint32Array[], a: Uint32Array, b: Uint32Array): Uint32Array {
  for (let x = 0; x < n; x++) a[x] = x;
  let src = a;
  let dst = b;
  for (let k = keys.length - 1; k >= 0 && n > 1; k--) {
    for (const shift of [0, 16]) {
      if (radixPass(n, src, dst, keys[k]!, shift)) [src, dst] = [dst, src];
    }
  }
  return src.subarray(0, n);
}

/** The round's candidate pairs, checked in sweeps of at most PAIRS_PER_SWEEP. One per store, reset each round. */
export class CandidatePairs {
  private readonly earlier = new Uint32Array(PAIRS_PER_SWEEP);
  private readonly doc = new Uint32Array(PAIRS_PER_SWEEP);
  private readonly sa = new Uint32Array(PAIRS_PER_SWEEP);
  private readonly sb = new Uint32Array(PAIRS_PER_SWEEP);
  private n = 0;
  private b!: ContentBatch;
  /** Pairs offered over the round (before removing repeats). */
  offered = 0;

  constructor(private readonly sigs: SigFile, private readonly minEqual: number) {}

  /** Starts a round's pairs. */
  reset(b: ContentBatch): void {
    this.b = b;
    this.n = 0;
    this.offered = 0;
  }

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
    const order = radixOrder(this.n, [earlier, doc], this.sa, this.sb);
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

/** A round's band keys and their sort's permutations, for batches of up to `capacity` documents (16 bytes a key, 25 keys a document). */
export class BandKeys {
  readonly hi: Uint32Array;
  readonly lo: Uint32Array;
  readonly idx: Uint32Array;
  readonly sa: Uint32Array;
  readonly sb: Uint32Array;
  constructor(readonly capacity: number) {
    const n = capacity * LSH_BANDS;
    [this.hi, this.lo, this.idx, this.sa, this.sb] = [0, 1, 2, 3, 4].map(() => new Uint32Array(n)) as [Uint32Array, Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  }
}

/** Band keys of the round's taking-part documents into ks, and their order by (key, document). */
function roundKeys(b: ContentBatch, ks: BandKeys): Uint32Array {
  const { hi, lo, idx } = ks;
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
  return radixOrder(k, [hi, lo], ks.sa, ks.sb); // keys were made in document order: ties stay in it
}

function less(ah: number, al: number, bh: number, bl: number): boolean {
  return ah < bh || (ah === bh && al < bl);
}

/** Merges the round's band keys with the band table (r -> w), offering every candidate pair to `pairs`. */
export function mergeBands(b: ContentBatch, r: TableReader, w: TableWriter, pairs: CandidatePairs, ks: BandKeys): void {
  const order = roundKeys(b, ks);
  const { hi, lo, idx } = ks;
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
