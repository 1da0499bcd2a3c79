// LineSplitter: turns a stream of decompressed Buffers into LineChunks of
// complete lines (~chunkBytes each). Handles LF/CRLF, a leading UTF-8 BOM,
// blank and `#` lines, the TSV header, `empty` rows (a row's fields:
// tsv-row.ts), and `too-long` lines,
// which are rejected without being buffered (bounded memory on any input).
// Does no I/O, no decompression, no format detection, no UTF-8 checking
// (invalid bytes pass through to the canonicalizer).
// Preconditions: the first byte pushed is at decompressed offset `startOffset`
// and starts a line. A chunk may be a zero-copy view of a pushed buffer, so a
// caller reusing its buffers must be done with the chunks first; the splitter
// itself keeps no reference to pushed buffers between calls. With `lease`, a
// chunk returned alone also borrows the splitter's index arrays (line-index.ts).

import { LineIndex } from './line-index.js';
import { TsvRow } from './tsv-row.js';
import type { LineChunk, Reject } from './types.js';

export interface SplitOptions {
  input: number;
  format: 'lines' | 'tsv';
  maxLineBytes: number;
  chunkBytes: number;
  /** Decompressed offset of the first byte pushed. Default 0 (a BOM is only dropped at 0). */
  startOffset?: number;
  /** Lines consumed before startOffset (the next line is startLine + 1). Default 0. */
  startLine?: number;
  /** TSV: treat the first data line as a header when none of its fields has a `:`. Default: tsv && startOffset === 0. */
  headerCheck?: boolean;
  /**
   * Chunks returned alone (by pushOwned, end, flushComplete) borrow the
   * splitter's index arrays instead of copies: such a chunk is valid only
   * until the next call into the splitter, which detaches them (length 0).
   * push() may return several chunks, so its chunks own copies. Default false.
   */
  lease?: boolean;
}

export const EXCERPT_BYTES = 200;
const LF = 10, CR = 13, TAB = 9, SPACE = 32, HASH = 35;
const EMPTY = Buffer.alloc(0);
/** A TSV header has no URL in it: no `:` anywhere (every URL has its scheme's colon, even `http:t.com/x`). */
const COLON = 0x3a;

export class LineSplitter {
  private readonly o: Required<Omit<SplitOptions, 'startOffset' | 'startLine' | 'headerCheck'>>;
  /**
   * Assembly window: unconsumed bytes asm[0, asmLen) = the carried partial
   * line then asmNew newer bytes. Handed to the chunk cut from it (then a
   * fresh one is allocated), so chunks never share memory with the splitter.
   */
  private asm: Buffer | null = null;
  private asmLen = 0;
  private asmNew = 0;
  /** Decompressed offset of the first unconsumed byte (asm[0], or the next pushed byte). */
  private base: number;
  private line: number;
  private atStart: boolean;
  private headerPending: boolean;
  /** Inside a too-long line whose end has not arrived yet: its bytes are dropped as they come. */
  private skipping = false;
  private skipExcerpt: Buffer = EMPTY;
  /** Rejects and consumed lines not yet attached to an emitted chunk. */
  private pendingRejects: Reject[] = [];
  private pendingLines = 0;
  /** Per-chunk index arrays, copied or lent to each chunk. */
  private readonly ix = new LineIndex();
  /** TSV: the fields of the row being read (tsv-row.ts). */
  private readonly row = new TsvRow();

  constructor(opts: SplitOptions) {
    this.o = { input: opts.input, format: opts.format, maxLineBytes: opts.maxLineBytes, chunkBytes: opts.chunkBytes, lease: opts.lease ?? false };
    this.base = opts.startOffset ?? 0;
    this.line = opts.startLine ?? 0;
    this.atStart = this.base === 0;
    this.headerPending = opts.headerCheck ?? (opts.format === 'tsv' && this.base === 0);
  }

  /** Unconsumed bytes held between calls (carry + newer bytes); at most chunkBytes + maxLineBytes + 1. */
  bufferedBytes(): number {
    return this.asmLen;
  }

  /** Feeds the next buffer; returns the chunks it completes (usually zero or one). */
  push(b: Buffer): LineChunk[] {
    const out: LineChunk[] = [];
    while (b.length > 0) {
      if (this.skipping) {
        const nl = b.indexOf(LF);
        this.keepExcerpt(b, nl < 0 ? b.length : nl);
        if (nl < 0) {
          this.base += b.length;
          return out;
        }
        this.endSkip(nl + 1);
        b = b.subarray(nl + 1);
        continue;
      }
      const c = this.o.chunkBytes;
      if (this.asmLen === 0 && b.length >= c) {
        this.process(b.subarray(0, c), false, out, false, false); // zero-copy window
        b = b.subarray(c);
        continue;
      }
      const take = Math.min(c - this.asmNew, b.length);
      b.copy(this.asmBuf(), this.asmLen, 0, take);
      this.asmLen += take;
      this.asmNew += take;
      b = b.subarray(take);
      if (this.asmNew === c) this.processAsm(false, out, false);
    }
    return out;
  }

  /** Free bytes a reader must leave in front of its data for pushOwned(): the longest carried partial line. */
  frontRoom(): number {
    return this.o.maxLineBytes + 1;
  }

  /**
   * For readers that own their buffers (files): buf[at, at+n) holds new
   * data (n <= chunkBytes) and buf[0, at) is free room (at >= frontRoom()).
   * The carried partial line is copied into that room right before the data,
   * so it is the only thing ever copied, and the chunk cut from `buf` is the
   * sole user of buf's memory (allocate it with Buffer.allocUnsafeSlow so it
   * can be transferred). Returns at most one chunk. Other states fall back to
   * push().
   */
  pushOwned(buf: Buffer, at: number, n: number): LineChunk[] {
    const held = this.asmLen;
    if (this.skipping || this.asmNew > 0 || held > at || n > this.o.chunkBytes) {
      return this.push(buf.subarray(at, at + n));
    }
    const from = at - held;
    if (held > 0) this.asm!.copy(buf, from, 0, held);
    this.asmLen = 0;
    const out: LineChunk[] = [];
    this.process(buf.subarray(from, at + n), false, out, false, this.o.lease);
    return out;
  }

  /** End of input: the last line needs no newline. Returns the final chunk(s). */
  end(): LineChunk[] {
    const out: LineChunk[] = [];
    if (this.skipping) this.endSkip(0);
    this.processAsm(true, out, this.o.lease);
    return out;
  }

  /** Input broke off (e.g. truncated gzip): returns every complete line held; the partial tail is dropped. */
  flushComplete(): LineChunk[] {
    const out: LineChunk[] = [];
    if (this.skipping) return out; // the unfinished long line is not a complete line; nothing else is held
    this.processAsm(false, out, this.o.lease);
    this.asmLen = 0;
    this.asmNew = 0;
    return out;
  }

  private asmBuf(): Buffer {
    return (this.asm ??= Buffer.allocUnsafeSlow(this.o.maxLineBytes + 1 + this.o.chunkBytes));
  }

  private processAsm(final: boolean, out: LineChunk[], lend: boolean): void {
    const w = this.asm === null ? EMPTY : this.asm.subarray(0, this.asmLen);
    this.asmLen = 0;
    this.asmNew = 0;
    this.process(w, final, out, true, lend);
  }

  /** While skipping: keeps the line's first EXCERPT_BYTES (+1 to see a CR before LF). */
  private keepExcerpt(b: Buffer, upTo: number): void {
    const want = EXCERPT_BYTES + 1 - this.skipExcerpt.length;
    if (want <= 0 || upTo === 0) return;
    this.skipExcerpt = Buffer.concat([this.skipExcerpt, b.subarray(0, Math.min(want, upTo))]);
  }

  /** A too-long line ends `consumed` bytes into the current buffer (0 at end of input). */
  private endSkip(consumed: number): void {
    this.skipping = false;
    this.base += consumed;
    this.line++;
    this.pendingLines++;
    let x = this.skipExcerpt;
    if (x.length <= EXCERPT_BYTES && x.length > 0 && x[x.length - 1] === CR) x = x.subarray(0, x.length - 1);
    if (x.length > EXCERPT_BYTES) x = x.subarray(0, EXCERPT_BYTES);
    this.pendingRejects.push({ line: this.line, input: this.o.input, reason: 'too-long', excerpt: x });
    this.skipExcerpt = EMPTY;
  }

  /**
   * Splits window `w` (starting at a line start, offset this.base) into one
   * chunk; keeps the partial tail in asm. `fromAsm`: w is a view of asm.
   * `lend`: the chunk borrows the index arrays. One method on purpose: its
   * loop runs once per input byte.
   */
  private process(w: Buffer, final: boolean, out: LineChunk[], fromAsm: boolean, lend: boolean): void {
    const ix = this.ix;
    ix.reclaim();
    const max = this.o.maxLineBytes;
    const tsv = this.o.format === 'tsv';
    const wl = w.length;
    let pos = 0;
    if (this.atStart) {
      if (wl >= 3 || final) {
        this.atStart = false;
        if (wl >= 3 && w[0] === 0xef && w[1] === 0xbb && w[2] === 0xbf) pos = 3;
      }
    }
    let n = 0;
    const row = this.row;
    row.reset();
    let us = ix.us, ue = ix.ue, bs = ix.bs, be = ix.be, ln = ix.ln;
    while (pos < wl) {
      let nl = w.indexOf(LF, pos);
      if (nl < 0) {
        if (!final) break;
        nl = wl;
      }
      const s = pos;
      let e = nl;
      pos = nl + 1;
      const line = ++this.line;
      this.pendingLines++;
      if (e > s && w[e - 1] === CR) e--;
      if (e - s > max) {
        this.reject(line, 'too-long', w, s, e);
        continue;
      }
      let a = s;
      while (a < e && (w[a] === SPACE || w[a] === TAB)) a++;
      if (a === e || w[a] === HASH) continue; // blank or comment
      if (n === us.length) {
        ix.grow();
        us = ix.us; ue = ix.ue; bs = ix.bs; be = ix.be; ln = ix.ln;
      }
      if (!tsv) {
        let z = e;
        while (z > a && (w[z - 1] === SPACE || w[z - 1] === TAB)) z--;
        us[n] = a; ue[n] = z; bs[n] = 0; be[n] = 0; ln[n] = line;
        n++;
        continue;
      }
      if (this.headerPending) {
        this.headerPending = false;
        if (w.subarray(s, e).indexOf(COLON) < 0) continue; // header row
      }
      if (!row.read(w, s, e)) {
        this.reject(line, 'empty', w, s, e);
        continue;
      }
      us[n] = row.u0; ue[n] = row.u1; bs[n] = row.b0; be[n] = row.b1; ln[n] = line;
      n++;
    }
    if (pos > wl) pos = wl; // final line without newline
    const emitted = this.pendingLines > 0;
    if (emitted) out.push(this.emit(w.subarray(0, pos), n, lend));
    if (fromAsm && emitted) this.asm = null; // the chunk owns it now
    this.base += pos;
    const tail = wl - pos;
    if (tail === 0) return;
    if (tail > max + 1) {
      // a line longer than the limit and not ended yet: drop it as it streams by
      this.skipping = true;
      this.skipExcerpt = Buffer.from(w.subarray(pos, pos + EXCERPT_BYTES + 1));
      this.base += tail;
      return;
    }
    if (fromAsm && !emitted) {
      if (pos > 0) this.asm!.copyWithin(0, pos, wl); // only a BOM was consumed
    } else {
      w.copy(this.asmBuf(), 0, pos, wl); // the carried partial line: the one copy
    }
    this.asmLen = tail;
    this.asmNew = 0;
  }

  private reject(line: number, reason: Reject['reason'], w: Buffer, s: number, e: number): void {
    const excerpt = Buffer.from(w.subarray(s, Math.min(e, s + EXCERPT_BYTES)));
    this.pendingRejects.push({ line, input: this.o.input, reason, excerpt });
  }

  private emit(buf: Buffer, n: number, lend: boolean): LineChunk {
    const chunk: LineChunk = {
      input: this.o.input,
      buf,
      count: n,
      ...(lend ? this.ix.lend(n) : this.ix.copy(n)),
      rejects: this.pendingRejects,
      endOffset: this.base + buf.length,
      endLine: this.line,
    };
    this.pendingRejects = [];
    this.pendingLines = 0;
    return chunk;
  }
}
