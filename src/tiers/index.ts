// The in-RAM front tiers the engine consults before a key reaches a bucket:
// HotCache (popular stored keys), RecentTable (recently added keys) and
// BlockedBloom (gate), plus Bloom persistence. Re-exports only.

export { HotCache, HOT_WAYS } from './hot-cache.js';
export { RecentTable, RECENT_WAYS } from './recent-table.js';
export { BlockedBloom, blockedFpRate, classicFpRate, optimalK, blocksFor, BLOCK_BITS, BLOCK_BYTES } from './bloom.js';
export { writeBloom, readBloom, HEADER_BYTES, BLOOM_MAGIC, BLOOM_FORMAT_VERSION, type WriteBloomOptions } from './bloom-file.js';
