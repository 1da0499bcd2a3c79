// MinHash-LSH the DRUM way: the band map and one ordered sweep of the
// signatures file per round.
// - BandOrdinals: every document of the round that takes part (enough text,
//   not an exact duplicate: its text is its original's) has LSH_BANDS band
//   keys (the band number mixed into each 64-bit key). They go to the band
//   map (first-doc-map.ts: band key -> earliest docID with it, on the DRUM
//   core), whose check+update merge answers each key with its earliest
//   docID, stored or earlier in the round. A document's candidates are
//   those earliest documents of its bands (one per band: a band shared by
//   thousands of template pages costs one pair a document).
// - CandidatePairs.verify: the round's candidate pairs (earlier docID,
//   document) sorted by earlier docID; signatures of stored documents come
//   from the signatures file in increasing offset order, those of the round
//   from the batch; a pair whose signatures agree in at least `minEqual` of
//   MINHASH_K positions is a near copy, and each document keeps its earliest
//   one (nearOf, with the count of equal minima in nearDist).
// The pairs' sort is an LSD radix sort of an index permutation (16 bits a
// pass, stable), into arrays allocated once per store and reused every
// round: RAM stays flat, with no boxed copies as a comparator sort makes.
// Does not open or name files (content-store.ts).
// REQUIRES: the batch's exact verdicts before BandOrdinals.add; reset() of
// the pairs each round.

import type { ContentBatch } from '../batch.js';
import { LSH_BANDS, MINHASH_K, bandKey, equalMinima } from './minhash.js';
import { SIG_PIECE_DOCS, type SigFile } from './sig-file.js';
import type { FirstDocMap } from '../first-doc-map.js';

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

/**
 * The round's band keys on the band map: add() gives each taking-part
 * document's LSH_BANDS keys to the map (recording their ordinals); once the
 * map has merged, offer() hands every (earliest docID of a shared band,
 * document) pair to the candidate pairs. One per store; its array grows to
 * the largest round (4 bytes a band key).
 */
export class BandOrdinals {
  private ords = new Uint32Array(0);
  private readonly key = new Uint32Array(2);

  /** Band keys of the round's documents that take part (enough text, not an exact duplicate) to `map`, each carrying its document's docID. */
  add(b: ContentBatch, map: FirstDocMap): void {
    if (this.ords.length < b.n * LSH_BANDS) this.ords = new Uint32Array(b.n * LSH_BANDS);
    const { ords, key } = this;
    map.reserve(b.n * LSH_BANDS);
    for (let i = 0; i < b.n; i++) {
      if (!takesPart(b, i)) continue;
      for (let band = 0; band < LSH_BANDS; band++) {
        bandKey(b.sigs, band, key, 0, b.sigAt(i));
        ords[i * LSH_BANDS + band] = map.add(key[0]!, key[1]!, b.first + i);
      }
    }
  }

  /** After the map's merge: each taking-part document's candidates, the earliest earlier document of each of its bands. */
  offer(b: ContentBatch, map: FirstDocMap, pairs: CandidatePairs): void {
    const ords = this.ords;
    for (let i = 0; i < b.n; i++) {
      if (!takesPart(b, i)) continue;
      const doc = b.first + i;
      for (let band = 0; band < LSH_BANDS; band++) {
        const e = map.docOf(ords[i * LSH_BANDS + band]!);
        if (e !== doc) pairs.add(e, i);
      }
    }
  }
}

/** A document takes part in the band map when it has enough text and is not an exact duplicate (its text is its original's). */
function takesPart(b: ContentBatch, i: number): boolean {
  return b.usable[i] === 1 && b.exactOf[i]! < 0;
}

/** Equal minima a near copy needs for an estimated Jaccard similarity of at least minJaccard. */
export function minEqualOf(minJaccard: number): number {
  return Math.max(1, Math.ceil(minJaccard * MINHASH_K - 1e-9));
}
