// Distinct host names with their summed counts, in bounded RAM: each name
// is kept once as a spill record (fold-spill.ts's layout: name length u16 |
// count f64 | name bytes) in one buffer, found again through an
// open-addressing table of its hash, and a repeat adds its count to that
// record in place. A fold's deltas name each host once per round, so the
// same few names come back again and again (8 x 10^6 entries of ~10^5
// hosts after a 10^7-URL ingest); summing them here spares the spill files
// and the sort nearly all their records. Does not order names (FoldSpill
// sorts the distinct ones) and writes no file.
// REQUIRES: names of at most MAX_NAME_BYTES bytes (the record's u16 length).

import { murmur3View, viewOf } from '../../fingerprint/hash.js';

export const NAME_RECORD_FIXED_BYTES = 2 + 8; // name length, count
/** Seed of the hash that finds equal names (any constant: it never leaves RAM). */
const NAME_HASH_SEED = 0x666f6c64;
/** Names up to this long are copied byte by byte (cheaper than a native copy's call). */
const SHORT_NAME_BYTES = 64;

export class NameSums {
  /** The records, one per distinct name, from offset 0 to `bytes`. */
  readonly buf: Buffer;
  /** Offset in buf of distinct name u's record. */
  readonly at: Uint32Array;
  private readonly hashes: Uint32Array;
  private readonly table: Int32Array;
  private readonly mask: number;
  private names = 0;
  private used = 0;

  /**
   * Room for `maxNames` distinct names whose records take at most
   * `bytes` together (a number), or the records already in `bytes` (a
   * buffer), summed in place by addRecord.
   */
  constructor(maxNames: number, bytes: number | Buffer) {
    let slots = 16;
    while (slots < 2 * maxNames) slots *= 2;
    this.table = new Int32Array(slots).fill(-1);
    this.mask = slots - 1;
    this.at = new Uint32Array(maxNames);
    this.hashes = new Uint32Array(maxNames);
    this.buf = typeof bytes === 'number' ? Buffer.allocUnsafe(bytes) : bytes;
  }

  /** Distinct names held. */
  get size(): number { return this.names; }
  /** Bytes of records held. */
  get bytes(): number { return this.used; }

  /**
   * Adds `count` to the name src[s, e), making its record when the name is
   * new. False (and nothing changed) when a new name finds no room.
   */
  add(src: Uint8Array, s: number, e: number, count: number): boolean {
    const h = murmur3View(viewOf(src), src, s, e, NAME_HASH_SEED);
    const slot = this.find(h, src, s, e, count);
    return slot < 0 || this.insert(slot, h, src, s, e, count);
  }

  /**
   * Sums the record at offset p of the buffer given to the constructor: a
   * repeat adds its count to the name's first record, a new name is held
   * where it lies (no copy). REQUIRES: at most maxNames distinct names.
   */
  addRecord(p: number): void {
    const b = this.buf;
    const s = p + NAME_RECORD_FIXED_BYTES;
    const e = s + b.readUInt16LE(p);
    const h = murmur3View(viewOf(b), b, s, e, NAME_HASH_SEED);
    const slot = this.find(h, b, s, e, b.readDoubleLE(p + 2));
    if (slot < 0) return;
    this.table[slot] = this.names;
    this.at[this.names] = p;
    this.hashes[this.names++] = h;
  }

  /** Adds count to the held name src[s, e) and returns -1, or returns the free slot where it belongs. */
  private find(h: number, src: Uint8Array, s: number, e: number, count: number): number {
    const len = e - s;
    for (let slot = h & this.mask; ; slot = (slot + 1) & this.mask) {
      const u = this.table[slot]!;
      if (u < 0) return slot;
      const p = this.at[u]!;
      if (this.hashes[u] === h && this.buf.readUInt16LE(p) === len && this.holds(p + NAME_RECORD_FIXED_BYTES, src, s, len)) {
        this.buf.writeDoubleLE(this.buf.readDoubleLE(p + 2) + count, p + 2);
        return -1;
      }
    }
  }

  private insert(slot: number, h: number, src: Uint8Array, s: number, e: number, count: number): boolean {
    const need = NAME_RECORD_FIXED_BYTES + (e - s);
    if (this.names === this.at.length || this.used + need > this.buf.length) return false;
    const p = this.used;
    this.buf.writeUInt16LE(e - s, p);
    this.buf.writeDoubleLE(count, p + 2);
    const b = this.buf;
    const to = p + NAME_RECORD_FIXED_BYTES;
    if (e - s > SHORT_NAME_BYTES) b.set(src.subarray(s, e), to);
    else for (let i = s; i < e; i++) b[to + i - s] = src[i]!;
    this.used += need;
    this.table[slot] = this.names;
    this.at[this.names] = p;
    this.hashes[this.names++] = h;
    return true;
  }

  /** True when buf[p, p + len) equals src[s, s + len). */
  private holds(p: number, src: Uint8Array, s: number, len: number): boolean {
    const b = this.buf;
    for (let i = 0; i < len; i++) if (b[p + i] !== src[s + i]) return false;
    return true;
  }

  /** Summed count of distinct name u. */
  count(u: number): number { return this.buf.readDoubleLE(this.at[u]! + 2); }
  /** Start and end in buf of distinct name u's bytes. */
  nameStart(u: number): number { return this.at[u]! + NAME_RECORD_FIXED_BYTES; }
  nameEnd(u: number): number { return this.nameStart(u) + this.buf.readUInt16LE(this.at[u]!); }

  /** Forgets every name (the memory stays for reuse). */
  clear(): void {
    if (this.names > 0) this.table.fill(-1);
    this.names = 0;
    this.used = 0;
  }
}
