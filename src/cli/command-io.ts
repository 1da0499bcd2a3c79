// What every `drum` command action shares with main.ts: the I/O it is given
// (CliIo, so tests pass fakes), output lines written in large pieces, a JSON
// value on stdout, and how an outcome becomes warnings and an exit status
// (all links rejected, inputs that could not be read to their end, a verify
// result's problems). Does not run commands or print reports (commands.ts
// and the other command files do).
// REQUIRES: stdout/stderr writes are synchronous or buffered by Node.

import { EXIT_STATUS, type DrumErrorCode } from '../errors.js';
import type { StopReason } from './run-notes.js';
import { fmtInt } from './format.js';

export interface OutStream {
  write(s: string | Uint8Array): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Everything a command touches outside its arguments; tests pass fakes. */
export interface CliIo {
  stdout: OutStream;
  stderr: OutStream;
  /** Where `-` reads from for commands that read lines themselves (drum url); the process's stdin when absent (main.ts), where a directory is refused. */
  stdin?: NodeJS.ReadableStream;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /**
   * Registers what to do when the process is stopped (SIGINT, SIGTERM, or
   * stdout closed under it) before it exits with the usual status; returns
   * the unregister function. main.ts wires it to the process; absent in tests.
   */
  onStop?: (fn: (reason: StopReason) => void) => () => void;
}

/** Collects output lines and writes them in ~64 KiB pieces (one write per line is slow). */
export class LineSink {
  private buf: string[] = [];
  private size = 0;
  constructor(private readonly out: OutStream) {}
  push(line: string): void {
    this.buf.push(line);
    this.size += line.length + 1;
    if (this.size >= 65536) this.flush();
  }
  flush(): void {
    if (this.buf.length === 0) return;
    this.out.write(this.buf.join('\n') + '\n');
    this.buf = [];
    this.size = 0;
  }
}

export function json(io: CliIo, value: unknown): void {
  io.stdout.write(JSON.stringify(value) + '\n');
}

/**
 * Every link line rejected: almost always the wrong format (or a file that is not a link list),
 * so it is said on stderr even with --quiet; the exit status stays 0 (rejects are counted, not errors).
 */
export function warnAllRejected(linksRead: number, rejected: number, byReason: Record<string, number>, io: CliIo): void {
  if (linksRead === 0 || rejected < linksRead) return;
  const reasons = Object.entries(byReason).sort((a, b) => b[1] - a[1]).map(([r, n]) => `${fmtInt(n)} ${r}`).join(', ');
  io.stderr.write(`drum: warning: all ${fmtInt(linksRead)} link lines were rejected (${reasons}); nothing was ingested. Is --format right for this input? See rejects.tsv\n`);
}

/** An input the engine could not read to its end (e.g. truncated gzip); the run kept every complete line before `line`. */
export interface InputError {
  path: string;
  code: string;
  message: string;
  line?: number;
}

/**
 * Prints each input error (even with --quiet: data was lost) and returns the exit status of
 * the first one, so scripts notice; 0 when there are none. `recorded`: the command records
 * its inputs (ingest, forget, content); a check answers the lines before the damage and records nothing.
 */
export function inputErrorStatus(errors: readonly InputError[] | undefined, io: CliIo, recorded = true): number {
  if (!errors || errors.length === 0) return 0;
  const fate = recorded ? 'and it is recorded as damaged, not ingested' : 'and nothing is recorded';
  for (const e of errors) {
    const file = e.message.includes(e.path) ? '' : ` (file: ${e.path})`;
    const kept = e.line === undefined ? '' : e.line === 0 ? `; nothing was read from it, ${fate}`
      : `; its first ${fmtInt(e.line)} lines (or WARC records) were read whole and ${recorded ? 'kept' : 'answered'}, ${fate}`;
    io.stderr.write(`drum: ${e.code}: ${e.message}${file}${kept}\n`);
  }
  return verifyStatus(errors, false);
}

/** Exit status of a verify result: 0 when sound, else the status of the first problem's code. */
export function verifyStatus(problems: readonly { code: string }[], ok: boolean): number {
  if (ok) return 0;
  const code = problems[0]?.code;
  return code !== undefined && code in EXIT_STATUS ? EXIT_STATUS[code as DrumErrorCode] : 1;
}
