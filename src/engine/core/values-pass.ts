// The values passes of a DRUM core round (stores with values), run once
// every verdict is known: writeValuesPass writes each touched bucket's
// values file by one sequential merge of the committed file with the
// round's value events (store/values/value-merge.ts); readValuesPass, for a
// check, reads the hits' values in one sequential pass per bucket and hands
// them out, writing nothing. Does not decide the verdicts or commit
// (drum-core.ts does).
// REQUIRES: the round's merge recorded its value events in `events`.

import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import { ValueWriter, type ValueBuffers } from '../../store/values/value-io.js';
import { FinishingFiles } from '../../store/blocks/tmp-file-writer.js';
import { mergeValues, rankIndex } from '../../store/values/value-merge.js';
import type { CoreOp, CoreRound, CoreValues, WrittenBucket } from './drum-core.js';
import type { ValueEvents } from './value-events.js';

/** What the passes use of the core. */
export interface ValuesPassContext {
  dfs: DrumFs;
  events: ValueEvents;
  valueWords: number;
  /** Read and write buffers lent to every bucket's values reader and writer in turn. */
  buffers: ValueBuffers;
  /** Buckets of the round. */
  buckets: number;
}

/**
 * Writes the values file of every written bucket whose values changed
 * (drum-core.ts's header). Each file's fsync, close and rename run on the
 * thread pool while the next bucket is written; returns once all are done.
 * On a failure it removes every values file it began and throws the first error.
 */
export async function writeValuesPass(
  c: ValuesPassContext, op: CoreOp, values: CoreValues, written: Map<number, WrittenBucket>, newBits: Uint8Array, records: number, r: CoreRound,
): Promise<void> {
  const events = c.events;
  const t0 = performance.now();
  const rankOf = op === 'delete' ? (): number => 0 : rankIndex(newBits, records);
  const finishing = new FinishingFiles();
  let items = 0;
  const buckets = [...written.keys()].sort((x, y) => x - y).filter((b) => events.count(b) > 0);
  try {
    for (const b of buckets) {
      const w = written.get(b)!;
      const path = values.files.valuesOutputPath(b);
      const reader = values.files.openValues(b, c.buffers);
      let writer: ValueWriter | null = null;
      try {
        writer = new ValueWriter(c.dfs, path, b, 4 * c.valueWords, r.fsync, c.buffers);
        mergeValues({ reader, writer, events: (fn) => events.forEachRun(b, fn), newBits, rankOf, drop: op === 'delete', hooks: values, keys: w.file.keys });
        w.values = { path, file: finishing.finish(writer) };
      } catch (e) {
        writer?.abort();
        throw e;
      } finally {
        reader?.close();
      }
      items += w.file.keys;
    }
    await finishing.settle();
  } catch (e) {
    // Every tmp file begun goes with its writer, once its fsync is over; mergeBuckets unlinks the renamed ones.
    await finishing.abandon();
    throw e;
  }
  r.time?.('merge-values', performance.now() - t0, items);
}

/**
 * A check's values pass: for each bucket with hits, one sequential read of
 * its committed values file, handing each hit's value to `out` (new keys
 * have none). Writes nothing.
 */
export function readValuesPass(c: ValuesPassContext, values: CoreValues, r: CoreRound): void {
  const events = c.events;
  const t0 = performance.now();
  const tmp = new Uint32Array(c.valueWords);
  const out = values.out!;
  let items = 0;
  for (let b = 0; b < c.buckets; b++) {
    if (events.count(b) === 0) continue;
    const reader = values.files.openValues(b);
    if (reader === null) throw new DrumError('DRUM_INTERNAL', `values pass: hits in bucket ${b}, which has no values`);
    try {
      let at = 0;
      events.forEachRun(b, (ev, n) => {
        for (let k = 0; k < n; k++) {
          const pos = ev[3 * k]!;
          reader.copy(pos - at, null);
          reader.take(tmp, 0);
          at = pos + 1;
          out(ev[3 * k + 1]!, tmp, 0);
        }
        items += n;
      });
    } finally {
      reader.close();
    }
  }
  r.time?.('merge-values', performance.now() - t0, items);
}
