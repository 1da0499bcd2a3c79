// One-time conversion of a `drum-content/1` content store (its exact and
// band tables each one sorted `*.tbl` file) to `drum-content/2` (both on the
// DRUM core: bucket key files and docID values files, first-doc-map.ts).
// A format 1 table is sorted by key, and a key's bucket is its top bits, so
// one sequential pass splits it into bucket files in bucket order; the
// band table's later documents of a key are dropped (the band map keeps
// each key's earliest docID, its first record). The document log, the
// signatures and the SimHash tables are kept as they are. The new files are
// written as the next generation (tmp, fsync, rename), the format 2
// manifest commits them (tmp, fsync, rename), and only then are the format
// 1 tables deleted: a crash leaves the old store (the new files are unnamed
// and go at the next open) or the new one. The map directories the
// conversion makes are durable before anything is written in them.
// Does not take the lock or remove a crashed conversion's files
// (content-store.ts does both before calling it).
// REQUIRES: the writer lock; a sound format 1 store (a damaged table stops
// the conversion with DRUM_CORRUPT_FILE and leaves the store as it was).

import { join } from 'node:path';
import type { DrumFs } from '../io/fs.js';
import { KeyWriter } from '../store/keys/key-writer.js';
import type { BucketEntry } from '../store/manifest.js';
import { ValueWriter } from '../store/values/value-io.js';
import {
  BAND_BUCKETS, BAND_KIND, EXACT_BUCKETS, EXACT_KIND, SIM_TABLES, type ContentManifest, type ContentManifestV1, type MapFiles, nearMethodOf, tablesOf,
  writeContentManifest,
} from './content-manifest.js';
import { DOC_VALUE_BYTES, mapFileName } from './first-doc-map.js';
import { TableReader } from './near/table-file.js';

/** Converts the format 1 store in `dir` (manifest `m`) and commits it; returns the format 2 manifest. */
export function upgradeContentStore(dfs: DrumFs, dir: string, m: ContentManifestV1, fsync: boolean): ContentManifest {
  const gen = m.generation + 1;
  const near = nearMethodOf(m);
  dfs.mkdirp(join(dir, 'exact'), fsync);
  const exact = convertTable(dfs, dir, m.exact, EXACT_KIND, 'exact', EXACT_BUCKETS, gen, fsync);
  let bands: MapFiles | undefined;
  if (near === 'minhash') {
    dfs.mkdirp(join(dir, 'bands'), fsync);
    bands = convertTable(dfs, dir, m.bands ?? null, BAND_KIND, 'bands', BAND_BUCKETS, gen, fsync);
  }
  if (fsync) {
    dfs.fsyncDir(join(dir, 'exact'));
    if (bands !== undefined) dfs.fsyncDir(join(dir, 'bands'));
  }
  const sim = Array.from({ length: SIM_TABLES }, (_, t) => m.sim[t] ?? null);
  const next: ContentManifest = {
    format: 'drum-content/2', near, generation: gen, docs: m.docs, urlBytes: m.urlBytes, runs: m.runs, threshold: m.threshold, exact, sim,
    ...(bands !== undefined ? { bands, sigCrc: m.sigCrc ?? 0 } : {}),
  };
  writeContentManifest(dfs, dir, next, fsync);
  for (const [kind, f] of tablesOf(m)) if (kind === EXACT_KIND || kind === BAND_KIND) dfs.unlink(join(dir, f));
  return next;
}

/** Splits table `from` (null: empty) into map `name`'s bucket files of generation gen, the first record of each key only. */
function convertTable(dfs: DrumFs, dir: string, from: string | null, kind: number, name: string, buckets: number, gen: number, fsync: boolean): MapFiles {
  const files: (BucketEntry | null)[] = Array(buckets).fill(null);
  const shift = 32 - Math.log2(buckets);
  const r = new TableReader(dfs, from === null ? null : join(dir, from), kind);
  const value = new Uint32Array(1);
  let b = -1;
  let keys: KeyWriter | null = null;
  let vals: ValueWriter | null = null;
  const finish = (): void => {
    if (keys === null || vals === null) return;
    const k = keys.finish();
    const v = vals.finish();
    keys = vals = null;
    files[b] = { file: mapFileName(name, b, gen, 'keys'), keys: k.keys, bytes: k.bytes, crc: k.crc, values: { file: mapFileName(name, b, gen, 'vals'), bytes: v.bytes, crc: v.crc } };
  };
  try {
    let lastHi = -1;
    let lastLo = -1;
    for (; r.has; r.next()) {
      if (r.hi === lastHi && r.lo === lastLo) continue; // a band key's later documents
      lastHi = r.hi;
      lastLo = r.lo;
      const rb = shift === 32 ? 0 : r.hi >>> shift;
      if (rb !== b) {
        finish();
        b = rb;
        keys = new KeyWriter(dfs, join(dir, mapFileName(name, b, gen, 'keys')), b, null, fsync);
        vals = new ValueWriter(dfs, join(dir, mapFileName(name, b, gen, 'vals')), b, DOC_VALUE_BYTES, fsync);
      }
      keys!.push(r.hi, r.lo);
      value[0] = r.doc;
      vals!.push(value, 0);
    }
    finish();
  } catch (e) {
    (keys as KeyWriter | null)?.abort();
    (vals as ValueWriter | null)?.abort();
    throw e;
  } finally {
    r.close();
  }
  return { buckets, files };
}
