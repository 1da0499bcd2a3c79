// The delta of one bucket's values pass in a round that only inserted
// (docs/file-format.md, "Store values delta file"): the round's new keys'
// (position, value) entries, written in place of a new values file. Each
// event of such a round is a new key (the round records no hits: no update
// or output hook), its position the one it took in the round's new key
// file; its value is made by the client's fill hook, as mergeValues makes
// it. Reads no values file; does not decide whether a bucket gets a delta
// or a new values file (values-pass.ts does).
// REQUIRES: events ascending by position, new keys only; `writer` opened
// with DELTA_MAGIC at the entry width (position word and the value's words).

import { DrumError } from '../../errors.js';
import type { ValueWriter } from './value-io.js';
import type { ValueHooks } from './value-merge.js';

export interface DeltaPass {
  writer: ValueWriter;
  /** Calls its argument with runs of (position, ordinal, seed) events (interleaved), ascending positions. */
  events: (fn: (events: Uint32Array, n: number) => void) => void;
  newBits: Uint8Array;
  /** Rank of new ordinal o among the round's new ordinals. */
  rankOf: (o: number) => number;
  fill: ValueHooks['fill'];
}

/** Writes one bucket's delta entries; returns how many. The caller finishes or aborts the writer. */
export function writeDelta(p: DeltaPass): number {
  const { writer, newBits, rankOf, fill } = p;
  const block = writer.block;
  p.events((events, n) => {
    for (let k = 0; k < n; k++) {
      const o = events[3 * k + 1]!;
      if ((newBits[o >>> 3]! & (1 << (o & 7))) === 0) throw new DrumError('DRUM_INTERNAL', 'values delta: a round that only inserts recorded a hit');
      const at = writer.slot();
      block[at] = events[3 * k]!;
      fill(o, rankOf(o), block, at + 1, events[3 * k + 2]!);
      writer.advance();
    }
  });
  return writer.pushed;
}
