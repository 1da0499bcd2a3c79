// drum's public library surface. Everything else under src/ is internal and
// may change without notice; tests import internals directly.

export { Drum, canonicalizeLines, upgradeStore, verifyStateDir, type CompactResult, type UpgradeResult } from './engine/drum.js';
export type {
  AddOptions, AddResult, CheckRequest, FeedOptions, ForgetReject, ForgetReport, ForgetRequest, IngestRequest, InputFormat, LibraryRunStats, Link,
  LinkReject, Progress, ReadOptions,
  StoreStats, UrlStream, UrlStreamOptions, VerifyProblem, VerifyResult,
} from './engine/api.js';
export type { FeedItem } from './engine/pipeline/feed.js';
export type { ResolveRequest, ResolveResult } from './engine/jobs/read/resolve.js';
export type { RejectReason } from './input/types.js';
export type { RunReport } from './stats/report.js';
export { DrumError, ERROR_CODES, EXIT_STATUS, isDrumError, type DrumErrorCode } from './errors.js';
export { DEFAULTS, minimumMemoryBytes, parseSize, resolveOptions, type BloomMode, type DrumOptions, type Tuning } from './options.js';
export type { CanonicalPolicyOptions, ProfileName } from './canonicalize/types.js';
export { canonicalizeString, resolvePolicy } from './canonicalize/index.js';
export { keyOfString, expectedCollisions, HASH_ID } from './fingerprint/key.js';
