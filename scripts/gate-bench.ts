// Microbench for the choice of a deletable Bloom gate: what a gate that can
// forget keys would cost against the blocked Bloom filter the engine rebuilds
// at each merge. Measures, for N stored keys and N absent probes: bytes per
// key, build (add) ns per key, lookup ns per key, delete ns per key, and the
// observed false-positive rate of
//   - BlockedBloom (src/tiers/bloom.ts) at 10 and 16 bits per key: no delete;
//     the merge rebuilds it from every stored key (its add cost is the rebuild),
//   - a counting variant of it (4-bit counters in place of bits: 4x the bytes),
//   - a cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher 2014: 4-slot
//     buckets, partial-key cuckoo hashing) with 8- and 16-bit fingerprints.
// The counting and cuckoo filters here are bench code, not drum's.
// Usage: nice node dist/scripts/gate-bench.js [--keys N] [--reps R]

import { scriptArgs } from './lib/script-args.js';
import { BlockedBloom, BLOCK_WORDS, optimalK } from '../src/tiers/bloom.js';
import { mixKey, mixKey2, rangeScale } from '../src/tiers/mix.js';

const LCG_MUL = 0x2c1b3c6d;
const LCG_ADD = 0x297a2d39;

/** BlockedBloom's layout with a 4-bit counter per bit: 512 counters (256 bytes) a block. */
class CountingBloom {
  readonly nibbles: Uint8Array; // two counters a byte
  private readonly scale: number;
  constructor(readonly blocks: number, readonly k: number) {
    this.nibbles = new Uint8Array(blocks * 256);
    this.scale = rangeScale(blocks);
  }
  private step(hi: number, lo: number, d: number): boolean {
    const base = Math.floor(mixKey(hi, lo) * this.scale) * 512;
    const c = this.nibbles;
    let x = mixKey2(hi, lo) | 0;
    for (let i = this.k; i > 0; i--) {
      const p = base + (x >>> 23);
      const at = p >>> 1;
      const sh = (p & 1) << 2;
      const v = (c[at]! >>> sh) & 15;
      if (d === 0) {
        if (v === 0) return false;
      } else {
        const nv = d > 0 ? (v === 15 ? 15 : v + 1) : v === 15 || v === 0 ? v : v - 1; // saturated counters stay
        c[at] = (c[at]! & ~(15 << sh)) | (nv << sh);
      }
      x = (Math.imul(x, LCG_MUL) + LCG_ADD) | 0;
    }
    return true;
  }
  add(hi: number, lo: number): void {
    this.step(hi, lo, 1);
  }
  remove(hi: number, lo: number): void {
    this.step(hi, lo, -1);
  }
  mayContain(hi: number, lo: number): boolean {
    return this.step(hi, lo, 0);
  }
}

/** Cuckoo filter, 4 slots a bucket, f-bit fingerprints (8 or 16), buckets a power of two. */
class Cuckoo {
  readonly slots: Uint8Array | Uint16Array;
  private readonly mask: number;
  private readonly fpMask: number;
  private victim = 0;
  constructor(keys: number, bits: 8 | 16, load = 0.95) {
    let buckets = 1;
    while (buckets * 4 * load < keys) buckets *= 2;
    this.slots = bits === 8 ? new Uint8Array(buckets * 4) : new Uint16Array(buckets * 4);
    this.mask = buckets - 1;
    this.fpMask = bits === 8 ? 0xff : 0xffff;
  }
  get bytes(): number {
    return this.slots.byteLength;
  }
  private fp(hi: number, lo: number): number {
    return (mixKey2(hi, lo) & this.fpMask) || 1;
  }
  private alt(i: number, f: number): number {
    return (i ^ Math.imul(f, 0x5bd1e995)) & this.mask;
  }
  private put(i: number, f: number): boolean {
    const s = this.slots;
    for (let j = i * 4; j < i * 4 + 4; j++) {
      if (s[j] === 0) {
        s[j] = f;
        return true;
      }
    }
    return false;
  }
  add(hi: number, lo: number): boolean {
    let f = this.fp(hi, lo);
    const i1 = mixKey(hi, lo) & this.mask;
    if (this.put(i1, f)) return true;
    let i = this.alt(i1, f);
    if (this.put(i, f)) return true;
    for (let n = 0; n < 500; n++) {
      const j = i * 4 + (this.victim++ & 3);
      const old = this.slots[j]!;
      this.slots[j] = f;
      f = old;
      i = this.alt(i, f);
      if (this.put(i, f)) return true;
    }
    return false; // full: a real gate would grow and re-add every key
  }
  private find(i: number, f: number): number {
    const s = this.slots;
    for (let j = i * 4; j < i * 4 + 4; j++) if (s[j] === f) return j;
    return -1;
  }
  mayContain(hi: number, lo: number): boolean {
    const f = this.fp(hi, lo);
    const i1 = mixKey(hi, lo) & this.mask;
    return this.find(i1, f) >= 0 || this.find(this.alt(i1, f), f) >= 0;
  }
  /** REQUIRES: the key was added (deleting an absent key can drop another key's fingerprint). */
  remove(hi: number, lo: number): void {
    const f = this.fp(hi, lo);
    const i1 = mixKey(hi, lo) & this.mask;
    let j = this.find(i1, f);
    if (j < 0) j = this.find(this.alt(i1, f), f);
    if (j >= 0) this.slots[j] = 0;
  }
}

interface Gate {
  add(hi: number, lo: number): unknown;
  mayContain(hi: number, lo: number): boolean;
  remove?(hi: number, lo: number): void;
}

function keys(n: number, seed: number): Uint32Array {
  const k = new Uint32Array(2 * n);
  let x = seed >>> 0;
  for (let i = 0; i < 2 * n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    k[i] = x >>> 0;
  }
  return k;
}

function nsPer(n: number, f: () => void): number {
  const t = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - t) / n;
}

function measure(name: string, make: () => { g: Gate; bytes: () => number }, stored: Uint32Array, absent: Uint32Array, reps: number) {
  const n = stored.length / 2;
  const add: number[] = [];
  const look: number[] = [];
  const del: number[] = [];
  let fp = 0;
  let bytes = 0;
  for (let r = 0; r < reps; r++) {
    const { g, bytes: b } = make();
    bytes = b();
    add.push(nsPer(n, () => {
      for (let i = 0; i < n; i++) g.add(stored[2 * i]!, stored[2 * i + 1]!);
    }));
    let hits = 0;
    look.push(nsPer(n, () => {
      for (let i = 0; i < n; i++) if (g.mayContain(absent[2 * i]!, absent[2 * i + 1]!)) hits++;
    }));
    fp = hits / n;
    for (let i = 0; i < n; i += 97) if (!g.mayContain(stored[2 * i]!, stored[2 * i + 1]!)) throw new Error(`${name}: false negative`);
    if (g.remove !== undefined) {
      const m = n >>> 4; // forget one key in 16
      del.push(nsPer(m, () => {
        for (let i = 0; i < m; i++) g.remove!(stored[2 * i]!, stored[2 * i + 1]!);
      }));
    }
  }
  const med = (a: number[]): string => (a.length === 0 ? '—' : [...a].sort((x, y) => x - y)[a.length >> 1]!.toFixed(1));
  const spread = (a: number[]): string => (a.length === 0 ? '' : ` (${Math.min(...a).toFixed(1)}–${Math.max(...a).toFixed(1)})`);
  console.log(`| ${name} | ${((bytes * 8) / n).toFixed(1)} | ${(fp * 100).toFixed(3)} % | ${med(add)}${spread(add)} | ${med(look)}${spread(look)} | ${med(del)}${spread(del)} |`);
}

function main(): void {
  const { values } = scriptArgs(import.meta.url, { options: { keys: { type: 'string', default: '1970000' }, reps: { type: 'string', default: '3' } } });
  const n = Number(values.keys);
  const reps = Number(values.reps);
  const stored = keys(n, 0x1234567);
  const absent = keys(n, 0x7654321);
  console.log(`${n} stored keys, ${n} absent probes, median of ${reps} (min–max), ns a key`);
  console.log('| gate | bits/key | FP | add | lookup (absent) | delete |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const bpk of [10, 16]) {
    measure(`blocked Bloom ${bpk} b/key`, () => {
      const g = BlockedBloom.forKeys(n, bpk);
      return { g, bytes: () => g.bytes };
    }, stored, absent, reps);
  }
  measure('counting blocked Bloom (4-bit, 10 b/key sizing)', () => {
    const b = BlockedBloom.forKeys(n, 10);
    const g = new CountingBloom(b.words.length / BLOCK_WORDS, optimalK(10));
    return { g, bytes: () => g.nibbles.byteLength };
  }, stored, absent, reps);
  for (const bits of [8, 16] as const) {
    measure(`cuckoo ${bits}-bit fingerprints, 4-way`, () => {
      const g = new Cuckoo(n, bits);
      return { g, bytes: () => g.bytes };
    }, stored, absent, reps);
  }
}

main();
