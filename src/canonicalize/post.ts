// Everything after a profile's own rules: the user rules (applied, then the
// profile run again on the result until both agree, so the key stays a
// canonical, idempotent URL) and the SURT form. Used for every policy but
// the plain drum profile without rules or SURT (whose full path is
// full.ts's and whose fast path is fast.ts). Never throws.

import { compileRules } from './compiled-rules.js';
import { applyRules } from './user-rules.js';
import { surtOf } from './surt.js';
import type { CanonicalPolicy } from './types.js';
import type { CanonicalResult } from './full.js';

/** The URL stage of a policy: its profile on one input (relative to `base`). */
export type Stage = (input: string, base: string | null) => CanonicalResult;

/** Rounds of rules + profile before a URL that keeps changing is rejected. */
export const RULE_ROUNDS = 4;

/** Canonical key of `input` under `policy`: stage, then rules, then SURT. */
export function keyOf(input: string, base: string | null, policy: CanonicalPolicy, stage: Stage): CanonicalResult {
  let r = stage(input, base);
  if (typeof r === 'string') return r;
  if (policy.rules !== null) {
    const rules = compileRules(policy);
    let done = false;
    for (let round = 0; round < RULE_ROUNDS && !done; round++) {
      const hostPort = r.url.slice(r.hostStart, r.hostEnd);
      const host = hostPort.replace(/:\d*$/, '');
      const rewritten = applyRules(rules, r.url, host);
      if (rewritten === r.url) {
        done = true;
        break;
      }
      const next = stage(rewritten, null);
      if (typeof next === 'string') return next;
      if (next.url === r.url) done = true;
      r = next;
    }
    if (!done) return 'invalid-url';
  }
  if (!policy.surt) return r;
  // SURT joins the host's labels with ',' and ends the host with ')': a host holding either (profiles other than
  // drum's accept them) would read as another host's key, and its new URLs as seen.
  if (/[,)]/.test(r.url.slice(r.hostStart, r.hostEnd))) return 'invalid-host';
  return surtOf(r.url, r.hostStart, r.hostEnd);
}
