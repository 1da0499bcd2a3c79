// drum's public library surface. Everything else under src/ is internal and
// may change without notice; tests import internals directly. Every type a
// public signature names is exported here too (test/index.test.ts).

export { Drum, canonicalizeLines, upgradeStore, verifyStateDir, type CompactResult, type UpgradeResult } from './engine/drum.js';
export type {
  AbandonedRun, AddOptions, AddResult, CheckRequest, CommittedRound, FeedOptions, ForgetReject, ForgetReport, ForgetRequest, IngestRequest, InputFormat,
  LibraryRunStats, Link, LinkReject, Progress, ReadOptions, RunStart, StoreStats, UniqueAt, UrlStream, UrlStreamOptions, VerifyProblem, VerifyResult,
} from './engine/api.js';
export type { CheckResult } from './engine/jobs/read/check.js';
export type { FeedItem } from './engine/pipeline/feed.js';
export type { ResolveRequest, ResolveResult } from './engine/jobs/read/resolve.js';
export type { ByteStream } from './input/open.js';
export type { Reject, RejectReason } from './input/types.js';
export type { BloomReport, GraphReport, InputErrorReport, RunReport, TierReport } from './stats/report.js';
export type { DiskUsage } from './stats/disk-usage.js';
export type { ForgetCounts } from './store/manifest.js';
export type { FaultHook, FsOp } from './io/io-counters.js';
export { DrumError, ERROR_CODES, EXIT_STATUS, isDrumError, type DrumErrorCode } from './errors.js';
export { DEFAULTS, minimumMemoryBytes, parseSize, resolveOptions, type BloomMode, type DrumOptions, type ResolvedOptions, type Tuning } from './options.js';
export type { CanonicalPolicy, CanonicalPolicyOptions, ProfileName } from './canonicalize/types.js';
export { canonicalizeString, resolvePolicy, type CanonicalResult, type CanonicalUrl } from './canonicalize/index.js';
export { keyOfString, expectedCollisions, HASH_ID } from './fingerprint/key.js';
