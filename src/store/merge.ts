// Merges one bucket's sorted, deduplicated pending keys against that
// bucket's sorted store file in one sequential pass: keys not in the store
// are new (their ordinal's bit is set in `newBits`), keys in it are disk
// hits. With a writer, the union goes to the new store file; without one
// (read-only check) nothing is written. Does not look at URL text.
// REQUIRES: pending keys ascending and unique; store file ascending.

import { DrumError } from '../errors.js';
import type { KeyReader } from './key-reader.js';
import type { KeyWriter } from './key-writer.js';

export interface PendingKeys {
  hi: Uint32Array;
  lo: Uint32Array;
  ord: Uint32Array;
  n: number;
}

export interface MergeResult {
  newKeys: number;
  hits: number;
  storeKeys: number;
}

/** Called for each pending key found in the store (e.g. to warm the hot cache). */
export type HitSink = (hi: number, lo: number, ordinal: number) => void;

export function mergeBucket(
  p: PendingKeys,
  reader: KeyReader | null,
  writer: KeyWriter | null,
  newBits: Uint8Array,
  onHit: HitSink | null,
): MergeResult {
  let i = 0; // next pending key
  let hits = 0;
  let storeKeys = 0;
  let prevHi = -1;
  let prevLo = -1;
  const { hi, lo, ord, n } = p;
  if (reader !== null) {
    while (reader.nextBlock()) {
      const keys = reader.keys;
      const m = reader.n;
      storeKeys += m;
      let j = 0; // next store key in this block
      let runStart = 0; // first store key of this block not yet written
      // Order check across blocks and inside the block, cheap and sequential.
      const fh = keys[0]!, fl = keys[1]!;
      if (fh < prevHi || (fh === prevHi && fl <= prevLo)) disorder(reader.path);
      while (j < m) {
        const sh = keys[2 * j]!;
        const sl = keys[2 * j + 1]!;
        // Emit pending keys smaller than this store key: they are new.
        while (i < n && (hi[i]! < sh || (hi[i] === sh && lo[i]! < sl))) {
          if (writer !== null) {
            writer.pushRange(keys, runStart, j);
            runStart = j;
            writer.push(hi[i]!, lo[i]!);
          }
          const o = ord[i]!;
          newBits[o >>> 3]! |= 1 << (o & 7);
          i++;
        }
        if (i < n && hi[i] === sh && lo[i] === sl) {
          hits++;
          if (onHit !== null) onHit(sh, sl, ord[i]!);
          i++;
        }
        if (i >= n) break;
        j++;
        if (j < m) {
          const nh = keys[2 * j]!, nl = keys[2 * j + 1]!;
          if (nh < sh || (nh === sh && nl <= sl)) disorder(reader.path);
        }
      }
      if (i >= n) {
        // No pending keys left: copy the rest of this block in one go and skip comparisons.
        checkOrder(keys, j, m, reader.path);
        if (writer !== null) writer.pushRange(keys, runStart, m);
      } else if (writer !== null) {
        writer.pushRange(keys, runStart, m);
      }
      prevHi = keys[2 * (m - 1)]!;
      prevLo = keys[2 * (m - 1) + 1]!;
    }
  }
  let newKeys = 0;
  for (; i < n; i++) {
    if (writer !== null) writer.push(hi[i]!, lo[i]!);
    const o = ord[i]!;
    newBits[o >>> 3]! |= 1 << (o & 7);
  }
  newKeys = n - hits;
  return { newKeys, hits, storeKeys };
}

function checkOrder(keys: Uint32Array, from: number, to: number, path: string): void {
  for (let j = Math.max(from, 1); j < to; j++) {
    const ph = keys[2 * j - 2]!, pl = keys[2 * j - 1]!;
    const h = keys[2 * j]!, l = keys[2 * j + 1]!;
    if (h < ph || (h === ph && l <= pl)) disorder(path);
  }
}

function disorder(path: string): never {
  throw new DrumError('DRUM_CORRUPT_FILE', `${path}: keys out of order`, { file: path });
}
