// The values pass of one bucket: writes the new values file from the old one
// and the (position, ordinal, seed) events the key merge recorded (merge.ts),
// in one sequential pass. Old values are copied up to each event's position; a new
// key's value is made by the client's fill hook (given its rank among the
// round's new ordinals and the seed its key carried); a hit's old value goes through the client's update
// hook; a deleted key's value is dropped. Every new and hit value is also
// handed to the output hook when there is one. Does not read key files.
// REQUIRES: events ascending by position; positions are those of the new key
// file; the old values file holds one value per key of the old key file.

import { DrumError } from '../../errors.js';
import type { ValueSource, ValueWriter } from './value-io.js';

/** The client's hooks on values (see DrumCore's CoreValues). */
export interface ValueHooks {
  /**
   * Writes the value of new ordinal `ordinal` (rank-th new ordinal of the
   * round, whose key carried `seed` through the buckets) into v[at, at + words).
   */
  fill(ordinal: number, rank: number, v: Uint32Array, at: number, seed: number): void;
  /** May change a hit's stored value in place; returns true when it did. null: hits keep their values. */
  update: ((ordinal: number, v: Uint32Array, at: number) => boolean) | null;
  /** Receives each new and hit ordinal's value (after fill / update). */
  out: ((ordinal: number, v: Uint32Array, at: number) => void) | null;
}

export interface ValuePass {
  reader: ValueSource | null;
  writer: ValueWriter;
  /** Calls its argument with runs of (position, ordinal, seed) events (interleaved), ascending positions. */
  events: (fn: (events: Uint32Array, n: number) => void) => void;
  newBits: Uint8Array;
  /** Rank of new ordinal o among the round's new ordinals. */
  rankOf: (o: number) => number;
  /** Delete round: each event is a dropped key (its value is dropped). */
  drop: boolean;
  hooks: ValueHooks;
  /** Keys in the new key file (the values file must end up as long). */
  keys: number;
}

/** Runs one bucket's values pass; the caller finishes or aborts the writer. */
export function mergeValues(p: ValuePass): void {
  const { reader, writer, newBits, hooks, rankOf, drop } = p;
  const { fill, update, out } = hooks;
  const block = writer.block;
  p.events((events, n) => {
    for (let k = 0; k < n; k++) {
      const pos = events[3 * k]!;
      const o = events[3 * k + 1]!;
      const gap = pos - writer.pushed;
      if (gap !== 0) {
        if (gap < 0) throw new DrumError('DRUM_INTERNAL', `values pass: position ${pos} behind ${writer.pushed}`);
        if (reader === null) throw new DrumError('DRUM_INTERNAL', 'values pass: old values needed but the bucket had none');
        reader.copy(gap, writer);
      }
      if (drop) {
        reader!.copy(1, null);
        continue;
      }
      const at = writer.slot();
      if ((newBits[o >>> 3]! & (1 << (o & 7))) !== 0) {
        fill(o, rankOf(o), block, at, events[3 * k + 2]!);
      } else {
        if (reader === null) throw new DrumError('DRUM_INTERNAL', 'values pass: a hit in a bucket without values');
        reader.take(block, at);
        if (update !== null) update(o, block, at);
      }
      if (out !== null) out(o, block, at);
      writer.advance();
    }
  });
  if (reader !== null) reader.copy(reader.remaining, writer);
  if (writer.pushed !== p.keys) {
    throw new DrumError('DRUM_CORRUPT_FILE', `${writer.path}: values pass wrote ${writer.pushed} values for ${p.keys} keys`, { file: writer.path });
  }
}

/** Bits set in each byte value. */
const POP8 = new Uint8Array(256);
for (let i = 1; i < 256; i++) POP8[i] = (i & 1) + POP8[i >>> 1]!;

/**
 * rank(o) = set bits of `bits` below bit o, in O(8) per call: a prefix count
 * every 8 bytes (64 ordinals), 4 bytes per 64 ordinals of RAM.
 */
export function rankIndex(bits: Uint8Array, records: number): (o: number) => number {
  const groups = Math.ceil(records / 64) + 1;
  const prefix = new Uint32Array(groups);
  let sum = 0;
  for (let g = 0; g < groups; g++) {
    prefix[g] = sum;
    const end = Math.min(bits.length, 8 * g + 8);
    for (let k = 8 * g; k < end; k++) sum += POP8[bits[k]!]!;
  }
  return (o: number): number => {
    const byte = o >>> 3;
    let r = prefix[o >>> 6]!;
    for (let k = (o >>> 6) << 3; k < byte; k++) r += POP8[bits[k]!]!;
    return r + POP8[bits[byte]! & ((1 << (o & 7)) - 1)]!;
  };
}
