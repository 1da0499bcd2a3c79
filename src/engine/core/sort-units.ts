// A merge round's sort units (sort-stage.ts), in key order: each bucket with
// pending keys whole or, when it holds more keys than a sort slot, its key
// slices (bucket/key-range.ts); a bucket cut into PARTITION_MIN_SLICES to
// MAX_PARTS slices is first split into per-slice work files in one pass
// (bucket/slice-partition.ts). Plans and partitions only: does not load,
// sort or merge, nor discard the partitions it makes (the round does).
// REQUIRES: the round's pending buckets and sort area, which nothing else
// uses while the units are drawn (counting and partitioning use the area's
// scratch).

import type { PendingBuckets } from '../../bucket/pending.js';
import { bucketRange, planSlices, type Slice } from '../../bucket/key-range.js';
import { MAX_PARTS, type SlicePartition } from '../../bucket/slice-partition.js';
import type { SortArea } from './sort-area.js';

/**
 * A unit to sort and merge: bucket b whole (slice null) or one key slice of
 * it, loaded with its own pass over the bucket or, when the bucket was
 * partitioned, from slice `k` of `part`.
 */
export interface Unit {
  b: number;
  slice: Slice | null;
  part: SlicePartition | null;
  k: number;
  first: boolean;
  last: boolean;
}

/** A bucket cut into at least this many slices is partitioned first (below, a pass per slice costs about the same). */
const PARTITION_MIN_SLICES = 3;
/** RAM for a partition's per-slice buffers together. */
const PARTITION_RAM_BYTES = 1 << 20;

/**
 * Units in key order: each bucket with pending keys whole, or its slices
 * when it is bigger than a slot (partitioned first when there are several;
 * each partition made is pushed to `parts`, for cleanup).
 */
export function* unitsOf(pending: PendingBuckets, area: SortArea, parts: SlicePartition[]): Generator<Unit> {
  for (let b = 0; b < pending.count; b++) {
    const total = pending.totals[b]!;
    if (total === 0) continue;
    if (total <= area.capacity) {
      yield { b, slice: null, part: null, k: 0, first: true, last: true };
      continue;
    }
    const slices = planSlices(bucketRange(b, pending.bits), total, area.capacity, (r, width, out) => pending.countChildren(b, r, width, out, area.scratch));
    let part: SlicePartition | null = null;
    if (slices.length >= PARTITION_MIN_SLICES && slices.length <= MAX_PARTS) {
      part = pending.partition(b, slices, area.scratch, PARTITION_RAM_BYTES);
      parts.push(part);
    }
    for (let i = 0; i < slices.length; i++) yield { b, slice: slices[i]!, part, k: i, first: i === 0, last: i === slices.length - 1 };
  }
}
