// Counts new URLs per host as the merge dispatches them, for the catalog's
// host table. The host is the bytes between "://" and the next "/", "?" or
// "#" of the canonical URL (of a SURT key, those before the `)`). Hosts are
// told apart by a 64-bit fingerprint of their bytes (collision odds
// ~n^2/2^65: none expected below 10^8 hosts) in an open-addressing table
// over typed arrays; names are kept as bytes, so counting allocates no JS
// object per URL or per host (a round with 10^6 hosts holds ~50 MB), and
// take() hands the catalog its compact binary delta.
// Sealed parts live in a HostParts (host-parts.ts): with a spill file given,
// only the first few MiB of them stay in RAM, so counting a round of any size
// holds bounded memory. Writes only that work file (through DrumFs).

import { encodeHostDelta, forEachHost, hostDeltaBytes } from '../../catalog/hosts/host-delta.js';
import { murmur3x2 } from '../../fingerprint/hash.js';
import { HostParts, type HostPartsSpill } from './host-parts.js';

const SEED_A = 0x2545f491;
const SEED_B = 0x4f6cdd1d;
const EMPTY = -1;

/**
 * Hosts per delta part: past this a part is sealed (encoded) and counting
 * starts a new table. A part is one LevelDB value (~40 bytes per host), and
 * LevelDB keeps large values dear: applying 1.1 M hosts in 64k-host parts
 * (2.5 MB values) grew the process by ~100 MB, in 8k-host parts (~320 KB) by
 * ~17 MB (docs/engineering-log.md, "Memory at 100 M links").
 */
export const HOSTS_PER_PART = 1 << 13;

export class HostCounter {
  private parts: HostParts;
  private cap = 1 << 12; // table slots, a power of two, kept at most half full
  private keys = new Uint32Array(2 * this.cap);
  private slotOf = new Int32Array(this.cap).fill(EMPTY); // table slot -> host index
  private n = 0; // hosts this round
  private names = Buffer.allocUnsafe(1 << 16); // name bytes, back to back
  private ends = new Uint32Array(1024); // end of host i's name in `names`
  private counts = new Float64Array(1024);
  /** A sealed part's encoding (seal()), reused. */
  private sealBuf = Buffer.allocUnsafe(0);
  private readonly h = new Uint32Array(2);
  private lastA = 0;
  private lastB = 0;
  private lastHost = EMPTY;

  /** Without `spill` every sealed part stays in RAM (small inputs, tests). */
  constructor(
    private readonly spill: HostPartsSpill | null = null,
    private readonly hostsPerPart = HOSTS_PER_PART,
  ) {
    this.parts = new HostParts(spill);
  }

  add(buf: Buffer, start: number, end: number): void {
    let hs = start;
    const lim = Math.min(end, start + 12);
    for (let j = start; j + 2 < lim; j++) {
      if (buf[j] === 58 && buf[j + 1] === 47 && buf[j + 2] === 47) {
        hs = j + 3;
        break;
      }
    }
    // A SURT key (`com,example)/path`, no "://") ends its host at the `)`.
    const close = hs === start ? 41 : -1;
    let he = hs;
    while (he < end) {
      const ch = buf[he];
      if (ch === 47 || ch === 63 || ch === 35 || ch === close) break;
      he++;
    }
    const h = this.h;
    murmur3x2(buf, hs, he, SEED_A, SEED_B, h, 0);
    const a = h[0]!;
    const b = h[1]!;
    if (this.lastHost !== EMPTY && a === this.lastA && b === this.lastB) {
      this.counts[this.lastHost]!++;
      return;
    }
    const host = this.find(a, b, buf, hs, he);
    this.counts[host]!++;
    this.lastA = a;
    this.lastB = b;
    this.lastHost = host;
  }

  private find(a: number, b: number, buf: Buffer, hs: number, he: number): number {
    const mask = this.cap - 1;
    let i = (a ^ Math.imul(b, 0x9e3779b1)) & mask;
    for (;;) {
      const s = this.slotOf[i]!;
      if (s === EMPTY) break;
      if (this.keys[2 * i] === a && this.keys[2 * i + 1] === b) return s;
      i = (i + 1) & mask;
    }
    if (this.n === this.hostsPerPart) {
      // Seal a part (~30-40 bytes per host); HostParts keeps it in RAM or spills it.
      this.seal();
      this.reset();
      return this.find(a, b, buf, hs, he);
    }
    const host = this.n++;
    if (host === this.counts.length) {
      const c = new Float64Array(2 * host);
      c.set(this.counts);
      this.counts = c;
      const e = new Uint32Array(2 * host);
      e.set(this.ends);
      this.ends = e;
    }
    const at = host === 0 ? 0 : this.ends[host - 1]!;
    if (at + (he - hs) > this.names.length) {
      const g = Buffer.allocUnsafe(Math.max(2 * this.names.length, at + (he - hs)));
      this.names.copy(g, 0, 0, at);
      this.names = g;
    }
    buf.copy(this.names, at, hs, he);
    this.ends[host] = at + (he - hs);
    this.counts[host] = 0;
    this.keys[2 * i] = a;
    this.keys[2 * i + 1] = b;
    this.slotOf[i] = host;
    if (2 * this.n > this.cap) this.grow();
    return host;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldSlot = this.slotOf;
    this.cap *= 2;
    this.keys = new Uint32Array(2 * this.cap);
    this.slotOf = new Int32Array(this.cap).fill(EMPTY);
    const mask = this.cap - 1;
    for (let j = 0; j < oldSlot.length; j++) {
      const s = oldSlot[j]!;
      if (s === EMPTY) continue;
      const a = oldKeys[2 * j]!;
      const b = oldKeys[2 * j + 1]!;
      let i = (a ^ Math.imul(b, 0x9e3779b1)) & mask;
      while (this.slotOf[i] !== EMPTY) i = (i + 1) & mask;
      this.keys[2 * i] = a;
      this.keys[2 * i + 1] = b;
      this.slotOf[i] = s;
    }
  }

  /** Distinct hosts in the current (unsealed) part. */
  get hosts(): number {
    return this.n;
  }

  /** Sealed parts so far this round (in RAM and spilled). */
  get sealedParts(): number {
    return this.parts.count;
  }

  /**
   * The counts gathered since the last take(), as the catalog's binary delta
   * parts (a host may appear in several parts: counts add up); starts afresh.
   * The caller owns the result and must close() it (that deletes the spill
   * file, which the next round reuses).
   */
  take(): HostParts {
    const out = this.parts;
    this.seal();
    this.parts = new HostParts(this.spill);
    this.reset();
    return out;
  }

  /** Drops the counts gathered so far and deletes the spill file (after a failed round). */
  discard(): void {
    this.parts.close();
    this.parts = new HostParts(this.spill);
    this.reset();
  }

  /**
   * Encodes the current part into the reused seal buffer and hands it to
   * the parts (which copy it if they keep it in RAM): a part that goes to
   * the spill file makes no garbage, which with ~50 parts a round of 400 k
   * hosts piled up ~10 MiB until the next GC.
   */
  private seal(): void {
    const need = hostDeltaBytes(this.n, this.n === 0 ? 0 : this.ends[this.n - 1]!);
    if (this.sealBuf.length < need) this.sealBuf = Buffer.allocUnsafe(Math.max(need, 2 * this.sealBuf.length));
    this.parts.push(encodeHostDelta(this.n, this.counts, this.ends, this.names, this.sealBuf), true);
  }

  /** Empties the table for the next part, keeping its grown arrays (no garbage per sealed part). */
  private reset(): void {
    this.slotOf.fill(EMPTY);
    this.n = 0;
    this.lastHost = EMPTY;
  }

  /** take(), decoded into a Map (tests and small callers). */
  takeMap(): Map<string, number> {
    const m = new Map<string, number>();
    const parts = this.take();
    try {
      for (const part of parts) forEachHost(part, (h, c) => m.set(h, (m.get(h) ?? 0) + c));
    } finally {
      parts.close();
    }
    return m;
  }
}
