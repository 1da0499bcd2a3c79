// One round's documents as typed arrays (the content store's unit of work):
// exact key, SimHash and (when the store's near method is MinHash) the
// MinHash signature per document, whether its text is long enough for a
// near verdict, and the round's verdicts: the docID of the earliest exact
// copy, else of the earliest near copy and its Hamming distance (SimHash)
// or its count of equal minima out of MINHASH_K (MinHash). DocIDs are
// dense from 0 in arrival order over all runs; document i of a round is
// docID `first + i`. Does not read documents or touch files.
// REQUIRES: capacity fixed at creation; reset() between rounds; sigs
// written (at sigAt(i)) before add() of document i when signatures are kept.

import { MINHASH_K } from './near/minhash.js';

export class ContentBatch {
  n = 0;
  /** DocID of document 0 of this round. */
  first = 0;
  readonly exHi: Uint32Array;
  readonly exLo: Uint32Array;
  readonly simHi: Uint32Array;
  readonly simLo: Uint32Array;
  readonly usable: Uint8Array;
  /** DocID of the earliest exact copy, or -1. */
  readonly exactOf: Int32Array;
  /** DocID of the earliest near copy within the threshold, or -1. */
  readonly nearOf: Int32Array;
  readonly nearDist: Uint8Array;
  /** MINHASH_K minima per document (empty when the batch keeps no signatures). */
  readonly sigs: Uint32Array;

  constructor(readonly capacity: number, signatures = false) {
    this.sigs = new Uint32Array(signatures ? capacity * MINHASH_K : 0);
    this.exHi = new Uint32Array(capacity);
    this.exLo = new Uint32Array(capacity);
    this.simHi = new Uint32Array(capacity);
    this.simLo = new Uint32Array(capacity);
    this.usable = new Uint8Array(capacity);
    this.exactOf = new Int32Array(capacity);
    this.nearOf = new Int32Array(capacity);
    this.nearDist = new Uint8Array(capacity);
  }

  /** Where document i's signature starts in sigs. */
  sigAt(i: number): number {
    return i * MINHASH_K;
  }

  get full(): boolean {
    return this.n === this.capacity;
  }

  /** Adds a document from a fingerprint record [exHi, exLo, simHi, simLo] at fp[at]. */
  add(fp: Uint32Array, at: number, usable: boolean): void {
    const i = this.n++;
    this.exHi[i] = fp[at]!;
    this.exLo[i] = fp[at + 1]!;
    this.simHi[i] = fp[at + 2]!;
    this.simLo[i] = fp[at + 3]!;
    this.usable[i] = usable ? 1 : 0;
    this.exactOf[i] = -1;
    this.nearOf[i] = -1;
    this.nearDist[i] = 0;
  }

  reset(first: number): void {
    this.n = 0;
    this.first = first;
  }
}
