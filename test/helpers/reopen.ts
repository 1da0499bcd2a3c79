// Test helper for the model-based property tests that run steps against one
// store and, when the drawn config says so, close and reopen it before each
// step (so tiers, memos and caches come back from disk): opens a Drum on
// `dir`, runs each step on the Drum open at the time, then `end`, and
// closes the Drum open at the end even when a step or `end` throws.
// Test-only. Makes no assertion and keeps no model: each test keeps its own.
// REQUIRES: `dir` is a state directory the test owns (tempDir).

import { Drum } from '../../src/engine/drum.js';
import type { DrumOptions } from '../../src/options.js';

/** Closes the open Drum and opens the store again with the same options; returns the new Drum. */
export type Reopen = () => Promise<Drum>;

/**
 * Runs `step(d, item, k)` for the k-th of `steps` in order, on a Drum opened
 * with `opts` and, when `reopen`, reopened before each step; then
 * `end(d, reopen)` on the Drum open after the last step.
 */
export async function withReopens<T>(
  dir: string,
  opts: DrumOptions,
  reopen: boolean,
  steps: readonly T[],
  step: (d: Drum, item: T, k: number) => Promise<void>,
  end: (d: Drum, reopen: Reopen) => Promise<void> = async () => undefined,
): Promise<void> {
  let d = await Drum.open(dir, opts);
  const again: Reopen = async () => {
    await d.close();
    d = await Drum.open(dir, opts);
    return d;
  };
  try {
    for (const [k, item] of steps.entries()) {
      if (reopen) await again();
      await step(d, item, k);
    }
    await end(d, again);
  } finally {
    await d.close();
  }
}
