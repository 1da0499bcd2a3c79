// Counts new URLs per host as the merge dispatches them, for the catalog's
// host table. The host is the bytes between "://" and the next "/", "?" or
// "#" of the canonical URL. Consecutive URLs usually share a host, so the
// string is only built when the host bytes change. Does not write anywhere.

export class HostCounter {
  private counts = new Map<string, number>();
  private last = Buffer.alloc(0);
  private lastHost = '';
  private pendingRun = 0;

  add(buf: Buffer, start: number, end: number): void {
    let hs = start;
    const lim = Math.min(end, start + 12);
    for (let j = start; j + 2 < lim; j++) {
      if (buf[j] === 58 && buf[j + 1] === 47 && buf[j + 2] === 47) {
        hs = j + 3;
        break;
      }
    }
    let he = hs;
    while (he < end) {
      const ch = buf[he];
      if (ch === 47 || ch === 63 || ch === 35) break;
      he++;
    }
    const len = he - hs;
    if (len === this.last.length && this.pendingRun > 0 && buf.compare(this.last, 0, len, hs, he) === 0) {
      this.pendingRun++;
      return;
    }
    this.flushRun();
    this.last = Buffer.from(buf.subarray(hs, he));
    this.lastHost = this.last.toString('latin1');
    this.pendingRun = 1;
  }

  private flushRun(): void {
    if (this.pendingRun === 0) return;
    this.counts.set(this.lastHost, (this.counts.get(this.lastHost) ?? 0) + this.pendingRun);
    this.pendingRun = 0;
  }

  /** Returns the counts gathered since the last take() and starts afresh. */
  take(): Map<string, number> {
    this.flushRun();
    const out = this.counts;
    this.counts = new Map();
    this.last = Buffer.alloc(0);
    return out;
  }
}
