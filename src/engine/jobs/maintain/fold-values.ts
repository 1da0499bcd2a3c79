// The values fold of `drum compact`: every bucket whose values are a base
// file and insert deltas (docs/file-format.md, "Store values delta file")
// gets one values file again, written from the chain in one sequential pass,
// and one manifest commit names them all. The values read back are the same
// before and after; only their files change. Does not touch key files, the
// key journal or the host counts (compact.ts runs those folds).
// REQUIRES: a writer session with no round pending; a store that passed the
// check before a write.

import { dirname } from 'node:path';
import { DrumError } from '../../../errors.js';
import type { ValuesEntry } from '../../../store/manifest.js';
import { ValueWriter } from '../../../store/values/value-io.js';
import type { Session } from '../../session/session.js';

/** Folds every bucket's values deltas into a new values file; returns the delta files folded (0: none, nothing written). */
export async function foldValueDeltas(s: Session): Promise<number> {
  const st = s.store;
  const body = st.body;
  const chained = body.buckets.flatMap((e, b) => ((e?.values?.deltas?.length ?? 0) > 0 ? [b] : []));
  if (chained.length === 0) return 0;
  const buffers = s.core.valueBuffers!;
  const written: { b: number; path: string; entry: ValuesEntry }[] = [];
  let folded = 0;
  try {
    for (const b of chained) {
      const e = body.buckets[b]!;
      const out = st.nextValuesFile(b);
      const reader = st.openValues(b, buffers);
      if (reader === null) throw new DrumError('DRUM_INTERNAL', `values fold: bucket ${b} names deltas but no values`);
      let writer: ValueWriter | null = null;
      try {
        writer = new ValueWriter(s.dfs, out.path, b, st.valueBytes, s.opts.fsync, buffers);
        reader.copy(reader.remaining, writer);
        const f = writer.finish();
        written.push({ b, path: out.path, entry: { file: out.name, bytes: f.bytes, crc: f.crc } });
      } catch (err) {
        writer?.abort();
        throw err;
      } finally {
        reader.close();
      }
      folded += e.values!.deltas!.length;
    }
    // The renames must be durable before the manifest names the files (its own fsync covers only the state directory).
    if (s.opts.fsync) s.dfs.fsyncDir(dirname(written[0]!.path));
  } catch (err) {
    for (const w of written) s.dfs.unlinkLater(w.path);
    throw err;
  }
  const buckets = body.buckets.slice();
  for (const w of written) buckets[w.b] = { ...buckets[w.b]!, values: w.entry };
  st.commit({ ...body, buckets });
  s.committed(written.map((w) => w.entry.file));
  return folded;
}
