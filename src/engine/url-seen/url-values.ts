// The value URL-seen keeps with each key in a store with values
// (docs/file-format.md, "URL value"): six u32 words — docID (low, high),
// firstRun, lastEmitted, hostCheck, flags — and the client hooks that make
// them: a new URL gets docID = the store's docID count before the round +
// its rank among the round's new ordinals (dense, first-arrival order, never
// reused), the run's number, the round's clock and the host check the front
// recorded for its ordinal. Also the per-ordinal host checks of a round.
// Does not read files (the core's values pass calls the hooks).

import type { ValueHooks } from '../../store/values/value-merge.js';

export const URL_VALUE_WORDS = 6; // docIDLo, docIDHi, firstRun, lastEmitted, hostCheck, flags
export const URL_VALUE_BYTES = 4 * URL_VALUE_WORDS;
export const V_DOC_LO = 0;
export const V_DOC_HI = 1;
export const V_FIRST_RUN = 2;
export const V_LAST_EMITTED = 3;
export const V_HOST_CHECK = 4;
export const V_FLAGS = 5;
/** flags bit: hostCheck holds the host check (clear: unknown, a key stored before the store had values). */
export const FLAG_HOST_CHECK = 1;
/** firstRun of a key stored before the store had values. */
export const RUN_UNKNOWN = 0;
/** lastEmitted of a key stored before the store had values (the epoch: due for any revisit). */
export const EMITTED_UNKNOWN = 0;

/** docID of the value at v[at]. */
export function docIDOf(v: Uint32Array, at: number): number {
  return v[at + V_DOC_LO]! + v[at + V_DOC_HI]! * 2 ** 32;
}

/** Writes the value of a key stored before its store had values: its docID and the sentinels. */
export function upgradedValue(docID: number, v: Uint32Array, at: number): void {
  v[at + V_DOC_LO] = docID % 2 ** 32;
  v[at + V_DOC_HI] = Math.floor(docID / 2 ** 32);
  v[at + V_FIRST_RUN] = RUN_UNKNOWN;
  v[at + V_LAST_EMITTED] = EMITTED_UNKNOWN;
  v[at + V_HOST_CHECK] = 0;
  v[at + V_FLAGS] = 0;
}

export interface UrlValueRound {
  /** docIDs handed out before this round. */
  docBase: number;
  /** The run's number (RunState.seq). */
  run: number;
  /** The round's clock, unix seconds. */
  nowSec: number;
}

/**
 * The fill hook of URL-seen: a new URL's value; its seed is the URL's host
 * check (hostCheckOf, given to DrumCore.add). Hits keep theirs (update and
 * out are the callers' to add).
 */
export function urlValueHooks(r: UrlValueRound): ValueHooks {
  return {
    fill(_o, rank, v, at, seed) {
      const docID = r.docBase + rank;
      v[at + V_DOC_LO] = docID % 2 ** 32;
      v[at + V_DOC_HI] = Math.floor(docID / 2 ** 32);
      v[at + V_FIRST_RUN] = r.run;
      v[at + V_LAST_EMITTED] = r.nowSec;
      v[at + V_HOST_CHECK] = seed;
      v[at + V_FLAGS] = FLAG_HOST_CHECK;
    },
    update: null,
    out: null,
  };
}
