// Maps errors from the `level` package (abstract-level / classic-level codes)
// onto DrumError codes: a held LevelDB lock is DRUM_LOCKED, reported
// corruption is DRUM_CORRUPT_FILE, anything else from level or the OS is
// DRUM_IO. Does not retry or log. An existing DrumError passes through as is.

import { causeMessages, DrumError } from '../errors.js';

interface CodedError {
  code?: unknown;
  cause?: unknown;
}

/** All level/OS codes on the error and its cause chain (outermost first). */
function codesOf(e: unknown): string[] {
  const out: string[] = [];
  let cur: unknown = e;
  for (let depth = 0; depth < 5 && cur && typeof cur === 'object'; depth++) {
    const c = (cur as CodedError).code;
    if (typeof c === 'string') out.push(c);
    cur = (cur as CodedError).cause;
  }
  return out;
}

/** Turns anything level throws into a DrumError about `file` (the catalog dir). */
export function levelError(what: string, e: unknown, file: string): DrumError {
  if (e instanceof DrumError) return e;
  const codes = codesOf(e);
  const text = causeMessages(e);
  if (codes.includes('LEVEL_LOCKED') || /\block\b/i.test(text) && /resource temporarily unavailable|already held/i.test(text)) {
    return new DrumError('DRUM_LOCKED', `${what}: the run catalog is in use by another drum process`, { cause: e, file });
  }
  // A file the catalog's MANIFEST or CURRENT names is gone: the catalog is damaged, not the OS.
  const missingInside = /No such file or directory/.test(text) && text.includes(file);
  if (codes.includes('LEVEL_CORRUPTION') || /corruption/i.test(text) || missingInside) {
    return new DrumError('DRUM_CORRUPT_FILE', `${what}: the run catalog is corrupt (${text})`, { cause: e, file });
  }
  return new DrumError('DRUM_IO', `${what}: ${text || String(e)}`, { cause: e, file });
}
