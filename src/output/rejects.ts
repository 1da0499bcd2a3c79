// RejectsWriter: appends rejected lines to a run's rejects.tsv, one row per
// reject (`input<TAB>line<TAB>reason<TAB>excerpt`) under a header row, with
// the excerpt escaped so every row is one line of plain ASCII. Buffered;
// sync() makes rows durable and moves committedLength(); reopening for resume
// truncates the file back to a committed length. Does not count rejects (the
// stats stage does) and does not decide commit points (the engine does).
// Every file operation goes through DrumFs (counted, and seen by the fault
// seam like the unique files'). Preconditions: one writer per file; rows are
// added in the run's order.

import { DrumError, osCode } from '../errors.js';
import type { DrumFs } from '../io/fs.js';
import type { Reject } from '../input/types.js';

export const REJECTS_HEADER = 'input\tline\treason\texcerpt\n';
const FLUSH_AT = 64 * 1024;

/** Escape of each byte value: printable ASCII except `\` as itself, `\t \n \r \\`, everything else `\xHH`. */
const ESC: string[] = [];
for (let b = 0; b < 256; b++) {
  if (b === 0x09) ESC.push('\\t');
  else if (b === 0x0a) ESC.push('\\n');
  else if (b === 0x0d) ESC.push('\\r');
  else if (b === 0x5c) ESC.push('\\\\');
  else if (b >= 0x20 && b <= 0x7e) ESC.push(String.fromCharCode(b));
  else ESC.push('\\x' + b.toString(16).toUpperCase().padStart(2, '0'));
}

/** Escapes raw bytes into one line of printable ASCII (see docs/inputs.md). Reversible by unescapeExcerpt. */
export function escapeExcerpt(bytes: Uint8Array): string {
  let s = '';
  for (let i = 0; i < bytes.length; i++) s += ESC[bytes[i]!]!;
  return s;
}

/** Inverse of escapeExcerpt. Throws DRUM_CORRUPT_FILE on a malformed escape. */
export function unescapeExcerpt(s: string): Buffer {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c !== 0x5c) {
      out.push(c);
      continue;
    }
    const n = s[++i];
    if (n === 't') out.push(0x09);
    else if (n === 'n') out.push(0x0a);
    else if (n === 'r') out.push(0x0d);
    else if (n === '\\') out.push(0x5c);
    else if (n === 'x' && /^[0-9A-F]{2}$/.test(s.slice(i + 1, i + 3))) {
      out.push(parseInt(s.slice(i + 1, i + 3), 16));
      i += 2;
    } else throw new DrumError('DRUM_CORRUPT_FILE', `bad escape at ${i - 1} in rejects excerpt`);
  }
  return Buffer.from(out);
}

/** One rejects.tsv row, newline included. */
export function formatReject(r: Reject): string {
  return `${r.input}\t${r.line}\t${r.reason}\t${escapeExcerpt(r.excerpt)}\n`;
}

export interface RejectsOpenOptions {
  /**
   * Resume: the committed length recorded at the last commit. The existing
   * file is truncated to it (DRUM_CORRUPT_FILE if shorter or missing). 0 or
   * undefined starts a fresh file with the header row.
   */
  resumeLength?: number;
  /** fsync in sync(). Default true. */
  fsync?: boolean;
}

export class RejectsWriter {
  private parts: string[] = [];
  private buffered = 0;
  private written: number;
  private committed: number;
  private fd: number | null;

  private constructor(
    private readonly dfs: DrumFs,
    readonly path: string,
    fd: number,
    start: number,
    private readonly doFsync: boolean,
  ) {
    this.fd = fd;
    this.written = start;
    this.committed = start;
  }

  /** Opens (creates or truncates) `path`. Errors: DRUM_IO, DRUM_CORRUPT_FILE on a missing or short file at resume. */
  static open(dfs: DrumFs, path: string, opts: RejectsOpenOptions = {}): RejectsWriter {
    const resume = opts.resumeLength ?? 0;
    let fd: number;
    try {
      fd = dfs.open(path, resume > 0 ? 'r+' : 'w');
    } catch (e) {
      if (resume > 0 && osCode(e) === 'ENOENT') {
        throw new DrumError('DRUM_CORRUPT_FILE', `rejects file missing at resume: ${path}`, { file: path, cause: e });
      }
      throw e;
    }
    try {
      if (resume > 0) {
        const size = dfs.sizeOf(fd);
        if (size < resume) {
          throw new DrumError('DRUM_CORRUPT_FILE', `rejects file is ${size} bytes, shorter than its committed ${resume}`, { file: path });
        }
        dfs.truncate(fd, resume);
      }
    } catch (e) {
      dfs.close(fd);
      throw e;
    }
    const w = new RejectsWriter(dfs, path, fd, resume, opts.fsync ?? true);
    if (resume === 0) w.append(REJECTS_HEADER);
    return w;
  }

  /** Appends one row (buffered; writes through when the buffer passes 64 KiB). */
  add(r: Reject): void {
    this.append(formatReject(r));
  }

  addAll(rs: readonly Reject[]): void {
    for (const r of rs) this.append(formatReject(r));
  }

  /** File length once everything added is written. */
  length(): number {
    return this.written + this.buffered;
  }

  /** Length made durable by the last sync() (what the engine records at a commit). */
  committedLength(): number {
    return this.committed;
  }

  /** Writes buffered rows to the file (not necessarily durable). */
  async flush(): Promise<void> {
    this.flushSync();
  }

  /** Flushes and fsyncs; committedLength() becomes length(). */
  async sync(): Promise<void> {
    this.flushSync();
    if (this.doFsync) this.dfs.fsync(this.open_());
    this.committed = this.written;
  }

  /** Flushes and closes; the descriptor is released even when the flush fails (a full disk), and the error thrown. */
  async close(): Promise<void> {
    if (this.fd === null) return;
    const fd = this.fd;
    try {
      this.flushSync();
    } finally {
      this.fd = null;
      this.dfs.close(fd);
    }
  }

  private append(s: string): void {
    this.open_();
    this.parts.push(s);
    this.buffered += s.length; // ASCII: one char per byte
    if (this.buffered >= FLUSH_AT) this.flushSync();
  }

  private flushSync(): void {
    if (this.buffered === 0) return;
    const fd = this.open_();
    const buf = Buffer.from(this.parts.join(''), 'latin1');
    this.dfs.write(fd, buf, 0, buf.length, this.written);
    this.written += buf.length;
    this.parts = [];
    this.buffered = 0;
  }

  private open_(): number {
    if (this.fd === null) throw new DrumError('DRUM_CLOSED', `rejects writer closed: ${this.path}`);
    return this.fd;
  }
}
