// Types of the canonicalization stage: the policy a store is built with and
// the batch of canonical URLs the stage hands to fingerprinting. No logic here.

import type { Reject } from '../input/types.js';

/** Names of the canonicalization profiles (docs/canonicalization.md): `drum` is drum's own rule list. */
export type ProfileName = 'drum' | 'heritrix' | 'ia' | 'nutch' | 'w3lib' | 'safebrowsing';

/** Public, partial policy flags (each optional rule is off by default). */
export interface CanonicalPolicyOptions {
  /** 'default' applies the documented rules; 'none' dedupes exact line bytes. Default 'default'. */
  mode?: 'default' | 'none';
  /**
   * Which rule list canonicalizes: 'drum' (the default rules below) or a
   * profile that reproduces another crawler's keys. The four optional rule
   * flags and trackingParams belong to 'drum' only. Default 'drum'.
   */
  profile?: ProfileName;
  /** Text of a user rules file (docs/canonicalization.md), applied after the profile. Default none. */
  rules?: string;
  /** Key by the SURT form (`com,example)/path?query`) of the canonical URL. Default false ('ia' is always SURT). */
  surt?: boolean;
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
  profile: ProfileName;
  /** The user rules text, or null. */
  rules: string | null;
  /** Keys are SURT forms, not URLs. */
  surt: boolean;
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
