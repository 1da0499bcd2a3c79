// The source column of `drum ingest --graph`: for each chunk the read loop
// hands to the parse pool, the canonical URL and key of every row's source
// (TSV column 1), made on this thread before the chunk's memory is reused and
// queued until the chunk's parse result (the targets) comes back in order.
// A row whose source equals the row before's (byte for byte, the common case:
// a page's outlinks follow each other) takes that row's answer without
// canonicalizing again. A source the canonicalizer rejects gives its row no
// pair; it is not a reject of the line (the target decides that).
// Does not route or store anything.
// REQUIRES: TSV chunks (baseStarts/baseEnds hold the source column), taken
// back with take() in the order prepare() saw them.

import { BatchScratch, canonicalizeBatch } from '../../canonicalize/batch.js';
import type { CanonicalPolicy } from '../../canonicalize/types.js';
import { DrumError } from '../../errors.js';
import { keysOfBatch } from '../../fingerprint/key.js';
import type { LineChunk } from '../../input/types.js';
import type { ParsedChunk } from './parse.js';

/** The sources of one chunk's rows. */
export interface SourceBatch {
  input: number;
  endOffset: number;
  /** Line number of each row of the chunk (ascending). */
  lines: Float64Array;
  /** Per row: the index of its source among the URLs below, or -1 when its source was rejected. */
  at: Int32Array;
  /** Canonical source URLs back to back: URL k is bytes[ends[k-1], ends[k]). */
  bytes: Buffer;
  ends: Uint32Array;
  hostStarts: Uint32Array;
  hostEnds: Uint32Array;
  /** keys[2k], keys[2k+1] = hi, lo of URL k. */
  keys: Uint32Array;
}

export class GraphSources {
  private readonly queue: SourceBatch[] = [];
  private readonly scratch = new BatchScratch();
  private skip = new Uint8Array(0);

  constructor(
    private readonly policy: CanonicalPolicy,
    private readonly hostBits: number,
  ) {}

  /** Canonicalizes and keys the source column of `chunk` and queues the result. */
  prepare(chunk: LineChunk): void {
    const n = chunk.count;
    const { buf, baseStarts, baseEnds } = chunk;
    if (this.skip.length < n) this.skip = new Uint8Array(Math.max(n, 2 * this.skip.length));
    const skip = this.skip;
    for (let i = 0; i < n; i++) {
      const s = baseStarts[i]!;
      const e = baseEnds[i]!;
      skip[i] = i > 0 && e - s === baseEnds[i - 1]! - baseStarts[i - 1]! && buf.compare(buf, baseStarts[i - 1]!, baseEnds[i - 1]!, s, e) === 0 ? 1 : 0;
    }
    // The source column read as the URL column, with no base of its own.
    const view: LineChunk = { ...chunk, urlStarts: baseStarts, urlEnds: baseEnds, baseStarts: baseEnds };
    const b = canonicalizeBatch(view, this.policy, this.scratch, { skip });
    const from = this.scratch.from;
    const at = new Int32Array(n);
    let k = 0;
    for (let i = 0; i < n; i++) {
      if (skip[i] !== 0) at[i] = at[i - 1]!;
      else if (k < b.count && from[k] === i) at[i] = k++;
      else at[i] = -1;
    }
    const keys = new Uint32Array(2 * b.count);
    keysOfBatch(b.bytes, b.count, b.ends, b.hostStarts, b.hostEnds, this.hostBits, keys);
    this.queue.push({
      input: chunk.input, endOffset: chunk.endOffset, lines: chunk.lines.slice(0, n), at, bytes: Buffer.from(b.bytes),
      ends: b.ends.slice(), hostStarts: b.hostStarts.slice(), hostEnds: b.hostEnds.slice(), keys,
    });
  }

  /** The sources of the chunk `p` was parsed from (the oldest queued). */
  take(p: ParsedChunk): SourceBatch {
    const s = this.queue.shift();
    if (s === undefined || s.input !== p.input || s.endOffset !== p.endOffset) {
      throw new DrumError('DRUM_INTERNAL', `graph: the sources of input ${p.input} at ${p.endOffset} were not prepared in order`);
    }
    return s;
  }

  /** Forgets what is queued (a run that stopped). */
  clear(): void {
    this.queue.length = 0;
  }
}
