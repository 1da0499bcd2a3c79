// Types of the canonicalization stage: the policy a store is built with and
// the batch of canonical URLs the stage hands to fingerprinting. No logic here.

import type { Reject } from '../input/types.js';

/** Public, partial policy flags (each optional rule is off by default). */
export interface CanonicalPolicyOptions {
  /** 'default' applies the documented rules; 'none' dedupes exact line bytes. Default 'default'. */
  mode?: 'default' | 'none';
  /** Strip a leading `www.` from the host. Default false. */
  stripWww?: boolean;
  /** Fold `http:` into `https:`. Default false. */
  foldHttps?: boolean;
  /** Strip default index files (index.html, index.php, default.aspx, ...). Default false. */
  stripIndex?: boolean;
  /** Lowercase the path. Default false. */
  lowercasePath?: boolean;
  /** Query parameter names to remove; entries ending in `*` are prefixes. Default: the documented list. */
  trackingParams?: readonly string[];
  /** Longest accepted line in bytes. Default 2048. */
  maxLineBytes?: number;
}

/** Fully resolved policy; `id` is what the store records and compares. */
export interface CanonicalPolicy {
  mode: 'default' | 'none';
  stripWww: boolean;
  foldHttps: boolean;
  stripIndex: boolean;
  lowercasePath: boolean;
  trackingParams: readonly string[];
  maxLineBytes: number;
  /** Stable text naming the policy, its version and flags, e.g. "default/v1+www". */
  id: string;
}

/**
 * Canonical URLs of one chunk, back to back in `bytes`. URL i is
 * bytes[i === 0 ? 0 : ends[i-1], ends[i]); its host[:port] is
 * bytes[hostStarts[i], hostEnds[i]) (absolute offsets into `bytes`).
 */
export interface CanonicalBatch {
  input: number;
  count: number;
  bytes: Buffer;
  ends: Uint32Array;
  hostStarts: Uint32Array;
  hostEnds: Uint32Array;
  /** Line number of URL i. */
  lines: Float64Array;
  /** Lines rejected by the canonicalizer (merged with the chunk's own rejects by the engine). */
  rejects: Reject[];
  endOffset: number;
  endLine: number;
}
