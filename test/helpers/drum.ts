// Test helpers: opens a drum store, runs a function on it and closes it, even
// when the function throws; and checkUpdateAll and ingestAll, the new URLs
// of one batch given to checkUpdate or ingested from a file. Test-only;
// makes no assertion and keeps no model.
// Tests that reopen the store between steps use reopen.ts instead.
// REQUIRES: `state` is a state directory the test owns (tempDir), and `fn`
// does not close the Drum itself.

import * as fs from 'node:fs';
import { join } from 'node:path';
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

/** The URLs of `urls` new to the store, in first-arrival order, through one checkUpdate (which stores them). */
export async function checkUpdateAll(d: Drum, urls: string[]): Promise<string[]> {
  const out: string[] = [];
  for await (const u of d.checkUpdate([urls])) out.push(u);
  return out;
}

/** The URLs of `urls` new to the store, in first-arrival order, through one ingest of a file `name` written in `dir` (output under dir/out-name). */
export async function ingestAll(d: Drum, dir: string, name: string, urls: string[]): Promise<string[]> {
  const input = join(dir, `${name}.txt`);
  fs.writeFileSync(input, urls.map((u) => `${u}\n`).join(''));
  const r = await d.ingest({ inputs: [input], outDir: join(dir, `out-${name}`), force: true });
  return r.outputFiles.flatMap((f) => fs.readFileSync(join(r.outDir, f), 'utf8').split('\n').filter((l) => l !== ''));
}
