// Format detection on the first bytes of a (decompressed) input: WARC when
// it starts with `WARC/`, TSV when the first data line has a tab, else lines;
// plus gzip recognition by name or magic bytes. Pure functions over a prefix
// buffer; does not read files or decompress (src/input/open.ts does).

export type ConcreteFormat = 'lines' | 'tsv' | 'warc';

/** How many decompressed bytes detection looks at before deciding with what it has. */
export const PEEK_BYTES = 64 * 1024;

export interface Detection {
  format: ConcreteFormat;
  /**
   * Offset just after the first data line (first line that is not blank, not
   * `#`, not over maxLineBytes), or null if it was not seen in the prefix.
   * A resumed TSV input re-checks the header only if it resumes before this.
   */
  firstDataLineEnd: number | null;
}

const LF = 10, CR = 13, TAB = 9, SPACE = 32, HASH = 35;

export function isGzipName(path: string): boolean {
  return path.toLowerCase().endsWith('.gz');
}

export function hasGzipMagic(prefix: Buffer): boolean {
  return prefix.length >= 2 && prefix[0] === 0x1f && prefix[1] === 0x8b;
}

/**
 * Detects the format of a decompressed prefix. `complete` says the prefix is
 * the whole input. Returns null when more bytes are needed to decide (the
 * first data line has not ended and the prefix is shorter than PEEK_BYTES).
 * With `forced`, only firstDataLineEnd is computed.
 */
export function detectFormat(
  prefix: Buffer,
  complete: boolean,
  maxLineBytes: number,
  forced?: ConcreteFormat,
): Detection | null {
  const enough = complete || prefix.length >= PEEK_BYTES;
  let pos = 0;
  if (prefix.length >= 3 && prefix[0] === 0xef && prefix[1] === 0xbb && prefix[2] === 0xbf) pos = 3;
  else if (prefix.length < 3 && !enough && isPrefixOf(prefix, Buffer.from([0xef, 0xbb, 0xbf]))) return null;
  let format: ConcreteFormat | undefined = forced;
  if (format === undefined) {
    const warc = Buffer.from('WARC/');
    const head = prefix.subarray(pos, pos + warc.length);
    if (head.length === warc.length && head.equals(warc)) format = 'warc';
    else if (head.length < warc.length && !enough && isPrefixOf(head, warc)) return null;
  }
  if (format === 'warc') return { format, firstDataLineEnd: null };
  while (pos < prefix.length) {
    let nl = prefix.indexOf(LF, pos);
    const ended = nl >= 0;
    if (!ended) {
      if (!enough) return null;
      nl = prefix.length;
    }
    const s = pos;
    let e = nl;
    pos = nl + 1;
    if (e > s && prefix[e - 1] === CR) e--;
    if (e - s > maxLineBytes) continue; // too-long: rejected, never a header
    let a = s;
    while (a < e && (prefix[a] === SPACE || prefix[a] === TAB)) a++;
    if (a === e || prefix[a] === HASH) continue;
    const hasTab = prefix.subarray(s, e).indexOf(TAB) >= 0;
    return { format: format ?? (hasTab ? 'tsv' : 'lines'), firstDataLineEnd: ended ? pos : null };
  }
  if (!enough) return null;
  return { format: format ?? 'lines', firstDataLineEnd: null };
}

function isPrefixOf(a: Buffer, b: Buffer): boolean {
  return a.length <= b.length && b.subarray(0, a.length).equals(a);
}
