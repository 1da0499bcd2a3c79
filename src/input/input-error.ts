// The DRUM_INPUT error every input failure maps to: what went wrong, the
// input's path, and the system code (or message) of the cause. Does not
// decide which failures are input failures (open.ts, read.ts and the other
// readers do).

import { DrumError } from '../errors.js';

/** A DRUM_INPUT error for `path`: "<what> <path>: <cause's code or message>". */
export function inputError(path: string, what: string, cause?: unknown): DrumError {
  const sys = (cause as NodeJS.ErrnoException | undefined)?.code;
  const detail = sys ?? (cause instanceof Error ? cause.message : cause === undefined ? '' : String(cause));
  return new DrumError('DRUM_INPUT', `${what} ${path}${detail ? `: ${detail}` : ''}`, { cause, file: path });
}
