// Builds LineChunks out of extracted links: link bytes and the base URL of
// their record go back to back into one growing Buffer, with typed-array
// offsets per link, so the canonicalizer sees the same shape as TSV input.
// Does not parse, filter or resolve anything. Precondition: callers add a
// record's links between beginRecord() and the next beginRecord()/take().

import type { LineChunk, Reject } from '../types.js';

export class LinkChunkBuilder {
  private buf: Buffer;
  private used = 0;
  private starts: Uint32Array;
  private ends: Uint32Array;
  private bStarts: Uint32Array;
  private bEnds: Uint32Array;
  private lines: Float64Array;
  private n = 0;
  private rejects: Reject[] = [];
  /** Base of the current record: written lazily, on its first link. */
  private baseText = '';
  private baseStart = -1;
  private baseEnd = -1;
  private recordNo = 0;

  private readonly initialBytes: number;

  constructor(
    readonly input: number,
    initialBytes: number,
  ) {
    this.initialBytes = Math.max(1024, initialBytes);
    this.buf = Buffer.allocUnsafe(this.initialBytes);
    const cap = 1024;
    this.starts = new Uint32Array(cap);
    this.ends = new Uint32Array(cap);
    this.bStarts = new Uint32Array(cap);
    this.bEnds = new Uint32Array(cap);
    this.lines = new Float64Array(cap);
  }

  /** Bytes of link and base text held so far. */
  get bytes(): number {
    return this.used;
  }

  get count(): number {
    return this.n;
  }

  beginRecord(recordNo: number, base: string): void {
    this.recordNo = recordNo;
    this.baseText = base;
    this.baseStart = -1;
    this.baseEnd = -1;
  }

  /** Changes the current record's base (a `<base href>` seen mid-document). */
  setBase(base: string): void {
    if (base === this.baseText) return;
    this.baseText = base;
    this.baseStart = -1;
    this.baseEnd = -1;
  }

  private reserve(extra: number): void {
    if (this.used + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.used + extra) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.used);
    this.buf = next;
  }

  private growArrays(): void {
    const cap = this.starts.length * 2;
    const g32 = (a: Uint32Array): Uint32Array => {
      const b = new Uint32Array(cap);
      b.set(a);
      return b;
    };
    this.starts = g32(this.starts);
    this.ends = g32(this.ends);
    this.bStarts = g32(this.bStarts);
    this.bEnds = g32(this.bEnds);
    const l = new Float64Array(cap);
    l.set(this.lines);
    this.lines = l;
  }

  private ensureBase(): void {
    if (this.baseStart >= 0) return;
    const len = Buffer.byteLength(this.baseText);
    this.reserve(len);
    this.baseStart = this.used;
    this.used += this.buf.write(this.baseText, this.used, 'utf8');
    this.baseEnd = this.used;
  }

  private push(start: number): void {
    if (this.n === this.starts.length) this.growArrays();
    const i = this.n++;
    this.starts[i] = start;
    this.ends[i] = this.used;
    this.bStarts[i] = this.baseStart;
    this.bEnds[i] = this.baseEnd;
    this.lines[i] = this.recordNo;
  }

  /** Adds a link given as raw bytes (already known to be clean UTF-8). */
  addBytes(src: Buffer, start: number, end: number): void {
    this.ensureBase();
    this.reserve(end - start);
    const at = this.used;
    src.copy(this.buf, at, start, end);
    this.used += end - start;
    this.push(at);
  }

  reject(r: Reject): void {
    this.rejects.push(r);
  }

  /** Hands out everything gathered as one chunk and starts afresh. */
  take(endOffset: number, endLine: number): LineChunk {
    const n = this.n;
    const chunk: LineChunk = {
      input: this.input,
      buf: this.buf.subarray(0, this.used),
      count: n,
      urlStarts: this.starts.slice(0, n),
      urlEnds: this.ends.slice(0, n),
      baseStarts: this.bStarts.slice(0, n),
      baseEnds: this.bEnds.slice(0, n),
      lines: this.lines.slice(0, n),
      rejects: this.rejects,
      endOffset,
      endLine,
    };
    // The handed-out buf is owned by the consumer now: start a new one.
    this.buf = Buffer.allocUnsafe(this.initialBytes);
    this.used = 0;
    this.n = 0;
    this.rejects = [];
    this.baseStart = -1;
    this.baseEnd = -1;
    return chunk;
  }
}
