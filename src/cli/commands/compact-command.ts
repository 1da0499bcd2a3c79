// The action behind `drum compact`: the key journal merged into the key
// files, the values deltas folded into values files and the pending host
// counts folded into the host table now
// (src/engine/jobs/maintain/compact.ts), with one summary line or one JSON
// object, and a line when the fold dropped the store's Bloom file (no
// --bloom gate|lossy). Does not parse argv (main.ts does).
// REQUIRES: the store exists (DRUM_NOT_FOUND otherwise, before any open).

import { DrumError } from '../../errors.js';
import { readManifest } from '../../store/manifest.js';
import { withDrum } from '../engine.js';
import { json, type CliIo } from '../command-io.js';
import { fmtDuration, fmtInt } from '../format.js';
import { drumOptionsFrom, stateDirFrom, type RawOptions } from '../options.js';
import type { CompactResult } from '../../engine/jobs/maintain/compact.js';

export async function compactCommand(raw: RawOptions, io: CliIo): Promise<number> {
  const state = stateDirFrom(raw, io.env, io.cwd);
  const before = readManifest(state);
  if (before === null) throw new DrumError('DRUM_NOT_FOUND', `no drum store at ${state}: nothing to compact`, { file: state });
  const r = await withDrum(state, drumOptionsFrom(raw, { cwd: io.cwd }), (d) => d.compact());
  if (raw.json) json(io, r);
  else io.stdout.write(formatCompact(r) + bloomDroppedNote(before.bloom !== null, state));
  return 0;
}

/**
 * A line when the store had a Bloom file and its manifest now names none: a
 * fold of the key journal without --bloom gate|lossy drops it (it would lack
 * the keys folded). Empty otherwise. Shared with `drum upgrade`.
 */
export function bloomDroppedNote(had: boolean, state: string): string {
  if (!had || readManifest(state)?.bloom !== null) return '';
  return 'bloom filter dropped with the key journal\'s fold (no --bloom gate|lossy): drum repair --bloom rebuilds it now, a run with --bloom gate|lossy at its first merge\n';
}

/** One line: what was merged and folded, or that nothing was pending. */
export function formatCompact(r: CompactResult): string {
  if (r.journalKeys === 0 && r.valueDeltas === 0 && r.hostDeltas === 0) {
    return `already compact: no journaled keys, no values deltas, no pending host counts; ${fmtInt(r.storeUrls)} URLs\n`;
  }
  return `compacted in ${fmtDuration(r.ms)}: ${fmtInt(r.journalKeys)} journaled keys merged into the key files, ${fmtInt(r.valueDeltas)} values deltas folded into values files, `
    + `${fmtInt(r.hostDeltas)} host-count deltas folded into the host table; ${fmtInt(r.storeUrls)} URLs\n`;
}
