// Test helper: opens a Drum on a state directory, runs one function on it
// and closes it, also when the function throws (so a failed assertion never
// leaves the writer lock or worker threads behind for the next test).
// Test-only; makes no assertion.
// REQUIRES: `state` is a directory the test owns (tempDir).

import { Drum } from '../../src/engine/drum.js';
import type { DrumOptions } from '../../src/options.js';

/** Opens the store at `state` with `opts`, runs `fn` on it and closes it. */
export async function withDrum<T>(state: string, opts: DrumOptions, fn: (d: Drum) => Promise<T>): Promise<T> {
  const d = await Drum.open(state, opts);
  try {
    return await fn(d);
  } finally {
    await d.close();
  }
}
