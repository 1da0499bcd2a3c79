// A content store in the earlier layout (`drum-content/1`: the exact and
// band tables each one sorted `*.tbl` file, docs/file-format.md), made from
// a real run for the power-loss trials of its conversion
// (power-loss-content-v1.ts): `drum content` runs over an input into a
// current store, then its maps are written back as format 1 tables — each
// key with its earliest docID, which is what the conversion keeps of a
// format 1 table (a MinHash band key's later documents are dropped) — its
// map directories removed and a format 1 manifest committed. The document
// log, the signatures and the SimHash tables are the run's own.
// Does not write a band key's later documents (the conversion drops them).
// REQUIRES: a new state directory; the run's fsync is off (the result is
// copied into each trial's world, where it counts as durable).

import * as fs from 'node:fs';
import { join } from 'node:path';
import {
  BAND_KIND, CONTENT_DIR, EXACT_KIND, type ContentManifest, type ContentManifestV1, type MapFiles, type NearMethod, readContentManifest, tableName, writeContentManifest,
} from '../../../src/content/content-manifest.js';
import { runContent } from '../../../src/content/content-run.js';
import { DOC_VALUE_BYTES } from '../../../src/content/first-doc-map.js';
import { TableWriter } from '../../../src/content/near/table-file.js';
import { DrumFs } from '../../../src/io/fs.js';
import { KeyReader, READ_BUFFER_BYTES } from '../../../src/store/keys/key-reader.js';
import { ValueReader } from '../../../src/store/values/value-io.js';

/** Runs `input` into a new store at `state` (rounds of `roundDocs`), then rewrites it as a format 1 store; returns its manifest. */
export async function writeV1Store(state: string, out: string, input: string, near: NearMethod, roundDocs: number): Promise<ContentManifestV1> {
  await runContent({ stateDir: state, outDir: out, inputs: [input], near, threshold: 3, roundDocs, fsync: false });
  const dir = join(state, CONTENT_DIR);
  const m = readContentManifest(dir) as ContentManifest;
  const dfs = new DrumFs();
  const exact = writeTable(dfs, dir, m.exact, EXACT_KIND, m.generation);
  const bands = m.bands === undefined ? undefined : writeTable(dfs, dir, m.bands, BAND_KIND, m.generation);
  const v1: ContentManifestV1 = {
    format: 'drum-content/1', near, generation: m.generation, docs: m.docs, urlBytes: m.urlBytes, runs: m.runs, threshold: m.threshold, exact, sim: m.sim,
    ...(bands !== undefined ? { bands, sigCrc: m.sigCrc ?? 0 } : {}),
  };
  writeContentManifest(dfs, dir, v1 as unknown as ContentManifest, false);
  for (const sub of ['exact', 'bands']) fs.rmSync(join(dir, sub), { recursive: true, force: true });
  return v1;
}

/** The map's keys with their docIDs as one format 1 table of generation `gen` (null when the map is empty). */
function writeTable(dfs: DrumFs, dir: string, map: MapFiles, kind: number, gen: number): string | null {
  if (map.files.every((e) => e === null)) return null;
  const name = tableName(kind, gen);
  const w = new TableWriter(dfs, join(dir, name), kind);
  const buffer = new Uint8Array(READ_BUFFER_BYTES);
  const doc = new Uint32Array(1);
  map.files.forEach((e, b) => {
    if (e === null || e.values === undefined) return;
    const keys = KeyReader.open(dfs, join(dir, e.file), { bucket: b, keys: e.keys }, e.bytes, buffer);
    const vals = ValueReader.open(dfs, join(dir, e.values.file), { bucket: b, count: e.keys, valueBytes: DOC_VALUE_BYTES }, e.values.bytes);
    try {
      while (keys.nextBlock()) {
        for (let i = 0; i < keys.n; i++) {
          vals.take(doc, 0);
          w.push(keys.keys[2 * i]!, keys.keys[2 * i + 1]!, doc[0]!);
        }
      }
    } finally {
      keys.close();
      vals.close();
    }
  });
  w.finish(false);
  return name;
}
