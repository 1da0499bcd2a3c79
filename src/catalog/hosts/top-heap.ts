// Bounded selection of the n hosts with most unique URLs from a stream of
// (host, count) pairs: a min-heap of size n, so a scan of H hosts costs
// O(H log n) time and O(n) memory. Order: count descending, then host name
// ascending. No I/O; the catalog feeds it from a LevelDB scan.

import type { HostCount } from '../catalog.js';

/** True when a ranks below b (fewer URLs, or equal and a later host name). */
function below(a: HostCount, b: HostCount): boolean {
  return a.uniqueUrls < b.uniqueUrls || (a.uniqueUrls === b.uniqueUrls && a.host > b.host);
}

export class TopHeap {
  private readonly heap: HostCount[] = [];

  constructor(private readonly n: number) {}

  offer(host: string, uniqueUrls: number): void {
    const h = this.heap;
    if (h.length < this.n) {
      h.push({ host, uniqueUrls });
      let i = h.length - 1;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!below(h[i]!, h[p]!)) break;
        [h[i], h[p]] = [h[p]!, h[i]!];
        i = p;
      }
      return;
    }
    if (this.n === 0) return;
    const e = { host, uniqueUrls };
    if (!below(h[0]!, e)) return;
    h[0] = e;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && below(h[l]!, h[m]!)) m = l;
      if (r < h.length && below(h[r]!, h[m]!)) m = r;
      if (m === i) return;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }

  /** A host with fewer URLs than this cannot enter (-1 while fewer than n are kept). */
  floor(): number {
    return this.heap.length < this.n ? -1 : (this.heap[0]?.uniqueUrls ?? Infinity);
  }

  /** The kept hosts, most URLs first. */
  result(): HostCount[] {
    return [...this.heap].sort((a, b) => (below(a, b) ? 1 : below(b, a) ? -1 : 0));
  }
}
