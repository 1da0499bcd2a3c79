// Compiles a CanonicalPolicy once into the lookup structures both paths use:
// parameter-name matchers (strings for the full path, byte hashes for the
// fast path) and the index-file names. Cached per policy object. Does not
// validate the policy (resolvePolicy did) and does not touch URLs itself.

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
  /** Fast path: FNV-1a hashes of every lowercase name the full path may drop (incl. `sid`). A hit only makes the fast path decline. */
  fastHashes: Set<number>;
  /** Fast path: prefixes as lowercase bytes. */
  fastPrefixes: Uint8Array[];
  /** Fast path: index-file names as lowercase bytes. */
  fastIndex: Uint8Array[];
}

const cache = new WeakMap<CanonicalPolicy, CompiledPolicy>();

/** FNV-1a over ASCII-lowercased bytes; identical to fnvLowerBytes on the same ASCII text. */
export function fnvLowerString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i) & 0xff;
    if (c >= 65 && c <= 90) c += 32;
    h = Math.imul(h ^ c, 0x01000193);
  }
  return h >>> 0;
}

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
  const fastHashes = new Set<number>();
  for (const n of [...exact, 'sid']) fastHashes.add(fnvLowerString(n));
  c = {
    policy,
    exact,
    prefixes,
    sessionExact: new Set(s.exact),
    sessionPrefixes: s.prefixes,
    indexFiles: new Set(INDEX_FILES),
    fastHashes,
    fastPrefixes: prefixes.map((p) => Buffer.from(p, 'latin1')),
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
