// Test helpers for the WARC reader: build WARC records and HTTP responses in
// memory, feed them as Buffer pieces, and collect the chunks' links and
// rejects as plain values. Test-only; no assertions here.

import type { LineChunk, Reject } from '../../../src/input/types.js';
import { type WarcLimits, type WarcReadOptions, type WarcReadStats, WARC_LIMITS, readWarcChunksWith } from '../../../src/input/warc/index.js';

export interface Collected {
  /** [url, base, record number] per link, in chunk order. */
  links: [string, string, number][];
  rejects: Reject[];
  chunks: LineChunk[];
}

export const NAV: WarcReadOptions = { links: 'nav', warcLinks: 'html', maxLineBytes: 2048, chunkBytes: 1 << 20 };

export function warcRecord(version: string, fields: Record<string, string>, block: Buffer | string): Buffer {
  const body = typeof block === 'string' ? Buffer.from(block, 'utf8') : block;
  const head =
    `WARC/${version}\r\n` +
    Object.entries(fields)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    `Content-Length: ${body.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body, Buffer.from('\r\n\r\n')]);
}

export function httpResponse(headers: Record<string, string>, body: Buffer | string, status = '200 OK'): Buffer {
  const b = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const head =
    `HTTP/1.1 ${status}\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n';
  return Buffer.concat([Buffer.from(head, 'latin1'), b]);
}

/** A WARC/1.0 response record for an HTML page. */
export function htmlRecord(uri: string, html: string | Buffer, headers: Record<string, string> = { 'Content-Type': 'text/html; charset=utf-8' }, version = '1.0'): Buffer {
  return warcRecord(
    version,
    { 'WARC-Type': 'response', 'WARC-Target-URI': uri, 'Content-Type': 'application/http; msgtype=response' },
    httpResponse(headers, html),
  );
}

export async function* pieces(buf: Buffer, cuts: number[] = []): AsyncGenerator<Buffer> {
  let last = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    if (c <= last || c >= buf.length) continue;
    yield buf.subarray(last, c);
    last = c;
  }
  if (last < buf.length) yield buf.subarray(last);
}

export async function collect(
  source: AsyncIterable<Buffer>,
  opts: WarcReadOptions = NAV,
  limits: WarcLimits = WARC_LIMITS,
  stats?: WarcReadStats,
): Promise<Collected> {
  const out: Collected = { links: [], rejects: [], chunks: [] };
  for await (const c of readWarcChunksWith(source, 7, opts, limits, stats)) {
    out.chunks.push(c);
    for (let i = 0; i < c.count; i++) {
      out.links.push([
        c.buf.toString('utf8', c.urlStarts[i], c.urlEnds[i]),
        c.buf.toString('utf8', c.baseStarts[i], c.baseEnds[i]),
        c.lines[i]!,
      ]);
    }
    out.rejects.push(...c.rejects);
  }
  return out;
}

export function urls(c: Collected): string[] {
  return c.links.map((l) => l[0]);
}
