// Test helper: the whole "store" of a DRUM core client in a directory — a
// key file per bucket and, given a value width, a values file beside it —
// replaced by each writing round, as a client's manifest would name them.
// Test-only; holds no state on disk of its own.

import * as fs from 'node:fs';
import { join } from 'node:path';
import type { ValueFiles, WrittenBucket } from '../../../src/engine/core/drum-core.js';
import type { BucketFiles } from '../../../src/engine/core/sort-stage.js';
import type { DrumFs } from '../../../src/io/fs.js';
import { KeyReader } from '../../../src/store/keys/key-reader.js';
import { ValueReader } from '../../../src/store/values/value-io.js';

export interface DirFile {
  path: string;
  keys: number;
  bytes: number;
  values: { path: string; bytes: number } | null;
}

/** `valueBytes`: the values' width (0: keys only). */
export function dirStore(dfs: DrumFs, dir: string, valueBytes = 0) {
  const entries = new Map<number, DirFile>();
  let gen = 0;
  const files: BucketFiles = {
    openReader: (b, buffer) => {
      const f = entries.get(b);
      return f ? KeyReader.open(dfs, f.path, { bucket: b, keys: f.keys }, f.bytes, buffer) : null;
    },
    outputPath: (b) => join(dir, `b${b}-g${gen + 1}.keys`),
    keysIn: (b) => entries.get(b)?.keys ?? 0,
  };
  const valueFiles: ValueFiles = {
    openValues: (b) => {
      const f = entries.get(b);
      return f?.values ? ValueReader.open(dfs, f.values.path, { bucket: b, count: f.keys, valueBytes }, f.values.bytes) : null;
    },
    valuesOutputPath: (b) => join(dir, `b${b}-g${gen + 1}.vals`),
  };
  return {
    entries,
    files,
    valueFiles,
    /** Names the round's written files, removing the ones they replace. */
    commit(written: Map<number, Pick<WrittenBucket, 'path' | 'file' | 'values'>>): void {
      gen++;
      for (const [b, w] of written) {
        const old = entries.get(b);
        const values = w.values ? { path: w.values.path, bytes: w.values.file.bytes } : old?.values ?? null;
        entries.set(b, { path: w.path, keys: w.file.keys, bytes: w.file.bytes, values });
        if (old) {
          fs.rmSync(old.path);
          if (old.values && old.values !== values) fs.rmSync(old.values.path);
        }
      }
    },
  };
}
