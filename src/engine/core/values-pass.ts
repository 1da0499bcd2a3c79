// The values passes of a DRUM core round (stores with values), run once
// every verdict is known: writeValuesPass writes each touched bucket's
// values file by one sequential merge of the committed values with the
// round's value events (store/values/value-merge.ts) or, in a round that
// only inserts, the bucket's new values as a delta when its chain is short
// (store/values/value-delta.ts; a full write folds the chain); readValuesPass, for a
// check, reads the hits' values in one sequential pass per bucket and hands
// them out, writing nothing. Does not decide the verdicts or commit
// (drum-core.ts does).
// REQUIRES: the round's merge recorded its value events in `events`.

import { DrumError } from '../../errors.js';
import type { DrumFs } from '../../io/fs.js';
import { deltaBlockBytes, ValueWriter, type ValueBuffers } from '../../store/values/value-io.js';
import { FinishingFiles } from '../../store/blocks/tmp-file-writer.js';
import { writeDelta } from '../../store/values/value-delta.js';
import { mergeValues, rankIndex } from '../../store/values/value-merge.js';
import { DELTA_MAGIC, DELTA_POSITION_BYTES } from '../../store/values/values-format.js';
import type { ValueChainShape } from '../../store/values/value-chain.js';
import type { CoreOp, CoreRound, CoreValues, WrittenBucket } from './drum-core.js';
import type { ValueEvents } from './value-events.js';

/** What the passes use of the core. */
export interface ValuesPassContext {
  dfs: DrumFs;
  events: ValueEvents;
  valueWords: number;
  /** Read and write buffers lent to every bucket's values reader and writer in turn. */
  buffers: ValueBuffers;
  /** Write buffers lent to every bucket's delta writer in turn (entries: position word and value). */
  deltaBuffers: ValueBuffers;
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
  // Only a round that inserts and neither changes nor reads a hit's value may append deltas.
  const inserts = op !== 'delete' && values.update === null && values.out === null ? values.files.deltas : undefined;
  let items = 0;
  const buckets = [...written.keys()].sort((x, y) => x - y).filter((b) => events.count(b) > 0);
  try {
    for (const b of buckets) {
      const w = written.get(b)!;
      const forEvents = (fn: (ev: Uint32Array, n: number) => void): void => events.forEachRun(b, fn);
      if (inserts !== undefined && deltaFits(inserts.chainOf(b), events.count(b))) {
        const path = inserts.outputPath(b);
        const writer = new ValueWriter(c.dfs, path, b, 4 * c.valueWords + DELTA_POSITION_BYTES, r.fsync, c.deltaBuffers, DELTA_MAGIC);
        try {
          const entries = writeDelta({ writer, events: forEvents, newBits, rankOf, fill: values.fill });
          w.values = { path, file: finishing.finish(writer), delta: entries };
        } catch (e) {
          writer.abort();
          throw e;
        }
        items += events.count(b);
        continue;
      }
      const path = values.files.valuesOutputPath(b);
      const reader = values.files.openValues(b, c.buffers);
      let writer: ValueWriter | null = null;
      try {
        writer = new ValueWriter(c.dfs, path, b, 4 * c.valueWords, r.fsync, c.buffers);
        mergeValues({ reader, writer, events: forEvents, newBits, rankOf, drop: op === 'delete', hooks: values, keys: w.file.keys });
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

/** Deltas a bucket's chain may hold before a round writes its values whole again (a fold). */
export const MAX_DELTAS = 8;

/**
 * The delta read chunks a DrumCore lends to its values chains (MAX_DELTAS
 * of one delta block each, value-io.ts deltaChunks) for values of
 * `valueWords` words: a round's fixed RAM, which the budget counts.
 */
export function valueChainRamBytes(valueWords: number): number {
  return MAX_DELTAS * deltaBlockBytes(4 * valueWords);
}

/**
 * Whether a bucket whose committed values are `chain` takes this round's
 * `adding` new values as one more delta: it has a values file, fewer than
 * MAX_DELTAS deltas, and its deltas would hold no more values than its base
 * (so a reader passes at most twice the base's values, and a store growing
 * by equal rounds rewrites its values each time they double, not every round).
 */
export function deltaFits(chain: ValueChainShape | null, adding: number): boolean {
  return chain !== null && chain.deltas < MAX_DELTAS && chain.deltaValues + adding <= chain.baseValues;
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
    const reader = values.files.openValues(b, c.buffers);
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
