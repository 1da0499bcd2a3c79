// A bucket's values as a base values file read through a chain of insert
// deltas (docs/file-format.md, "Store values delta file"): each delta holds
// the (position, value) entries one round added, positions in the bucket's
// key file as that round left it. DeltaFilter yields its inner source's
// values with its own entries inserted at their positions; a chain of k
// deltas is k filters around the base, oldest innermost, so a reader sees
// one value per key of the current key file, in key order, as it would from
// one values file. openValueChain opens a manifest entry's base and deltas
// with every check the files allow (header, counts, widths, lengths, block
// CRCs, ascending positions within the chain's count).
// Does not write deltas (value-delta.ts) or decide when to fold them.
// REQUIRES: the entry's files are those the manifest names; one reader at a
// time per chain.

import { join } from 'node:path';
import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import type { BucketEntry, ValuesEntry } from '../manifest.js';
import { ValueReader, type ValueBuffers, type ValueSink, type ValueSource } from './value-io.js';
import { DELTA_MAGIC, DELTA_POSITION_BYTES, VALUE_BLOCK } from './values-format.js';

/** u32 words of a delta entry's position before its value. */
const POSITION_WORDS = DELTA_POSITION_BYTES / 4;

/** Values in the base file of a bucket entry: its keys less every delta's entries. */
export function baseCount(e: BucketEntry): number {
  let n = e.keys;
  for (const d of e.values?.deltas ?? []) n -= d.count;
  return n;
}

/** A bucket's committed values as the fold rule sees them (engine/core/values-pass.ts deltaFits). */
export interface ValueChainShape {
  /** Values in the base file. */
  baseValues: number;
  /** Delta files after it. */
  deltas: number;
  /** Values in those deltas. */
  deltaValues: number;
}

/** The chain of bucket entry `e`, or null when it has no values file. */
export function chainShape(e: BucketEntry | null | undefined): ValueChainShape | null {
  if (!e || e.values === undefined) return null;
  const base = baseCount(e);
  return { baseValues: base, deltas: e.values.deltas?.length ?? 0, deltaValues: e.keys - base };
}

/** The files of a values entry, base first, then its deltas oldest first. */
export function chainFiles(v: ValuesEntry): { file: string; bytes: number }[] {
  return [{ file: v.file, bytes: v.bytes }, ...(v.deltas ?? []).map((d) => ({ file: d.file, bytes: d.bytes }))];
}

/**
 * Opens bucket b's values (entry `e`, names relative to `dir`) as one
 * source: its values file, or its base through each delta. `buffers` lend
 * their chunk to the base's reader and their deltaChunks, one each in
 * order, to its deltas'. `sizeOf` gives each file's length (the caller's
 * checked or pinned size). DRUM_CORRUPT_FILE when a file disagrees with the
 * manifest.
 */
export function openValueChain(
  dfs: DrumFs, dir: string, b: number, e: BucketEntry, valueBytes: number, sizeOf: (file: string, recorded: number) => number, buffers?: ValueBuffers,
): ValueSource {
  const v = e.values!;
  const deltas = v.deltas ?? [];
  let count = baseCount(e);
  if (count < 0) {
    throw new DrumError('DRUM_CORRUPT_FILE', `${join(dir, 'MANIFEST')}: bucket ${b}'s deltas hold more values than its ${e.keys} keys`, { file: join(dir, 'MANIFEST') });
  }
  let source: ValueSource = ValueReader.open(dfs, join(dir, v.file), { bucket: b, count, valueBytes }, sizeOf(v.file, v.bytes), buffers?.chunk);
  try {
    for (const [k, d] of deltas.entries()) {
      const path = join(dir, d.file);
      // The k-th delta reads into the k-th lent chunk; a chain longer than the chunks lent allocates its own.
      const chunk = buffers?.deltaChunks[k];
      const entries = ValueReader.open(dfs, path, { bucket: b, count: d.count, valueBytes: valueBytes + DELTA_POSITION_BYTES }, sizeOf(d.file, d.bytes), chunk, DELTA_MAGIC);
      count += d.count;
      try {
        source = new DeltaFilter(source, entries, count); // reads the delta's first entry
      } catch (err) {
        entries.close();
        throw err;
      }
    }
  } catch (err) {
    source.close();
    throw err;
  }
  return source;
}

/** `inner`'s values with the entries of one delta inserted at their positions. */
export class DeltaFilter implements ValueSource {
  readonly words: number;
  /** The delta's current entry: position, then the value. */
  private readonly entry: Uint32Array;
  /** Position of the next value handed out. */
  private pos = 0;
  /** Position of the current entry (Infinity once the delta is spent). */
  private next = Infinity;

  /** `total`: values of the source after this delta (inner's plus the delta's). */
  constructor(private readonly inner: ValueSource, private readonly delta: ValueReader, private readonly total: number) {
    this.words = inner.words;
    if (delta.words !== this.words + POSITION_WORDS) {
      throw new DrumError('DRUM_CORRUPT_FILE', `${delta.path}: entries of ${4 * delta.words} bytes, values of ${4 * this.words}`, { file: delta.path });
    }
    this.entry = new Uint32Array(delta.words);
    this.advance();
  }

  get path(): string {
    return this.inner.path;
  }

  get remaining(): number {
    return this.total - this.pos;
  }

  /** Reads the delta's next entry and checks its position. */
  private advance(): void {
    const prev = this.next;
    if (this.delta.remaining === 0) {
      this.next = Infinity;
      return;
    }
    this.delta.take(this.entry, 0);
    const p = this.entry[0]!;
    if ((prev !== Infinity && p <= prev) || p < this.pos || p >= this.total) {
      throw new DrumError('DRUM_CORRUPT_FILE', `${this.delta.path}: entry position ${p} out of order or past the bucket's ${this.total} values`, { file: this.delta.path });
    }
    this.next = p;
  }

  copy(count: number, w: ValueSink | null): void {
    while (count > 0) {
      if (this.pos === this.next) {
        w?.push(this.entry, POSITION_WORDS);
        this.pos++;
        count--;
        this.advance();
        continue;
      }
      const run = Math.min(count, this.next - this.pos);
      this.inner.copy(run, w);
      this.pos += run;
      count -= run;
    }
  }

  take(out: Uint32Array, at: number): void {
    if (this.pos === this.next) {
      for (let k = 0; k < this.words; k++) out[at + k] = this.entry[POSITION_WORDS + k]!;
      this.pos++;
      this.advance();
      return;
    }
    if (this.pos >= this.total) throw new DrumError('DRUM_CORRUPT_FILE', `${this.path}: fewer values than keys`, { file: this.path });
    this.inner.take(out, at);
    this.pos++;
  }

  forEachBlock(sink: (vals: Uint32Array, n: number) => void): void {
    const block = new BlockSink(this.words, sink);
    this.copy(this.remaining, block);
    block.flush();
  }

  close(): void {
    try {
      this.delta.close();
    } finally {
      this.inner.close();
    }
  }
}

/** Gathers pushed values into blocks of VALUE_BLOCK and hands each to `sink`. */
class BlockSink implements ValueSink {
  private readonly block: Uint32Array;
  private n = 0;

  constructor(private readonly words: number, private readonly sink: (vals: Uint32Array, n: number) => void) {
    this.block = new Uint32Array(VALUE_BLOCK * words);
  }

  pushRange(vals: Uint32Array, from: number, to: number): void {
    const w = this.words;
    while (from < to) {
      const take = Math.min(to - from, VALUE_BLOCK - this.n);
      this.block.set(vals.subarray(from * w, (from + take) * w), this.n * w);
      this.n += take;
      from += take;
      if (this.n === VALUE_BLOCK) this.flush();
    }
  }

  push(v: Uint32Array, at: number): void {
    this.block.set(v.subarray(at, at + this.words), this.n * this.words);
    if (++this.n === VALUE_BLOCK) this.flush();
  }

  flush(): void {
    if (this.n > 0) this.sink(this.block, this.n);
    this.n = 0;
  }
}
