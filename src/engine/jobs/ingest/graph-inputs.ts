// Which inputs a --graph ingest can read: TSV rows (source<TAB>target) only.
// Refuses a --format other than tsv, or a file that does not read as TSV,
// before a run starts (refuseGraphInputs; the CLI calls it before it creates
// a store for the run as well), and a stream input (stdin, a FIFO) that does
// not, by reading its first bytes before the run starts and holding them for
// the run (holdGraphStreams; the CLI calls it before it opens the store too,
// and hands the run what it held as IngestRequest.streams, which are held
// and checked again). Does not read rows (graph-sources.ts does).
// REQUIRES: nothing open; files are peeked without being consumed.

import { DrumError } from '../../../errors.js';
import { byInputPath, inputPath, inputSize, type ByteStream } from '../../../input/open.js';
import type { HeldStream } from '../../../input/held-stream.js';
import { holdStream, peekFormat } from '../../../input/peek.js';
import type { IngestRequest } from '../../api.js';

/**
 * Refuses --graph input that is not TSV: a --format other than tsv, or a
 * file that does not read as TSV (streams: holdGraphStreams).
 * The CLI calls it before it creates a store for the run too.
 */
export async function refuseGraphInputs(req: Pick<IngestRequest, 'format' | 'inputs'>, maxLineBytes: number): Promise<void> {
  if (req.format !== undefined && req.format !== 'auto' && req.format !== 'tsv') {
    throw new DrumError('DRUM_BAD_OPTION', `graph (--graph) reads TSV rows (source<TAB>target), not format ${req.format} (--format)`);
  }
  if (req.format === 'tsv') return;
  for (const path of req.inputs) {
    const format = await peekFormat(inputPath(path), maxLineBytes);
    if (format !== null && format !== 'tsv') throw graphFormatError(path, format);
  }
}

/** A --graph run's stream inputs, read ahead: what the run reads for each path, and their release. */
export interface HeldInputs {
  /** By input path: the input from its first byte (OpenOptions.streams). */
  readonly streams: ReadonlyMap<string, ByteStream>;
  /** Releases what no run read (an unread stdin or FIFO). */
  close(): Promise<void>;
}

/**
 * Reads the first bytes of each stream input of a --graph run (stdin, a
 * FIFO, `<(...)`) and refuses, before the run starts, one that does not read
 * as TSV; the others are held for the run to read from their first byte.
 * A stream the caller opened (req.streams) is read from, not opened again.
 * Null when there is nothing to hold (no stream, or --format tsv).
 */
export async function holdGraphStreams(req: Pick<IngestRequest, 'format' | 'inputs' | 'streams'>, maxLineBytes: number): Promise<HeldInputs | null> {
  if (req.format === 'tsv') return null;
  const given = byInputPath(req.streams);
  const held = new Map<string, HeldStream>();
  const close = async (): Promise<void> => void (await Promise.all([...held.values()].map((h) => h.close())));
  try {
    for (const p of new Set(req.inputs.map((x) => inputPath(x)))) {
      if ((await inputSize(p)) !== null) continue;
      const h = await holdStream(p, maxLineBytes, given.get(p));
      held.set(p, h.held);
      if (h.format !== null && h.format !== 'tsv') throw graphFormatError(p, h.format);
    }
  } catch (e) {
    await close();
    throw e;
  }
  if (held.size === 0) return null;
  const streams = new Map<string, ByteStream>([...held].map(([p, h]) => [p, h.replay()]));
  return { streams, close };
}

export function graphFormatError(path: string, format: string): DrumError {
  return new DrumError('DRUM_BAD_OPTION', `graph (--graph) reads TSV rows (source<TAB>target); ${path} reads as ${format}`, { file: path });
}
