// Bench-only line reading and buffered writing for the peer dedup programs:
// reads a file as a stream of 1 MiB chunks and yields arrays of complete
// lines (strings, trailing CR dropped, empty lines skipped), the way a Node
// developer would write it; and a writer that batches output lines into
// large writes. No URL parsing. Precondition: input is UTF-8 text; a chunk
// is only decoded at a newline boundary, so multi-byte characters stay whole.

import { createReadStream, openSync, closeSync } from 'node:fs';
import { writeAll } from '../fd-writer.js';

/** Yields the file's non-empty lines in batches (one batch per read chunk). */
export async function* readLineBatches(path: string, chunkBytes = 1 << 20): AsyncGenerator<string[]> {
  let carry: Buffer | null = null;
  for await (const chunk of createReadStream(path, { highWaterMark: chunkBytes }) as AsyncIterable<Buffer>) {
    const data: Buffer = carry ? Buffer.concat([carry, chunk]) : chunk;
    const nl = data.lastIndexOf(10);
    if (nl < 0) { carry = data; continue; }
    carry = nl + 1 < data.length ? data.subarray(nl + 1) : null;
    yield splitLines(data.toString('utf8', 0, nl));
  }
  if (carry && carry.length > 0) yield splitLines(carry.toString('utf8'));
}

function splitLines(text: string): string[] {
  const parts = text.split('\n');
  let n = 0;
  for (let i = 0; i < parts.length; i++) {
    let s = parts[i]!;
    if (s.length > 0 && s.charCodeAt(s.length - 1) === 13) s = s.slice(0, -1);
    if (s.length > 0) parts[n++] = s;
  }
  parts.length = n;
  return parts;
}

/** Appends lines to a file in large writes (joins up to ~1 MiB of lines per write). */
export class LineWriter {
  private fd: number;
  private lines: string[] = [];
  private chars = 0;
  private pending: Promise<void> = Promise.resolve();
  count = 0;

  constructor(path: string) {
    this.fd = openSync(path, 'w');
  }

  /** Queues a line; returns true when about 1 MiB is queued and the caller should `await flush()`. */
  push(line: string): boolean {
    this.lines.push(line);
    this.chars += line.length + 1;
    this.count++;
    return this.chars >= 1 << 20;
  }

  async flush(): Promise<void> {
    if (this.lines.length === 0) return;
    const buf = Buffer.from(this.lines.join('\n') + '\n', 'utf8');
    this.lines = [];
    this.chars = 0;
    await this.pending; // at most one write in flight: bounded memory, overlapped I/O
    this.pending = writeAll(this.fd, buf);
  }

  async close(): Promise<void> {
    await this.flush();
    await this.pending;
    closeSync(this.fd);
  }
}

/** What each peer prints as one JSON line on stdout when run as a program. */
export interface PeerSummary {
  peer: string;
  links: number;
  unique: number;
  elapsedMs: number;
  /** process.resourceUsage().maxRSS of the peer process itself. */
  peakRssBytes: number;
  /** True when the run stopped at --max-links before the end of the input. */
  truncated: boolean;
}
