// Counts the link generator's distinct URLs three ways (exact bytes, drum's
// default policy, pages), within the batch being written and, for batch 2,
// new to a store that already holds batch 1: one tagged hash set per way,
// whose tag bits say which batches saw an entry. Counts only: does not draw
// or write links (scripts/gen-links.ts does).
// REQUIRES: tags 1 (batch 1) and 2 (batch 2), batch 1 counted first;
// startBatch() before each batch.

import { TaggedSet64 } from './hashset64.js';
import { V_SCHEME, V_WWW } from './link-model.js';

export interface UniqueCounts {
  /** Distinct exact byte strings (what sort -u and --canonical none count). */
  exact: number;
  /** Distinct URLs under drum's default policy (folds case, port, fragment, tracking, session; keeps scheme and www). */
  defaultPolicy: number;
  /** Distinct pages (all variants folded, incl. the optional www and https rules). */
  pages: number;
}

/** The three sets and the current batch's counts. */
export class LinkCounts {
  /** 64-bit hashes of the links' bytes. */
  readonly exact = new TaggedSet64();
  /** (host x 4 + defaultPolicyBits(variant), page): the URL drum's default policy keeps. */
  readonly canon = new TaggedSet64();
  /** (host, page). */
  readonly pageSet = new TaggedSet64();
  /** Distinct within the current batch. */
  uniq: UniqueCounts = { exact: 0, defaultPolicy: 0, pages: 0 };
  /** Distinct and new to every earlier batch. */
  fresh: UniqueCounts = { exact: 0, defaultPolicy: 0, pages: 0 };

  /** Starts the counts of the next batch from zero (the sets keep what earlier batches saw). */
  startBatch(): void {
    this.uniq = { exact: 0, defaultPolicy: 0, pages: 0 };
    this.fresh = { exact: 0, defaultPolicy: 0, pages: 0 };
  }
}

/** The variant's bits that survive drum's default policy: 1 for the other scheme, 2 for the other www form. */
export function defaultPolicyBits(v: number): number {
  return (v === V_SCHEME ? 1 : 0) | (v === V_WWW ? 2 : 0);
}

/**
 * Tallies one insert (`prev`: the entry's tag bits before it): unique within
 * the written batch, and (batch 2) new to the store. A free function over the
 * counts, not a method: the generator's loop calls it three times a link, and
 * there it costs no more than the code written out.
 */
export function count(prev: number, tag: number, uniq: UniqueCounts, fresh: UniqueCounts, k: keyof UniqueCounts): void {
  if ((prev & tag) === 0) {
    uniq[k]++;
    if (prev === 0) fresh[k]++;
  }
}
