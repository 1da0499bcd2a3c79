// Revisit (`drum ingest --revisit-after`): a stored URL whose last emission
// is older than the interval is due again. The rule is judged against the
// run's start (RunState.revisit.fromSec), so a URL is emitted at most once
// per run: emitting it (as new or as a revisit) sets its lastEmitted to the
// round's clock, which is at or after the run's start. The update hook marks
// due hits in a per-ordinal bitmap that the commit dispatches from the aux
// log in arrival order (commit.ts) and moves their lastEmitted on.
// Does not read files or the clock (the caller passes the times).

import { V_LAST_EMITTED } from './url-values.js';

/** A run's revisit rule: due when emitted before `fromSec` and at least `afterSec` before it. */
export interface RevisitRule {
  afterSec: number;
  fromSec: number;
}

/** True when a URL last emitted at `lastEmitted` (unix s) is due under `rule`. */
export function isDue(lastEmitted: number, rule: RevisitRule): boolean {
  return lastEmitted < rule.fromSec && rule.fromSec - lastEmitted >= rule.afterSec;
}

/** The due ordinals of one round: a bit per ordinal, and how many. */
export class RevisitRound {
  readonly bits: Uint8Array;
  count = 0;

  constructor(records: number) {
    this.bits = new Uint8Array((records >>> 3) + 1);
  }
}

/** The values update hook of a revisit round: a due hit is marked and its lastEmitted set to `nowSec`. */
export function revisitHook(rule: RevisitRule, round: RevisitRound, nowSec: number): (o: number, v: Uint32Array, at: number) => boolean {
  return (o, v, at) => {
    if (!isDue(v[at + V_LAST_EMITTED]!, rule)) return false;
    v[at + V_LAST_EMITTED] = nowSec;
    round.bits[o >>> 3]! |= 1 << (o & 7);
    round.count++;
    return true;
  };
}
