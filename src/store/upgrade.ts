// Gives a keys-only store values: writes a values file beside every
// bucket's key file — one value per key, made by the caller's `init` from
// the key's index in key order (bucket 0's keys ascending, then bucket 1's,
// ...) — and commits a manifest naming them with params.valueBytes set.
// The key files are kept as they are (same names, same bytes). Crash-safe as
// any commit: new files under new names, then the manifest; an interrupted
// upgrade leaves the keys-only store, whose next writer removes the files.
// The values files' directory is fsynced before the manifest names them (the
// manifest's own fsync covers only the state directory).
// Does not know what the values mean (the URL client's init does).
// REQUIRES: a writer's Store (lock held); no round in progress.

import { dirname } from 'node:path';
import type { DrumFs } from '../io/fs.js';
import type { ManifestBody } from './manifest.js';
import { emptyUrlLog } from './url-log/url-log-format.js';
import type { Store } from './store.js';
import { ValueWriter } from './values/value-io.js';

/** Upgrades `store` to values of `valueBytes`; returns the keys given values. No-op (0) when it already has values. */
export function addValues(store: Store, dfs: DrumFs, valueBytes: number, init: (index: number, v: Uint32Array, at: number) => void, fsync: boolean): number {
  if (store.valueBytes > 0) return 0;
  const body = store.body;
  const words = valueBytes / 4;
  const tmp = new Uint32Array(words * 1024);
  const buckets = body.buckets.slice();
  let index = 0;
  const dirs = new Set<string>();
  for (let b = 0; b < buckets.length; b++) {
    const e = buckets[b];
    if (!e) continue;
    const out = store.nextValuesFile(b);
    const w = new ValueWriter(dfs, out.path, b, valueBytes, fsync);
    try {
      for (let left = e.keys; left > 0;) {
        const n = Math.min(left, 1024);
        for (let k = 0; k < n; k++) init(index++, tmp, k * words);
        w.pushRange(tmp, 0, n);
        left -= n;
      }
      const f = w.finish();
      dirs.add(dirname(out.path));
      buckets[b] = { ...e, values: { file: out.name, bytes: f.bytes, crc: f.crc } };
    } catch (err) {
      w.abort();
      throw err;
    }
  }
  // The renames must be durable before the manifest names the files: else a power loss after the commit loses them.
  if (fsync) for (const d of dirs) dfs.fsyncDir(d);
  // The docIDs are handed out again, in key order: a URL log written before (in arrival order) starts over at
  // the next docID, and the next writer deletes its files.
  const next: ManifestBody = { ...body, params: { ...body.params, valueBytes }, buckets, docIDs: index, urlLog: emptyUrlLog(index) };
  store.commit(next);
  return index;
}
