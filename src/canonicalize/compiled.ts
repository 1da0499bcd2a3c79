// Compiles a CanonicalPolicy once into the lookup structures both paths use:
// parameter-name matchers (strings for the full path, a first-byte/length
// candidate filter for the fast path) and the index-file names. Cached per
// policy object. Does not validate the policy (resolvePolicy did) and does
// not touch URLs itself.

import { INDEX_FILES, SESSION_PARAMS, SID_TOKEN } from './policy.js';
import type { CanonicalPolicy } from './types.js';

export interface CompiledPolicy {
  policy: CanonicalPolicy;
  /** Exact lowercase names removed from the query (tracking + session). */
  exact: Set<string>;
  /** Lowercase name prefixes removed from the query. */
  prefixes: string[];
  /** Lowercase session names removed as `;name=value` path parameters (exact). */
  sessionExact: Set<string>;
  sessionPrefixes: string[];
  indexFiles: Set<string>;
  /**
   * Fast path filter over query names: entry [first byte] (256 = empty name)
   * has bit min(length, 31) set when some name of that first byte (either
   * case) and length may be dropped (exact names, prefixes, `sid`). A miss
   * means keep; a hit means ask dropQueryParam.
   */
  fastQueryCand: Uint32Array;
  /** Fast path: index-file names as lowercase bytes. */
  fastIndex: Uint8Array[];
}

const cache = new WeakMap<CanonicalPolicy, CompiledPolicy>();

function split(list: readonly string[]): { exact: string[]; prefixes: string[] } {
  const exact: string[] = [];
  const prefixes: string[] = [];
  for (const n of list) (n.endsWith('*') ? prefixes.push(n.slice(0, -1)) : exact.push(n));
  return { exact, prefixes };
}

export function compile(policy: CanonicalPolicy): CompiledPolicy {
  let c = cache.get(policy);
  if (c) return c;
  const t = split(policy.trackingParams);
  const s = split(SESSION_PARAMS);
  const exact = new Set([...t.exact, ...s.exact]);
  const prefixes = [...t.prefixes, ...s.prefixes];
  const fastQueryCand = new Uint32Array(257);
  const mark = (first: number, fromLen: number, exactLen: boolean): void => {
    const from = Math.min(fromLen, 31);
    const bits = exactLen ? 1 << from : ~((1 << from) - 1);
    fastQueryCand[first] |= bits;
    if (first >= 97 && first <= 122) fastQueryCand[first - 32] |= bits;
  };
  for (const n of [...exact, 'sid']) mark(n.charCodeAt(0) & 0xff, n.length, true);
  for (const pre of prefixes) {
    if (pre.length === 0) fastQueryCand.fill(0xffffffff);
    else mark(pre.charCodeAt(0) & 0xff, pre.length, false);
  }
  c = {
    policy,
    exact,
    prefixes,
    sessionExact: new Set(s.exact),
    sessionPrefixes: s.prefixes,
    indexFiles: new Set(INDEX_FILES),
    fastQueryCand,
    fastIndex: INDEX_FILES.map((n) => Buffer.from(n, 'latin1')),
  };
  cache.set(policy, c);
  return c;
}

/** Full path: should query parameter `name` (percent-normalized) with `value` be removed? */
export function dropQueryParam(c: CompiledPolicy, name: string, value: string): boolean {
  const lower = name.toLowerCase();
  if (c.exact.has(lower)) return true;
  for (const p of c.prefixes) if (lower.startsWith(p)) return true;
  return lower === 'sid' && SID_TOKEN.test(value);
}

/** Full path: is `;name=value` a session-id path parameter? */
export function dropPathParam(c: CompiledPolicy, name: string, value: string): boolean {
  const lower = name.toLowerCase();
  if (c.sessionExact.has(lower)) return true;
  for (const p of c.sessionPrefixes) if (lower.startsWith(p)) return true;
  return lower === 'sid' && SID_TOKEN.test(value);
}
