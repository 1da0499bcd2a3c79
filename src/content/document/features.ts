// The fingerprints of one document, into typed arrays: the exact key (the
// payload digest's first 64 bits), and by the store's near method either
// the SimHash or the MinHash signature of its visible words, with the
// shingle count that says whether they may be used. Does not store or
// compare fingerprints.
// REQUIRES: one DocFeaturer per thread (it reuses its word buffer).

import { exactKeyOf } from './digest.js';
import { minhash } from '../near/minhash.js';
import type { ContentDoc } from './payload-doc.js';
import { MIN_SHINGLES, SHINGLE_WORDS, simhash64 } from '../near/simhash.js';
import { WordBuffer, documentWords } from './visible-text.js';

/** Words of a fingerprint record: exact hi, exact lo, simhash hi, simhash lo. */
export const FP_WORDS = 4;

export class DocFeaturer {
  readonly words = new WordBuffer();

  /**
   * Writes [exactHi, exactLo, simHi, simLo] at out[at..at+3], or with `sig`
   * [exactHi, exactLo, 0, 0] and the MinHash signature at sig[sigAt]
   * (MINHASH_K words); returns whether the document has enough text
   * (MIN_SHINGLES) for a near verdict.
   */
  fingerprint(doc: ContentDoc, out: Uint32Array, at: number, sig?: Uint32Array, sigAt = 0): boolean {
    exactKeyOf(doc.digest, out, at);
    documentWords(doc.body, doc.html, this.words);
    const n = this.words.n;
    if (sig === undefined) return simhash64(this.words.words, n, out, at + 2) >= MIN_SHINGLES;
    out[at + 2] = 0;
    out[at + 3] = 0;
    minhash(this.words.words, n, sig, sigAt);
    const shingles = n >= SHINGLE_WORDS ? n - SHINGLE_WORDS + 1 : n > 0 ? 1 : 0;
    return shingles >= MIN_SHINGLES;
  }
}
