// Format detection on the first bytes of a (decompressed) input: WARC when
// it starts with `WARC/`; TSV when the first data line has a tab followed by
// a second field and the next data lines (up to DETECT_LINES in all) do not
// mostly lack tabs; else lines (a stray or trailing tab does not make a URL
// list TSV);
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

/** Data lines detection looks at, at most (fewer when the input or PEEK_BYTES ends first). */
export const DETECT_LINES = 8;

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
  let firstEnd: number | null = null;
  let first: boolean | null = null; // the first data line has a tab and a field after it
  let others = 0;
  let othersTabbed = 0;
  const decide = (): Detection => {
    const tsv = first === true && !(others >= 2 && othersTabbed * 2 < others);
    return { format: format ?? (tsv ? 'tsv' : 'lines'), firstDataLineEnd: firstEnd };
  };
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
    if (first === null) {
      firstEnd = ended ? pos : null;
      first = hasField(prefix, s, e);
      if (format !== undefined || !first) return decide();
    } else {
      others++;
      const t = prefix.indexOf(TAB, s);
      if (t >= 0 && t < e) othersTabbed++;
      if (others === DETECT_LINES - 1) return decide();
    }
  }
  if (!enough) return null;
  return decide();
}

/** True when line w[s, e) has a tab followed by something other than spaces and tabs (a second field). */
function hasField(w: Buffer, s: number, e: number): boolean {
  let t = w.indexOf(TAB, s);
  while (t >= 0 && t < e) {
    let k = t + 1;
    while (k < e && (w[k] === SPACE || w[k] === TAB)) k++;
    if (k < e) return true;
    t = w.indexOf(TAB, k);
  }
  return false;
}

function isPrefixOf(a: Buffer, b: Buffer): boolean {
  return a.length <= b.length && b.subarray(0, a.length).equals(a);
}
