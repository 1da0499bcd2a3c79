// A WARC record's header block: where it ends (the first blank line) and
// the named fields drum reads from it (version line, Content-Length,
// WARC-Type, WARC-Target-URI, Content-Type, WARC-Payload-Digest); also the `Name: value` line
// syntax HTTP headers share (payload.ts). Pure functions over bytes and
// text; does not read input or track records (records.ts does).

const CR = 13;
const LF = 10;

/** The fields of a header block drum uses. */
export interface WarcHeader {
  /** Content-Length: the block's size in bytes. */
  length: number;
  /** WARC-Type, lowercased ('' when absent). */
  type: string;
  /** WARC-Target-URI without angle brackets ('' when absent). */
  targetUri: string;
  /** Content-Type as written ('' when absent). */
  contentType: string;
  /** WARC-Payload-Digest as written, e.g. `sha1:BASE32` ('' when absent). */
  payloadDigest: string;
}

/**
 * Calls visit(name, value) for each `Name: value` line of lines[from..]
 * (name trimmed and lowercased, value trimmed; lines without a name are
 * skipped). The field syntax WARC headers share with HTTP headers (payload.ts).
 */
export function forEachField(lines: readonly string[], from: number, visit: (name: string, value: string) => void): void {
  for (let i = from; i < lines.length; i++) {
    const line = lines[i]!;
    const c = line.indexOf(':');
    if (c <= 0) continue;
    visit(line.slice(0, c).trim().toLowerCase(), line.slice(c + 1).trim());
  }
}

/** Index just after the first "\n\n" or "\n\r\n" in buf[from, to), or -1. */
export function findBlankLine(buf: Buffer, from: number, to: number): number {
  let i = from;
  while (i < to) {
    const nl = buf.indexOf(LF, i);
    if (nl < 0 || nl >= to) return -1;
    if (nl + 1 >= to) return -1; // undecided until more bytes arrive
    const c = buf[nl + 1];
    if (c === LF) return nl + 2;
    if (c === CR) {
      if (nl + 2 >= to) return -1;
      if (buf[nl + 2] === LF) return nl + 3;
    }
    i = nl + 1;
  }
  return -1;
}

/**
 * Parses a header block (latin1 text up to its blank line): null unless the
 * first line is "WARC/<major>.<minor>" and Content-Length is a whole number.
 */
export function parseWarcHeader(text: string): WarcHeader | null {
  const lines = text.split(/\r?\n/);
  if (!/^WARC\/\d+\.\d+\s*$/.test(lines[0] ?? '')) return null;
  let length = -1;
  let type = '';
  let targetUri = '';
  let contentType = '';
  let payloadDigest = '';
  forEachField(lines, 1, (name, value) => {
    if (name === 'content-length') length = /^\d+$/.test(value) ? Number(value) : -2;
    else if (name === 'warc-type') type = value.toLowerCase();
    else if (name === 'warc-target-uri') targetUri = value.startsWith('<') && value.endsWith('>') ? value.slice(1, -1) : value;
    else if (name === 'content-type') contentType = value;
    else if (name === 'warc-payload-digest') payloadDigest = value;
  });
  if (length < 0 || !Number.isSafeInteger(length)) return null;
  return { length, type, targetUri, contentType, payloadDigest };
}
