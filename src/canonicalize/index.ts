// Public surface of the canonicalization stage: policy resolution (profiles,
// user rules, SURT keys), the per-chunk batch entry the engine and workers
// call, and the string API the CLI's `drum canonicalize` and tests use.
// Re-exports only; no logic here.

export type { CanonicalBatch, CanonicalPolicy, CanonicalPolicyOptions, ProfileName } from './types.js';
export {
  DEFAULT_TRACKING_PARAMS, INDEX_FILES, POLICY_VERSION, PROFILE_VERSIONS, SESSION_PARAMS, resolvePolicy,
} from './policy.js';
export { canonicalizeString, isRejected, type CanonicalResult, type CanonicalUrl } from './full.js';
export { BatchScratch, canonicalizeBatch, EXCERPT_BYTES, type BatchOptions } from './batch.js';
