// The n hosts with most URLs, exactly, from the host table plus its pending
// deltas, in RAM that does not grow with the hosts: no map of every pending
// host and no string for every table entry. Three scans, names as bytes:
// 1. the pending deltas, summed per hash bucket of the name: `up` (positive
//    counts) bounds any one host's pending count from above, `down`
//    (negative counts, a forget's) from below;
// 2. the table in name order: a host's total lies in [count + down,
//    count + up] of its bucket; the n best lower bounds so far give a floor,
//    and a host whose upper bound is below it cannot be among the n: only
//    the others (candidates) get a string;
// 3. the pending deltas again, summing exactly only the hosts of buckets
//    that hold a candidate or whose upper bound reaches the floor (a host
//    found only in the deltas has its pending count as total).
// A host left out has a total below the floor, which n candidates reach,
// so ties at the floor are still decided by name (TopHeap). When n is near
// the number of hosts, nearly every host is a candidate: RAM is then what a
// map of them all takes. Does not read files itself (host-reads.ts hands
// over the scans) and does not list hosts in name order.
// REQUIRES: table counts are >= 0 and each table name appears once; n is an
// integer; the pending scan gives the same entries both times.

import { murmur3 } from '../../fingerprint/hash.js';
import { TopHeap } from './top-heap.js';
import type { HostCount } from '../records.js';

/** Calls fn with every entry, its name as the byte range b[start, end) (valid only during fn). */
export type EntryScan = (fn: (b: Buffer, start: number, end: number, count: number) => void) => Promise<void>;

export interface TopSources {
  /** The table's entries, each name once. */
  table: EntryScan;
  /** The pending deltas' entries (a name may come many times); scanned twice. */
  pending: EntryScan;
  /** About how many entries `pending` gives: it sizes the buckets. */
  pendingEntries: number;
}

const BUCKET_SEED = 0x746f706e; // "topn"
const MIN_BUCKET_BITS = 10;
/** 2^20 buckets: 17 MiB of bounds, a few pending hosts per bucket at 10^6-10^7 of them. */
const MAX_BUCKET_BITS = 20;

/** Bucket bits for about `entries` pending entries: one bucket per entry, within [2^10, 2^20]. */
export function bucketBitsFor(entries: number): number {
  return Math.min(MAX_BUCKET_BITS, Math.max(MIN_BUCKET_BITS, Math.ceil(Math.log2(Math.max(1, entries)))));
}

/** The n largest numbers offered so far, as a min-heap: floor() is the smallest of them (-Infinity until n are kept). */
class LowerBounds {
  private readonly heap: Float64Array;
  private size = 0;

  constructor(private readonly n: number) {
    this.heap = new Float64Array(Math.max(1, n));
  }

  floor(): number {
    return this.size < this.n ? Number.NEGATIVE_INFINITY : this.heap[0]!;
  }

  offer(x: number): void {
    const h = this.heap;
    if (this.size < this.n) {
      let i = this.size++;
      while (i > 0 && h[(i - 1) >> 1]! > x) {
        h[i] = h[(i - 1) >> 1]!;
        i = (i - 1) >> 1;
      }
      h[i] = x;
      return;
    }
    if (this.n === 0 || x <= h[0]!) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const c = l + 1 < this.size && h[l + 1]! < h[l]! ? l + 1 : l;
      if (h[c]! >= x) break;
      h[i] = h[c]!;
      i = c;
    }
    h[i] = x;
  }
}

/** The n hosts with most URLs (hosts at 0 or below left out), most first, then by name. */
export async function topHosts(src: TopSources, n: number, bucketBits = bucketBitsFor(src.pendingEntries)): Promise<HostCount[]> {
  if (n <= 0) return [];
  const mask = (1 << bucketBits) - 1;
  const bucket = (b: Buffer, s: number, e: number): number => murmur3(b, s, e, BUCKET_SEED) & mask;
  const up = new Float64Array(mask + 1);
  const down = new Float64Array(mask + 1);
  await src.pending((b, s, e, c) => {
    const k = bucket(b, s, e);
    if (c > 0) up[k] += c;
    else down[k] += c;
  });
  const lows = new LowerBounds(n);
  const candidates = new Map<string, number>();
  const held = new Uint8Array(mask + 1);
  await src.table((b, s, e, c) => {
    const k = bucket(b, s, e);
    if (c + up[k]! < lows.floor()) return;
    lows.offer(c + down[k]!);
    candidates.set(b.toString('latin1', s, e), c);
    held[k] = 1;
  });
  const floor = lows.floor();
  const sums = new Map<string, number>();
  await src.pending((b, s, e, c) => {
    const k = bucket(b, s, e);
    if (held[k] === 0 && up[k]! < floor) return;
    const h = b.toString('latin1', s, e);
    sums.set(h, (sums.get(h) ?? 0) + c);
  });
  const top = new TopHeap(n);
  for (const [h, c] of candidates) {
    const total = c + (sums.get(h) ?? 0);
    if (total > 0) top.offer(h, total);
  }
  // Hosts only in the deltas; a table host left out at the scan is also here when its bucket is, and stays out (its pending count is below the floor).
  for (const [h, p] of sums) if (p > 0 && !candidates.has(h)) top.offer(h, p);
  return top.result();
}
