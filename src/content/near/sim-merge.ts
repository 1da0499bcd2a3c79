// SimHash near copies against the content store's four permuted tables,
// one sequential pass over a sorted table each (Manku et al.): table t
// sorts fingerprints rotated left by 16t bits, so block t leads; the round's
// fingerprints are rotated and sorted the same way and grouped by their
// leading 16 bits: each document is compared with the group's stored
// fingerprints and with earlier documents of the round in the group,
// keeping the earliest within `k` bits. Any two fingerprints within 3 bits
// agree on at least one of the four blocks, so over the four tables every
// such pair meets in some group. The union (earliest docID per key) is
// written out. This is a merge by key range (a group), not by key, so it
// keeps its own table files (table-file.ts) rather than the DRUM core's.
// Does not open or name files (content-store.ts) or answer exact copies
// (the exact map, first-doc-map.ts).
// REQUIRES: k <= 3 for completeness; readers and writers of one kind.

import { hamming64 } from './simhash.js';
import type { ContentBatch } from '../batch.js';
import type { TableReader, TableWriter } from './table-file.js';

/** Indices 0..n-1 (filtered by keep) sorted by (hi, lo, index). */
function sortedOrder(n: number, hi: Uint32Array, lo: Uint32Array, keep: Uint8Array | null): Uint32Array {
  let m = 0;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) if (keep === null || keep[i] === 1) order[m++] = i;
  return order.subarray(0, m).sort((a, b) => (hi[a]! - hi[b]!) || (lo[a]! - lo[b]!) || (a - b));
}

function less(ah: number, al: number, bh: number, bl: number): boolean {
  return ah < bh || (ah === bh && al < bl);
}

/** Rotates (hi, lo) left by 16t bits into out[0], out[1]. */
export function permute(hi: number, lo: number, t: number, out: Uint32Array): void {
  if (t >= 2) [hi, lo] = [lo, hi];
  if (t % 2 === 1) [hi, lo] = [((hi << 16) | (lo >>> 16)) >>> 0, ((lo << 16) | (hi >>> 16)) >>> 0];
  out[0] = hi >>> 0;
  out[1] = lo >>> 0;
}

/** A growable group of stored records with one leading block. */
class Group {
  hi: Uint32Array = new Uint32Array(64);
  lo: Uint32Array = new Uint32Array(64);
  doc: Uint32Array = new Uint32Array(64);
  n = 0;
  push(h: number, l: number, d: number): void {
    if (this.n === this.hi.length) {
      const grow = (a: Uint32Array): Uint32Array => {
        const x = new Uint32Array(a.length * 2);
        x.set(a);
        return x;
      };
      this.hi = grow(this.hi);
      this.lo = grow(this.lo);
      this.doc = grow(this.doc);
    }
    this.hi[this.n] = h;
    this.lo[this.n] = l;
    this.doc[this.n++] = d;
  }
}

/** Records a near candidate for document i when it is earlier than the one it has. */
function offer(b: ContentBatch, i: number, doc: number, d: number): void {
  if (b.nearOf[i]! < 0 || doc < b.nearOf[i]!) {
    b.nearOf[i] = doc;
    b.nearDist[i] = d;
  }
}

export function mergeNear(b: ContentBatch, t: number, k: number, r: TableReader, w: TableWriter): void {
  const pHi = new Uint32Array(b.n);
  const pLo = new Uint32Array(b.n);
  const tmp = new Uint32Array(2);
  for (let i = 0; i < b.n; i++) {
    permute(b.simHi[i]!, b.simLo[i]!, t, tmp);
    pHi[i] = tmp[0]!;
    pLo[i] = tmp[1]!;
  }
  const order = sortedOrder(b.n, pHi, pLo, b.usable);
  const g = new Group();
  let j = 0;
  while (j < order.length) {
    const prefix = pHi[order[j]!]! >>> 16;
    let je = j;
    while (je < order.length && pHi[order[je]!]! >>> 16 === prefix) je++;
    while (r.has && r.hi >>> 16 < prefix) {
      w.push(r.hi, r.lo, r.doc);
      r.next();
    }
    g.n = 0;
    for (; r.has && r.hi >>> 16 === prefix; r.next()) g.push(r.hi, r.lo, r.doc);
    compareGroup(b, order, j, je, pHi, pLo, g, k);
    writeGroup(b, order, j, je, pHi, pLo, g, w);
    j = je;
  }
  for (; r.has; r.next()) w.push(r.hi, r.lo, r.doc);
}

/** Near verdicts of the round's documents order[j..je) (one leading block) against the group and each other. */
function compareGroup(b: ContentBatch, order: Uint32Array, j: number, je: number, pHi: Uint32Array, pLo: Uint32Array, g: Group, k: number): void {
  let rep = -1; // first document of the current run of equal keys
  for (let x = j; x < je; x++) {
    const i = order[x]!;
    if (rep >= 0 && pHi[rep] === pHi[i] && pLo[rep] === pLo[i]) {
      // Same fingerprint as rep, an earlier document: its candidates, and rep itself at distance 0.
      if (b.nearOf[rep]! >= 0) offer(b, i, b.nearOf[rep]!, b.nearDist[rep]!);
      offer(b, i, b.first + rep, 0);
      continue;
    }
    rep = i;
    const h = pHi[i]!;
    const l = pLo[i]!;
    for (let s = 0; s < g.n; s++) {
      const d = hamming64(h, l, g.hi[s]!, g.lo[s]!);
      if (d <= k) offer(b, i, g.doc[s]!, d);
    }
    for (let y = j; y < je; y++) {
      const f = order[y]!;
      if (f >= i) continue; // only earlier documents of the round
      const d = hamming64(h, l, pHi[f]!, pLo[f]!);
      if (d <= k) offer(b, i, b.first + f, d);
    }
  }
}

/** Writes the union of the stored group and the round's keys order[j..je), the earliest docID per key. */
function writeGroup(b: ContentBatch, order: Uint32Array, j: number, je: number, pHi: Uint32Array, pLo: Uint32Array, g: Group, w: TableWriter): void {
  let s = 0;
  let lastHi = -1;
  let lastLo = -1;
  for (let x = j; x < je; x++) {
    const i = order[x]!;
    const h = pHi[i]!;
    const l = pLo[i]!;
    if (h === lastHi && l === lastLo) continue; // a later document with the same key
    while (s < g.n && less(g.hi[s]!, g.lo[s]!, h, l)) {
      w.push(g.hi[s]!, g.lo[s]!, g.doc[s]!);
      s++;
    }
    if (s < g.n && g.hi[s] === h && g.lo[s] === l) {
      w.push(h, l, g.doc[s]!);
      s++;
    } else w.push(h, l, b.first + i);
    lastHi = h;
    lastLo = l;
  }
  for (; s < g.n; s++) w.push(g.hi[s]!, g.lo[s]!, g.doc[s]!);
}
