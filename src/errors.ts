// The one error class drum throws, its closed set of stable codes, and the
// table mapping each code to a CLI exit status. Callers (and tests) switch on
// `code`, never on `message`. Does not format errors for humans (src/cli does).

/** Every code drum can throw. Closed set: add here, in EXIT_STATUS, and in docs/errors.md together. */
export const ERROR_CODES = [
  'DRUM_BAD_OPTION', // an option or argument is invalid
  'DRUM_LOCKED', // another process holds the state directory's lock
  'DRUM_CORRUPT_FILE', // a state file failed its magic, checksum, length or ordering check
  'DRUM_IO', // the OS refused a read or write (ENOSPC, EIO, EACCES, ...)
  'DRUM_POLICY_MISMATCH', // store was built with another canonicalization policy or fingerprint parameters
  'DRUM_INPUT', // an input could not be opened or decoded as a whole (bad gzip, missing file)
  'DRUM_NOT_FOUND', // no store at the given state directory (read-only commands)
  'DRUM_CLOSED', // the store was used after close()
  'DRUM_CLOBBER', // refusing to write into an unrelated non-empty directory
  'DRUM_NEEDS_UPGRADE', // the store lacks what the operation needs (values per URL): run drum upgrade
  'DRUM_INTERNAL', // an invariant broke: a bug in drum
] as const;

export type DrumErrorCode = (typeof ERROR_CODES)[number];

/** CLI exit status per code. 0 = success, 1 = generic failure, 2 = usage (commander). */
export const EXIT_STATUS: Readonly<Record<DrumErrorCode, number>> = {
  DRUM_BAD_OPTION: 2,
  DRUM_LOCKED: 10,
  DRUM_CORRUPT_FILE: 11,
  DRUM_IO: 12,
  DRUM_POLICY_MISMATCH: 13,
  DRUM_INPUT: 14,
  DRUM_NOT_FOUND: 15,
  DRUM_CLOSED: 16,
  DRUM_CLOBBER: 17,
  DRUM_NEEDS_UPGRADE: 18,
  DRUM_INTERNAL: 70,
};

/**
 * CLI exit status after a stop by signal: 128 + the signal number, the shell
 * convention (SIGINT 2 -> 130, SIGTERM 15 -> 143). A closed stdout (EPIPE,
 * e.g. `| head`) ends the command with 0: the reader had what it wanted.
 */
export const SIGNAL_EXIT_STATUS = { SIGINT: 130, SIGTERM: 143, EPIPE: 0 } as const;

export class DrumError extends Error {
  readonly code: DrumErrorCode;
  /** The file the error is about, when there is one (verify names it). */
  readonly file: string | undefined;

  constructor(code: DrumErrorCode, message: string, opts: { cause?: unknown; file?: string } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'DrumError';
    this.code = code;
    this.file = opts.file;
  }
}

export function isDrumError(e: unknown, code?: DrumErrorCode): e is DrumError {
  return e instanceof DrumError && (code === undefined || e.code === code);
}

/** Wraps an OS error from fs as DRUM_IO (keeps an existing DrumError as is). */
export function ioError(what: string, cause: unknown, file?: string): DrumError {
  if (cause instanceof DrumError) return cause;
  const sys = (cause as NodeJS.ErrnoException | undefined)?.code;
  return new DrumError('DRUM_IO', `${what}${file ? ` ${file}` : ''}: ${sys ?? String(cause)}`, { cause, file });
}

/** The OS error code (`ENOENT`, …) behind a DRUM_IO that ioError wrapped, or of a raw fs error; undefined otherwise. */
export function osCode(e: unknown): string | undefined {
  const cause = e instanceof DrumError ? e.cause : e;
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** The messages of an error and of its cause chain, outermost first, joined by ': ' (a library's OS error often sits in a cause). */
export function causeMessages(e: unknown, depth = 5): string {
  const out: string[] = [];
  let cur: unknown = e;
  for (let d = 0; d < depth && cur && typeof cur === 'object'; d++) {
    const m = (cur as { message?: unknown }).message;
    if (typeof m === 'string' && m !== '') out.push(m);
    cur = (cur as { cause?: unknown }).cause;
  }
  return out.join(': ');
}

export function exitStatusFor(e: unknown): number {
  return e instanceof DrumError ? EXIT_STATUS[e.code] : 1;
}
