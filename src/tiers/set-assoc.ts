// Geometry shared by the set-associative tiers (hot cache, recent table):
// how many sets of how many ways a requested size becomes, and the bytes
// that takes (keys [hi, lo] per way plus one metadata word per set).
// Arithmetic only; the tiers keep their own replacement policies.

import { DrumError } from '../errors.js';

/** Ways per set: one set's keys are 8 × 8 bytes, one 64-byte cache line. */
export const SET_WAYS = 8;

export interface SetGeometry {
  sets: number;
  ways: number;
}

/** Sets × ways for `entries` (0 disables); DRUM_BAD_OPTION outside [0, 2^28]. `what` names the tier in the error. */
export function setGeometry(entries: number, what: string): SetGeometry {
  if (!Number.isInteger(entries) || entries < 0 || entries > 2 ** 28) {
    throw new DrumError('DRUM_BAD_OPTION', `${what} entries must be an integer in [0, 2^28], got ${entries}`);
  }
  if (entries === 0) return { sets: 0, ways: 0 };
  const ways = Math.min(SET_WAYS, entries);
  return { sets: Math.floor(entries / ways), ways };
}

/** Typed-array bytes of a set-associative table of `entries`. */
export function setAssocBytes(entries: number, what: string): number {
  const { sets, ways } = setGeometry(entries, what);
  return sets * ways * 8 + sets * 4;
}
