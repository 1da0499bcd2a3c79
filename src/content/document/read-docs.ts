// Reads one WARC input (a path or `-`, plain or gzip, through src/input's
// openInput) record by record and yields its documents (payload-doc.ts) in
// record order, counting records, skips by reason, malformed records and how
// declared payload digests compared with drum's. A record that is not a
// document is counted, never fatal. Does not fingerprint (features.ts).
// REQUIRES: the input is WARC (the caller detected it); one reader per input.

import { type ByteStream, openInput } from '../../input/open.js';
import { WarcRecordReader } from '../../input/warc/records.js';
import type { WarcEvent } from '../../input/warc/record-events.js';
import { WARC_LIMITS } from '../../input/warc/index.js';
import { type ContentDoc, type SkipReason, docOfRecord, wantsDocRecord } from './payload-doc.js';

/** Positional read size of a plain WARC file. */
const PLAIN_READ = 1 << 20;

export interface DocCounts {
  records: number;
  docs: number;
  malformed: number;
  skipped: Record<SkipReason, number>;
  digestMatch: number;
  /** Declared WARC-Payload-Digest disagreed with the payload's SHA-1. */
  digestMismatch: number;
  digestAbsent: number;
  /** Declared with another algorithm than sha1. */
  digestUnchecked: number;
  /** Raw input bytes read. */
  bytes: number;
}

export function newDocCounts(): DocCounts {
  return {
    records: 0, docs: 0, malformed: 0, bytes: 0,
    skipped: { 'not-response': 0, 'not-text': 0, 'not-2xx': 0, 'too-long': 0, undecodable: 0 },
    digestMatch: 0, digestMismatch: 0, digestAbsent: 0, digestUnchecked: 0,
  };
}

/** The decompressed bytes of one input, front to back. */
async function* inputBytes(path: string, stdin: ByteStream | undefined, counts: DocCounts): AsyncGenerator<Buffer> {
  const input = await openInput(path, { stdin, onBytes: (n) => (counts.bytes += n) });
  try {
    if (input.fh !== null) {
      let pos = 0;
      for (;;) {
        const buf = Buffer.allocUnsafe(PLAIN_READ);
        const { bytesRead } = await input.fh.read(buf, 0, PLAIN_READ, pos);
        if (bytesRead === 0) break;
        pos += bytesRead;
        counts.bytes += bytesRead;
        yield buf.subarray(0, bytesRead);
      }
    } else {
      const it = input.bytes!;
      for (;;) {
        const r = await it.next();
        if (r.done === true) break;
        yield r.value;
      }
    }
  } finally {
    await input.close();
  }
}

/** The documents of one WARC input in record order. */
export async function* readDocs(path: string, counts: DocCounts, stdin?: ByteStream): AsyncGenerator<ContentDoc> {
  const limits = WARC_LIMITS;
  const reader = new WarcRecordReader({ want: wantsDocRecord, maxRecordBytes: limits.maxRecordBytes, headBytes: limits.headBytes });
  const events: WarcEvent[] = [];
  function* handle(): Generator<ContentDoc> {
    for (let k = 0; k < events.length; k++) {
      const ev = events[k]!;
      events[k] = undefined as unknown as WarcEvent;
      counts.records++;
      if (ev.kind === 'malformed') {
        counts.malformed++;
        continue;
      }
      const d = docOfRecord(ev, limits.maxRecordBytes);
      if (typeof d === 'string') {
        counts.skipped[d]++;
        continue;
      }
      counts.docs++;
      if (d.declared === 'match') counts.digestMatch++;
      else if (d.declared === 'mismatch') counts.digestMismatch++;
      else if (d.declared === 'absent') counts.digestAbsent++;
      else counts.digestUnchecked++;
      yield d;
    }
    events.length = 0;
  }
  for await (const piece of inputBytes(path, stdin, counts)) {
    reader.push(piece, events);
    yield* handle();
  }
  reader.end(events);
  yield* handle();
}
