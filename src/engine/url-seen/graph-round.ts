// The link graph of `drum ingest --graph`: each accepted TSV row (source,
// target) becomes one pair of docIDs, in input order, in graph-NNNNN.bin.
// One merge per round answers everything: every row's source and target go
// to the core (no tier answers them, since a tier knows "seen" but not the
// docID), each distinct key once per round (RoundKeys; a repeat takes its
// first arrival's ordinal), and the round's check+update hands every
// ordinal's value out (CoreValues.out): a new key's docID is the one it was
// just given, a stored key's the one it has. The round's rows are kept as
// (source ordinal, target ordinal) and written once the merge is done.
// A source new to the store is stored (it was fetched: seen) and gets a
// docID, but is not emitted: its ordinal is marked silent, and the round's
// emit sends it to the URL log and host counts only, not the unique files.
// Within a row the source arrives before the target, so a row linking a page
// to itself stores it silently. Counters: targets count as links read,
// unique or duplicate as without --graph; silent ordinals are taken back out
// of the merge's unique and duplicate counts (graphSourcesStored instead).
// Does not read inputs, merge or commit: ingest.ts drives it.
// REQUIRES: a store with values; no line memo answers (every target line has
// its URL in the batch); ordinals handed out only through route() in a round.

import { AUX_MAX_URL_BYTES } from '../../bucket/aux-log.js';
import { hostCheckOf } from '../../fingerprint/key.js';
import type { Reject } from '../../input/types.js';
import type { RunCounters } from '../../stats/counters.js';
import type { ParsedChunk } from '../pipeline/parse.js';
import type { SourceBatch } from '../pipeline/graph-sources.js';
import type { DrumCore } from '../core/drum-core.js';
import { countParseThread } from './front.js';
import { RoundKeys } from '../core/round-keys.js';
import { docIDOf } from './url-values.js';

/** A graph round ends after the chunk that reaches this many rows (8 bytes a row: 8 MiB)... */
export const GRAPH_ROUND_ROWS = 1 << 20;
/** ...or this many distinct keys (the key table, 12 bytes a slot at most half full, and 8 bytes of docID each). */
export const GRAPH_ROUND_KEYS = (1 << 20) - (1 << 17);

/** Bytes of one pair in graph-NNNNN.bin: source docID, target docID, little-endian u64 each. */
export const GRAPH_PAIR_BYTES = 8 + 8;

export class GraphRound {
  private readonly keys = new RoundKeys();
  private rowSrc = new Uint32Array(1 << 12);
  private rowTgt = new Uint32Array(1 << 12);
  private rows = 0;
  /** Bit per ordinal: its first arrival was a source (stored, never emitted). */
  private silent = new Uint8Array(1 << 10);
  /** docID by ordinal, filled by the merge's values pass. */
  private doc = new Float64Array(1 << 13);
  private readonly pair = Buffer.alloc(GRAPH_PAIR_BYTES);

  /** Receives each ordinal's value from the merge (CoreValues.out). */
  readonly out = (o: number, v: Uint32Array, at: number): void => {
    if (o >= this.doc.length) this.doc = growF64(this.doc, o + 1);
    this.doc[o] = docIDOf(v, at);
  };

  /** True when the round holds enough rows or keys to merge now. */
  get full(): boolean {
    return this.rows >= GRAPH_ROUND_ROWS || this.keys.size >= GRAPH_ROUND_KEYS;
  }

  /** True when ordinal o's first arrival was a source (its URL is stored but not emitted). */
  isSilent(o: number): boolean {
    return o < 8 * this.silent.length && (this.silent[o >>> 3]! & (1 << (o & 7))) !== 0;
  }

  /**
   * Routes a parsed chunk's targets and their rows' sources to the core, in
   * row order, source first. Counts links read, in-round duplicates and rows
   * without a pair into `c`; URLs too long for the aux log go to `tooLong`.
   */
  route(p: ParsedChunk, src: SourceBatch, core: DrumCore, seeded: boolean, c: RunCounters, tooLong: Reject[]): void {
    const { batch, keys } = p;
    const { bytes, ends, hostStarts, hostEnds, lines } = batch;
    let row = 0;
    let start = 0;
    let accepted = 0;
    let dups = 0;
    let lost = p.rejects.length;
    for (let k = 0; k < batch.count; k++) {
      const s = start;
      const end = ends[k]!;
      start = end;
      if (end - s > AUX_MAX_URL_BYTES) {
        tooLong.push({ line: lines[k]!, input: p.input, reason: 'too-long', excerpt: Buffer.from(bytes.subarray(s, s + 200)) });
        lost++;
        continue;
      }
      accepted++;
      while (src.lines[row] !== lines[k]) row++;
      const j = src.at[row]!;
      let so = -1;
      if (j >= 0) {
        const ss = j === 0 ? 0 : src.ends[j - 1]!;
        const se = src.ends[j]!;
        if (se - ss <= AUX_MAX_URL_BYTES) {
          so = this.keys.find(src.keys[2 * j]!, src.keys[2 * j + 1]!);
          if (so < 0) {
            so = this.add(core, seeded, src.keys[2 * j]!, src.keys[2 * j + 1]!, src.bytes, ss, se, src.hostStarts[j]!, src.hostEnds[j]!);
            this.silent[so >>> 3]! |= 1 << (so & 7);
          }
        }
      }
      const hi = keys[2 * k]!;
      const lo = keys[2 * k + 1]!;
      let to = this.keys.find(hi, lo);
      if (to >= 0) dups++;
      else to = this.add(core, seeded, hi, lo, bytes, s, end, hostStarts[k]!, hostEnds[k]!);
      if (so < 0) {
        lost++;
        continue;
      }
      if (this.rows === this.rowSrc.length) {
        this.rowSrc = growU32(this.rowSrc, this.rows + 1);
        this.rowTgt = growU32(this.rowTgt, this.rows + 1);
      }
      this.rowSrc[this.rows] = so;
      this.rowTgt[this.rows] = to;
      this.rows++;
    }
    c.linksRead += accepted;
    c.duplicateUrls += dups;
    c.graphRowsWithoutPair += lost;
    countParseThread(c, p);
  }

  /** Hands key (hi, lo) with payload buf[s, e) to the core under the next ordinal (seeded: with its host check), and records it. */
  private add(core: DrumCore, seeded: boolean, hi: number, lo: number, buf: Buffer, s: number, e: number, hs: number, he: number): number {
    const o = core.add(hi, lo, buf, s, e, -1, -1, seeded ? hostCheckOf(buf, hs, he) : 0);
    this.keys.add(hi, lo, o);
    if (o >= 8 * this.silent.length) this.silent = growU8(this.silent, (o >>> 3) + 1);
    this.silent[o >>> 3] = this.silent[o >>> 3]! & ~(1 << (o & 7));
    return o;
  }

  /**
   * After the round's merge (docIDs before it: `docBase`): takes the silent
   * ordinals out of the merge's unique and duplicate counts, writes every
   * row's pair in row order through `write`, and empties the round.
   */
  finish(records: number, docBase: number, c: RunCounters, write: (pair: Buffer) => void): void {
    for (let o = 0; o < records; o++) {
      if (!this.isSilent(o)) continue;
      if (this.doc[o]! >= docBase) {
        c.uniqueUrls--;
        c.graphSourcesStored++;
      } else {
        c.duplicateUrls--;
      }
    }
    const pair = this.pair;
    for (let r = 0; r < this.rows; r++) {
      writeU64(pair, 0, this.doc[this.rowSrc[r]!]!);
      writeU64(pair, 8, this.doc[this.rowTgt[r]!]!);
      write(pair);
    }
    c.graphPairs += this.rows;
    this.clear();
  }

  /** Empties the round (after finish(), or when the round is dropped). */
  clear(): void {
    this.rows = 0;
    this.keys.clear();
    this.silent.fill(0);
  }
}

function writeU64(b: Buffer, at: number, v: number): void {
  b.writeUInt32LE(v % 2 ** 32, at);
  b.writeUInt32LE(Math.floor(v / 2 ** 32), at + 4);
}

function growU32(a: Uint32Array<ArrayBuffer>, n: number): Uint32Array<ArrayBuffer> {
  const b = new Uint32Array(Math.max(n, 2 * a.length));
  b.set(a);
  return b;
}

function growU8(a: Uint8Array<ArrayBuffer>, n: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(Math.max(n, 2 * a.length));
  b.set(a);
  return b;
}

function growF64(a: Float64Array<ArrayBuffer>, n: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(Math.max(n, 2 * a.length));
  b.set(a);
  return b;
}
