// Counts new URLs per host as the merge dispatches them, for the catalog's
// host table. The host is the bytes between "://" and the next "/", "?" or
// "#" of the canonical URL. Hosts are told apart by a 53-bit fingerprint of
// their bytes (collision odds ~n^2/2^54: none expected below 10^7 hosts),
// so a host's name string is built once per round, not once per URL.
// Does not write anywhere.

import { murmur3x2 } from '../fingerprint/hash.js';

const SEED_A = 0x2545f491;
const SEED_B = 0x4f6cdd1d;

export class HostCounter {
  private slots = new Map<number, number>();
  private names: string[] = [];
  private counts: number[] = [];
  private readonly h = new Uint32Array(2);
  private lastKey = -1;
  private lastSlot = -1;

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
    murmur3x2(buf, hs, he, SEED_A, SEED_B, this.h, 0);
    const key = this.h[0]! * 2 ** 21 + (this.h[1]! >>> 11);
    if (key === this.lastKey) {
      this.counts[this.lastSlot]!++;
      return;
    }
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = this.names.length;
      this.names.push(buf.toString('latin1', hs, he));
      this.counts.push(0);
      this.slots.set(key, slot);
    }
    this.counts[slot]!++;
    this.lastKey = key;
    this.lastSlot = slot;
  }

  /** Returns the counts gathered since the last take() and starts afresh. */
  take(): Map<string, number> {
    const out = new Map<string, number>();
    for (let i = 0; i < this.names.length; i++) out.set(this.names[i]!, (out.get(this.names[i]!) ?? 0) + this.counts[i]!);
    this.slots = new Map();
    this.names = [];
    this.counts = [];
    this.lastKey = -1;
    this.lastSlot = -1;
    return out;
  }
}
