// Reads every URL value of a store with values, straight from its files
// (key file and values file, through its deltas, of each bucket, as the
// manifest names them), for
// tests that compare the store with a model. Keyed by "hi:lo". Keys the
// key journal holds (stored by small rounds, not yet folded into a bucket
// file) are read from the journal the manifest names, and must not also be
// in a bucket file.

import { join } from 'node:path';
import { DrumFs } from '../../src/io/fs.js';
import { KeyReader } from '../../src/store/keys/key-reader.js';
import { readManifest } from '../../src/store/manifest.js';
import { openValueChain } from '../../src/store/values/value-chain.js';
import { loadJournal } from '../../src/store/journal/journal-file.js';
import { JournalTable } from '../../src/store/journal/journal-table.js';
import { docIDOf, V_FIRST_RUN, V_FLAGS, V_HOST_CHECK, V_LAST_EMITTED } from '../../src/engine/url-seen/url-values.js';

export interface UrlValue {
  docID: number;
  firstRun: number;
  lastEmitted: number;
  hostCheck: number;
  flags: number;
}

export function readUrlValues(dir: string): Map<string, UrlValue> {
  const body = readManifest(dir)!;
  const dfs = new DrumFs();
  const out = new Map<string, UrlValue>();
  const vb = body.params.valueBytes ?? 0;
  if (vb === 0) throw new Error('store keeps no values');
  body.buckets.forEach((e, b) => {
    if (!e || e.keys === 0) return;
    const kr = KeyReader.open(dfs, join(dir, e.file), { bucket: b, keys: e.keys }, e.bytes);
    const vr = openValueChain(dfs, dir, b, e, vb, (f) => dfs.size(join(dir, f)));
    const v = new Uint32Array(vb / 4);
    try {
      while (kr.nextBlock()) {
        for (let i = 0; i < kr.n; i++) {
          vr.take(v, 0);
          out.set(`${kr.keys[2 * i]}:${kr.keys[2 * i + 1]}`, {
            docID: docIDOf(v, 0), firstRun: v[V_FIRST_RUN]!, lastEmitted: v[V_LAST_EMITTED]!, hostCheck: v[V_HOST_CHECK]!, flags: v[V_FLAGS]!,
          });
        }
      }
    } finally {
      kr.close();
      vr.close();
    }
  });
  if (body.journal !== undefined) {
    const t = new JournalTable(vb / 4, body.journal.keys);
    loadJournal(dfs, dir, body.journal, t);
    for (let e = 0; e < t.count; e++) {
      const k = `${t.keys[2 * e]}:${t.keys[2 * e + 1]}`;
      if (out.has(k)) throw new Error(`key ${k} is both in a bucket file and in the key journal`);
      const v = t.values.subarray(e * (vb / 4), (e + 1) * (vb / 4));
      out.set(k, { docID: docIDOf(v, 0), firstRun: v[V_FIRST_RUN]!, lastEmitted: v[V_LAST_EMITTED]!, hostCheck: v[V_HOST_CHECK]!, flags: v[V_FLAGS]! });
    }
  }
  return out;
}
