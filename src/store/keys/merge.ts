// Merges one bucket's sorted, deduplicated pending keys against that
// bucket's sorted store file in one sequential pass: keys not in the store
// are new (their ordinal's bit is set in `newBits`), keys in it are disk
// hits. With a writer, the union goes to the new store file; without one
// (read-only check) nothing is written, and given the store file's block
// first keys (KeyReader.firstKeys) the merge skips: it jumps over blocks no
// pending key can be in and reads only those it lands on, each still CRC-
// and order-checked (every block once, as it is loaded; pending keys are
// then placed in it by binary search). The pending keys may come in several
// slices (a bucket too big for the sort area is sorted one key range at a
// time): BucketMerge keeps its place in the store file between add() calls.
// With `drop` (DRUM's delete, for forgetting keys) the roles turn: a
// pending key found in the store is left out of the new file and its
// ordinal's bit is set; a pending key not in the store is ignored.
// With a value sink (stores with values), the merge records where each new
// key lands in the new file (and, when asked, each hit; for delete, each
// dropped key), as (position, ordinal, seed) events in key order: the values pass
// (value-merge.ts) writes the values file from them once the round's
// verdicts, hence the new keys' ranks, are all known. A merge that writes
// nothing (check) records each hit's position in the file it reads, where a
// read-only values pass finds the hit's value.
// Does not look at URL text.
// REQUIRES: pending keys ascending and unique within and across add() calls;
// store file ascending.

import { DrumError } from '../../errors.js';
import type { KeyReader } from './key-reader.js';
import type { KeyWriter } from './key-writer.js';

export interface PendingKeys {
  hi: Uint32Array;
  lo: Uint32Array;
  ord: Uint32Array;
  /** Each key's seed (stores with values), or null: events then carry 0. */
  seed?: Uint32Array | null;
  n: number;
}

export interface MergeResult {
  newKeys: number;
  hits: number;
  storeKeys: number;
}

/** Receives (position in the new file, ordinal, seed) of merged keys, ascending positions. */
export interface ValueEventSink {
  /** Also record store hits (a round that updates or outputs the values of hits). */
  readonly hits: boolean;
  add(pos: number, ordinal: number, seed: number): void;
}

/** Called for each pending key found in the store (e.g. to warm the hot cache). */
export type HitSink = (hi: number, lo: number, ordinal: number) => void;

const NO_KEYS: Uint32Array = new Uint32Array(0);

/** One bucket's merge, fed pending keys in ascending slices; finish() copies the rest of the store file. */
export class BucketMerge {
  private keys: Uint32Array = NO_KEYS; // current store block, interleaved hi/lo
  private m = 0; // keys in the current block
  private j = 0; // next store key of the block to compare
  private runStart = 0; // first store key of the block not yet written
  private prevHi = -1; // last key of the previous block (order check)
  private prevLo = -1;
  private eof: boolean;
  private newKeys = 0;
  private hits = 0;
  private storeKeys = 0;

  /**
   * `firstKeys`: the store file's block first keys (interleaved hi/lo), to
   * skip blocks; only without a writer (a written merge copies every block).
   */
  constructor(
    private readonly reader: KeyReader | null,
    private readonly writer: KeyWriter | null,
    private readonly newBits: Uint8Array,
    private readonly onHit: HitSink | null,
    private readonly firstKeys: Uint32Array | null = null,
    /** Delete: found keys are dropped from the new file and marked in newBits; keys not found are ignored. */
    private readonly drop = false,
    /** Stores with values: where merged keys land (a delete only with a writer; without one, hits' positions in the file read). */
    private readonly events: ValueEventSink | null = null,
  ) {
    if (events !== null && writer === null && drop) throw new RangeError('BucketMerge: a delete records value events only with a writer');
    if (firstKeys !== null && writer !== null) throw new RangeError('BucketMerge: a merge that writes cannot skip blocks');
    this.eof = reader === null;
    // Skipping: read one block at a time from the start, not a streaming read-ahead.
    if (firstKeys !== null && reader !== null) reader.seekBlock(reader.nextBlockIndex);
  }

  /**
   * Merges the next slice of pending keys (all greater than every key of
   * earlier slices). One method on purpose: its loop runs once per stored
   * and pending key of the round.
   */
  add(p: PendingKeys): void {
    const { hi, lo, ord, n } = p;
    const seed = p.seed ?? null;
    const writer = this.writer;
    const newBits = this.newBits;
    let i = 0;
    let keys = this.keys, m = this.m, j = this.j, runStart = this.runStart;
    while (i < n) {
      if (j >= m) {
        // This block is used up: write what is left of it and move to the next one (or, skipping, to the one the key is in).
        this.runStart = runStart;
        const jumped = this.firstKeys !== null && this.skipTo(hi[i]!, lo[i]!);
        const more = this.advance();
        keys = this.keys;
        m = this.m;
        j = runStart = 0;
        if (!more) break;
        // The index is not CRC-checked: the block landed on must really start at or below the key, or a skipped block could hold it.
        if (jumped && (keys[0]! > hi[i]! || (keys[0] === hi[i] && keys[1]! > lo[i]!))) {
          throw new DrumError('DRUM_CORRUPT_FILE', `${this.reader!.path}: block first key differs from the one read before`, { file: this.reader!.path });
        }
      }
      const ph = hi[i]!;
      const pl = lo[i]!;
      // The block was order-checked when it was loaded (advance): find the first store key at or above the pending
      // key by binary search (a small round into a big store passes hundreds of store keys between two pending keys).
      j = lowerBound(keys, j, m, ph, pl);
      if (j >= m) continue;
      const sh = keys[2 * j]!;
      const sl = keys[2 * j + 1]!;
      if (ph < sh || (ph === sh && pl < sl)) {
        // Smaller than this store key: new (a delete ignores it).
        if (this.drop) {
          i++;
          continue;
        }
        const o = ord[i]!;
        if (writer !== null) {
          writer.pushRange(keys, runStart, j);
          runStart = j;
          if (this.events !== null) this.events.add(writer.pushed, o, seed === null ? 0 : seed[i]!);
          writer.push(ph, pl);
        }
        newBits[o >>> 3]! |= 1 << (o & 7);
        this.newKeys++;
        i++;
      } else if (ph === sh && pl === sl) {
        this.hits++;
        if (this.drop) {
          // Write the store keys before this one and skip it (the next pending key is larger: j moves on before any push).
          const o = ord[i]!;
          if (writer !== null) {
            writer.pushRange(keys, runStart, j);
            if (this.events !== null) this.events.add(writer.pushed, o, 0);
          }
          runStart = j + 1;
          newBits[o >>> 3]! |= 1 << (o & 7);
        } else {
          // Its position: in the new file (a writer), or in the file read (a check, which reads its values there).
          if (this.events !== null && this.events.hits) this.events.add(writer !== null ? writer.pushed + (j - runStart) : this.reader!.delivered - m + j, ord[i]!, 0);
          if (this.onHit !== null) this.onHit(sh, sl, ord[i]!);
        }
        i++;
      }
    }
    // Past the end of the store file: the rest are new (a delete ignores them).
    if (this.drop) i = n;
    for (; i < n; i++) {
      const o = ord[i]!;
      if (writer !== null) {
        if (this.events !== null) this.events.add(writer.pushed, o, seed === null ? 0 : seed[i]!);
        writer.push(hi[i]!, lo[i]!);
      }
      newBits[o >>> 3]! |= 1 << (o & 7);
      this.newKeys++;
    }
    this.keys = keys;
    this.m = m;
    this.j = j;
    this.runStart = runStart;
  }

  /**
   * Leaves the current store block: writes it from runStart on, remembers
   * its last key, and loads the next block (its first key order-checked
   * against that one). False at the end of the file (then no block is held).
   */
  private advance(): boolean {
    const keys = this.keys, m = this.m;
    if (this.writer !== null && this.runStart < m) this.writer.pushRange(keys, this.runStart, m);
    if (m > 0) {
      this.prevHi = keys[2 * (m - 1)]!;
      this.prevLo = keys[2 * (m - 1) + 1]!;
    }
    if (this.eof || !this.reader!.nextBlock()) {
      this.eof = true;
      this.keys = NO_KEYS;
      this.m = this.j = this.runStart = 0;
      return false;
    }
    const next = this.reader!.keys;
    this.keys = next;
    this.m = this.reader!.n;
    this.j = this.runStart = 0;
    this.storeKeys += this.m;
    const fh = next[0]!, fl = next[1]!;
    if (fh < this.prevHi || (fh === this.prevHi && fl <= this.prevLo)) disorder(this.reader!.path);
    checkOrder(next, 0, this.m, this.reader!.path); // once per block: add() then binary-searches it
    return true;
  }

  /**
   * Positions the reader on the last block whose first key is at or below
   * (h, l), when that is past the next block; true if it jumped.
   */
  private skipTo(h: number, l: number): boolean {
    const r = this.reader;
    if (r === null || this.eof) return false;
    const fk = this.firstKeys!;
    const next = r.nextBlockIndex;
    let a = next;
    let z = r.blocks - 1;
    let t = next;
    while (a <= z) {
      const mid = (a + z) >>> 1;
      const fh = fk[2 * mid]!, fl = fk[2 * mid + 1]!;
      if (fh < h || (fh === h && fl <= l)) {
        t = mid;
        a = mid + 1;
      } else z = mid - 1;
    }
    if (t <= next) return false;
    r.seekBlock(t);
    return true;
  }

  /**
   * Copies the store keys after the last pending key (each block is
   * order-checked as it is loaded); returns the counts. A skipping merge
   * reads no further blocks.
   */
  finish(): MergeResult {
    if (this.firstKeys !== null) return { newKeys: this.newKeys, hits: this.hits, storeKeys: this.storeKeys };
    while (this.advance());
    return { newKeys: this.newKeys, hits: this.hits, storeKeys: this.storeKeys };
  }
}

/** Merges one whole bucket in a single slice (see BucketMerge). */
export function mergeBucket(
  p: PendingKeys,
  reader: KeyReader | null,
  writer: KeyWriter | null,
  newBits: Uint8Array,
  onHit: HitSink | null,
): MergeResult {
  const m = new BucketMerge(reader, writer, newBits, onHit);
  m.add(p);
  return m.finish();
}

function checkOrder(keys: Uint32Array, from: number, to: number, path: string): void {
  for (let j = Math.max(from, 1); j < to; j++) {
    const ph = keys[2 * j - 2]!, pl = keys[2 * j - 1]!;
    const h = keys[2 * j]!, l = keys[2 * j + 1]!;
    if (h < ph || (h === ph && l <= pl)) disorder(path);
  }
}

/** The first index k in [j, m) whose store key is at or above (h, l), or m. REQUIRES: keys[j..m) ascending. */
function lowerBound(keys: Uint32Array, j: number, m: number, h: number, l: number): number {
  let a = j, z = m;
  while (a < z) {
    const mid = (a + z) >>> 1;
    const kh = keys[2 * mid]!;
    if (kh < h || (kh === h && keys[2 * mid + 1]! < l)) a = mid + 1;
    else z = mid;
  }
  return a;
}

function disorder(path: string): never {
  throw new DrumError('DRUM_CORRUPT_FILE', `${path}: keys out of order`, { file: path });
}
