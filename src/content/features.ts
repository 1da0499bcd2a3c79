// The fingerprints of one document, into typed arrays: the exact key (the
// payload digest's first 64 bits) and the SimHash of its visible words, with
// the shingle count that says whether the SimHash may be used. Does not
// store or compare fingerprints.
// REQUIRES: one DocFeaturer per thread (it reuses its word buffer).

import { exactKeyOf } from './digest.js';
import type { ContentDoc } from './payload-doc.js';
import { MIN_SHINGLES, simhash64 } from './simhash.js';
import { WordBuffer, documentWords } from './visible-text.js';

/** Words of a fingerprint record: exact hi, exact lo, simhash hi, simhash lo. */
export const FP_WORDS = 4;

export class DocFeaturer {
  readonly words = new WordBuffer();

  /**
   * Writes [exactHi, exactLo, simHi, simLo] at out[at..at+3]; returns
   * whether the document has enough text (MIN_SHINGLES) for a near verdict.
   */
  fingerprint(doc: ContentDoc, out: Uint32Array, at: number): boolean {
    exactKeyOf(doc.digest, out, at);
    documentWords(doc.body, doc.html, this.words);
    const shingles = simhash64(this.words.words, this.words.n, out, at + 2);
    return shingles >= MIN_SHINGLES;
  }
}
