// Parses a policy's user rules text once per policy object (a worker gets
// its own copy of the policy and parses it once too). No logic of its own.

import { parseRules, type UserRule } from './user-rules.js';
import type { CanonicalPolicy } from './types.js';

const cache = new WeakMap<CanonicalPolicy, UserRule[]>();

export function compileRules(policy: CanonicalPolicy): UserRule[] {
  let r = cache.get(policy);
  if (r === undefined) {
    r = policy.rules === null ? [] : parseRules(policy.rules);
    cache.set(policy, r);
  }
  return r;
}
