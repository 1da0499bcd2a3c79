// Test helper: opens a drum store, runs a function on it and closes it, even
// when the function throws. Test-only; makes no assertion and keeps no model.
// Tests that reopen the store between steps use reopen.ts instead.
// REQUIRES: `state` is a state directory the test owns (tempDir), and `fn`
// does not close the Drum itself.

import { Drum } from '../../src/engine/drum.js';
import type { DrumOptions } from '../../src/options.js';

/** Opens the store at `state` with `opts`, runs `fn` on it and closes it; returns what `fn` returned. */
export async function withDrum<T>(state: string, opts: DrumOptions, fn: (d: Drum) => Promise<T>): Promise<T> {
  const d = await Drum.open(state, opts);
  try {
    return await fn(d);
  } finally {
    await d.close();
  }
}
