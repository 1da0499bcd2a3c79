// WARC input entry point: reads one decompressed WARC byte stream record by
// record and yields LineChunks of extracted links, each with its record's
// base URL (WARC-Target-URI or <base href>) so the canonicalizer resolves
// relative links exactly as for TSV input. Filters by hop (--links), rejects
// javascript:, other non-http(s) schemes, fragment-only, empty and over-long
// links, and malformed / truncated / over-cap records, and goes on.
// Does not gunzip (the caller undoes gzip member by member), canonicalize or
// resolve. A source that fails mid-way first yields the links of every
// whole record before the failure, then rethrows. Chunks end only at record boundaries: `endOffset` is just after
// the last record consumed, `endLine` its number.

import type { LineChunk, RejectReason } from '../types.js';
import { LinkChunkBuilder } from './chunk-builder.js';
import { type ExtractOptions, type LinkSink, extractRecord, wantsRecord } from './extract.js';
import type { Hop } from './html-links.js';
import { type WarcEvent, WarcRecordReader } from './records.js';

export interface WarcReadOptions {
  links: 'nav' | 'all';
  warcLinks: 'html' | 'metadata' | 'both';
  maxLineBytes: number;
  chunkBytes: number;
}

export interface WarcLimits {
  /** Largest record block kept whole for extraction (HTML or metadata); larger ones are rejected 'too-long'. */
  maxRecordBytes: number;
  /** Bytes kept of an over-cap record to read its HTTP headers. */
  headBytes: number;
}

export const WARC_LIMITS: Readonly<WarcLimits> = { maxRecordBytes: 16 * 1024 * 1024, headBytes: 64 * 1024 };

/** Reader statistics, for tests and scripts. */
export interface WarcReadStats {
  records: number;
  /** Largest block held at once. */
  peakRetained: number;
}

export function readWarcChunks(
  source: AsyncIterable<Buffer>,
  input: number,
  opts: WarcReadOptions,
): AsyncIterable<LineChunk> {
  return readWarcChunksWith(source, input, opts, WARC_LIMITS);
}

/** Hops kept: nav = L (links) and R (refresh/redirect); all adds E (embeds) and X (speculative, metadata only). */
export function hopFilter(links: 'nav' | 'all'): (hop: Hop) => boolean {
  return links === 'all' ? () => true : (hop) => hop === 'L' || hop === 'R';
}

/** What extraction takes from the records: HTML, metadata or both, up to the record size cap. */
function extractOptions(opts: WarcReadOptions, limits: WarcLimits): ExtractOptions {
  return { html: opts.warcLinks !== 'metadata', metadata: opts.warcLinks !== 'html', maxBodyBytes: limits.maxRecordBytes };
}

/**
 * Where one WARC stream's links go: links of a kept hop into the chunk being
 * built, unusable ones (and failed records) as rejects counted against the
 * record being handled.
 */
class ChunkSink implements LinkSink {
  /** Number of the record being handled: the line its rejects name. */
  recNo = 0;
  private readonly keepHop: (hop: Hop) => boolean;

  constructor(
    private readonly builder: LinkChunkBuilder,
    private readonly input: number,
    links: 'nav' | 'all',
    private readonly maxLineBytes: number,
  ) {
    this.keepHop = hopFilter(links);
  }

  /** Links that follow resolve against `url`. */
  base(url: string): void {
    this.builder.setBase(url);
  }

  /** Keeps a link of a kept hop when usable, else rejects it with its reason. */
  link(hop: Hop, _context: string, b: Buffer, s: number, e: number): void {
    if (!this.keepHop(hop)) return;
    const why = classify(b, s, e, this.maxLineBytes);
    if (why === null) this.builder.addBytes(b, s, e);
    else this.reject(why, b, s, e);
  }

  /** The record as a whole is unusable: one reject with its excerpt. */
  fail(reason: 'too-long' | 'malformed-record', excerpt: Buffer): void {
    this.reject(reason, excerpt, 0, excerpt.length);
  }

  /** Rejects b[s, e) for `reason`, keeping its first 200 bytes as the excerpt. */
  reject(reason: RejectReason, b: Buffer, s: number, e: number): void {
    this.builder.reject({ line: this.recNo, input: this.input, reason, excerpt: Buffer.from(b.subarray(s, Math.min(e, s + 200))) });
  }
}

/** readWarcChunks with the record size limits given, filling `stats` when given (tests and scripts). */
export async function* readWarcChunksWith(
  source: AsyncIterable<Buffer>,
  input: number,
  opts: WarcReadOptions,
  limits: WarcLimits,
  stats?: WarcReadStats,
): AsyncGenerator<LineChunk> {
  const xo = extractOptions(opts, limits);
  const reader = new WarcRecordReader({
    want: (type, ct) => wantsRecord(type, ct, xo),
    maxRecordBytes: limits.maxRecordBytes,
    headBytes: limits.headBytes,
  });
  const builder = new LinkChunkBuilder(input, Math.min(opts.chunkBytes, 1 << 20) + 4096);
  const sink = new ChunkSink(builder, input, opts.links, opts.maxLineBytes);

  let lastOffset = 0;
  let lastLine = 0;
  let sinceFlush = 0;
  let pending = false;
  const events: WarcEvent[] = [];
  function* handleEvents(): Generator<LineChunk> {
    if (stats) stats.peakRetained = reader.peakRetained;
    for (let k = 0; k < events.length; k++) {
      const ev = events[k]!;
      events[k] = undefined as unknown as WarcEvent; // let the block go once handled
      sink.recNo = ev.number;
      builder.beginRecord(ev.number, ev.kind === 'record' ? ev.targetUri : '');
      if (ev.kind === 'malformed') sink.reject('malformed-record', ev.excerpt, 0, ev.excerpt.length);
      else if (ev.block !== null || ev.head !== null) extractRecord(ev, xo, sink);
      sinceFlush += ev.endOffset - lastOffset;
      lastOffset = ev.endOffset;
      lastLine = ev.number;
      pending = true;
      if (stats) stats.records++;
      if (builder.bytes >= opts.chunkBytes || sinceFlush >= opts.chunkBytes) {
        yield builder.take(lastOffset, lastLine);
        sinceFlush = 0;
        pending = false;
      }
    }
    events.length = 0;
  }
  try {
    for await (const piece of source) {
      reader.push(piece, events);
      yield* handleEvents();
    }
  } catch (e) {
    // Damaged source: the links of every whole record before the damage go out, then the error.
    if (pending) yield builder.take(lastOffset, lastLine);
    throw e;
  }
  reader.end(events);
  yield* handleEvents();
  if (pending) yield builder.take(lastOffset, lastLine);
}

const HTTP = Buffer.from('http');

/** Why a link is unusable here, or null. */
export function classify(b: Buffer, s: number, e: number, maxLineBytes: number): RejectReason | null {
  if (e <= s) return 'empty';
  if (b[s] === 0x23 /* # */) return 'fragment-only';
  // A scheme is [A-Za-z][A-Za-z0-9+.-]* followed by ':'.
  const c0 = b[s]! | 0x20;
  if (c0 >= 0x61 && c0 <= 0x7a) {
    let i = s + 1;
    while (i < e) {
      const c = b[i]!;
      const l = c | 0x20;
      if ((l >= 0x61 && l <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e) i++;
      else break;
    }
    if (i < e && b[i] === 0x3a /* : */) {
      const n = i - s;
      const isHttp =
        (n === 4 || (n === 5 && (b[s + 4]! | 0x20) === 0x73)) &&
        (b[s]! | 0x20) === HTTP[0] &&
        (b[s + 1]! | 0x20) === HTTP[1] &&
        (b[s + 2]! | 0x20) === HTTP[2] &&
        (b[s + 3]! | 0x20) === HTTP[3];
      if (!isHttp) {
        return n === 10 && b.toString('latin1', s, i).toLowerCase() === 'javascript' ? 'javascript' : 'unsupported-scheme';
      }
    }
  }
  if (e - s > maxLineBytes) return 'too-long';
  return null;
}
