// Builds the LineChunks of a library call's links (Drum.add, a list or Link
// object given to checkUpdate) without going through text: each link's URL
// bytes, and its source (the call's base, or the Link's own) once per run of
// equal sources, so a page's hundred relative links carry one copy of the
// page URL. Does what the line splitter does for a file line: trims spaces and
// tabs, rejects an empty link (`empty`) and one longer than maxLineBytes
// (`too-long`) with its line number; the canonicalizer judges the rest.
// Does not parse, canonicalize or route. REQUIRES: links are strings or
// objects with a string `url` (anything else is DRUM_BAD_OPTION).

import { DrumError } from '../../errors.js';
import type { LineChunk, Reject } from '../../input/types.js';
import { EXCERPT_BYTES } from '../../input/split.js';
import type { Link } from '../api.js';

export interface LinkChunkParams {
  /** The base for links without their own source ('' = none). */
  base: string;
  /** Line number of the first link minus one: link k gets line firstLine + k + 1. */
  firstLine: number;
  maxLineBytes: number;
  /** Stop adding links to a chunk once it holds this many bytes. */
  chunkBytes: number;
}

const SPACE = 32, TAB = 9;

/** Cuts links[from..] into one chunk of about chunkBytes; returns it and the index of the first link it did not take. */
export function linkChunk(links: readonly (string | Link)[], from: number, p: LinkChunkParams): { chunk: LineChunk; next: number } {
  const urls: Buffer[] = [];
  const sources: Buffer[] = [];
  const rejects: Reject[] = [];
  let bytes = 0;
  let next = from;
  let lastSource: string | null = null;
  let lastSourceBytes: Buffer = Buffer.alloc(0);
  const kept: number[] = [];
  for (; next < links.length && bytes < p.chunkBytes; next++) {
    const l = links[next];
    const url = typeof l === 'string' ? l : l !== null && typeof l === 'object' && typeof l.url === 'string' ? l.url : null;
    if (url === null) throw new DrumError('DRUM_BAD_OPTION', `link ${next} is neither a string nor an object with a string url`);
    const source = typeof l === 'object' && typeof l.source === 'string' ? l.source : p.base;
    const line = p.firstLine + next + 1;
    const b = trim(Buffer.from(url, 'utf8'));
    if (b.length === 0) {
      rejects.push({ line, input: 0, reason: 'empty', excerpt: Buffer.alloc(0) });
      continue;
    }
    if (source !== lastSource) {
      lastSource = source;
      lastSourceBytes = trim(Buffer.from(source, 'utf8'));
      bytes += lastSourceBytes.length;
    }
    if (b.length + lastSourceBytes.length + 1 > p.maxLineBytes) {
      rejects.push({ line, input: 0, reason: 'too-long', excerpt: Buffer.from(b.subarray(0, EXCERPT_BYTES)) });
      continue;
    }
    urls.push(b);
    sources.push(lastSourceBytes);
    kept.push(line);
    bytes += b.length;
  }
  return { chunk: pack(urls, sources, kept, rejects, p.firstLine + next), next };
}

/** Lays the kept links out in one buffer: each run of one source's bytes once, then its links' bytes. */
function pack(urls: Buffer[], sources: Buffer[], lines: number[], rejects: Reject[], endLine: number): LineChunk {
  const n = urls.length;
  let total = 0;
  for (let i = 0; i < n; i++) total += urls[i]!.length + (i === 0 || sources[i] !== sources[i - 1] ? sources[i]!.length : 0);
  const buf = Buffer.allocUnsafe(total);
  const us = new Uint32Array(n), ue = new Uint32Array(n), bs = new Uint32Array(n), be = new Uint32Array(n);
  const ln = new Float64Array(n);
  let at = 0;
  let s0 = 0, s1 = 0;
  for (let i = 0; i < n; i++) {
    if (i === 0 || sources[i] !== sources[i - 1]) {
      s0 = at;
      at += sources[i]!.copy(buf, at);
      s1 = at;
    }
    us[i] = at;
    at += urls[i]!.copy(buf, at);
    ue[i] = at;
    bs[i] = s0;
    be[i] = s1;
    ln[i] = lines[i]!;
  }
  return { input: 0, buf, count: n, urlStarts: us, urlEnds: ue, baseStarts: bs, baseEnds: be, lines: ln, rejects, endOffset: 0, endLine };
}

function trim(b: Buffer): Buffer {
  let s = 0;
  let e = b.length;
  while (s < e && (b[s] === SPACE || b[s] === TAB)) s++;
  while (e > s && (b[e - 1] === SPACE || b[e - 1] === TAB)) e--;
  return b.subarray(s, e);
}
