// Which inputs a --graph ingest can read: TSV rows (source<TAB>target) only.
// Refuses a --format other than tsv, or a file that does not read as TSV,
// before a run starts (stdin only once it is read: GraphRun.readHooks). The
// CLI calls it before it creates a store for the run as well. Does not read
// rows (graph-sources.ts does).
// REQUIRES: nothing open; files are peeked without being consumed.

import { DrumError } from '../../../errors.js';
import { inputPath } from '../../../input/open.js';
import { peekFormat } from '../../../input/peek.js';
import type { IngestRequest } from '../../api.js';

/**
 * Refuses --graph input that is not TSV: a --format other than tsv, or a
 * file that does not read as TSV (stdin only once it is read: readHooks).
 * The CLI calls it before it creates a store for the run too.
 */
export async function refuseGraphInputs(req: Pick<IngestRequest, 'format' | 'inputs'>, maxLineBytes: number): Promise<void> {
  if (req.format !== undefined && req.format !== 'auto' && req.format !== 'tsv') {
    throw new DrumError('DRUM_BAD_OPTION', `--graph reads TSV rows (source<TAB>target), not --format ${req.format}`);
  }
  if (req.format === 'tsv') return;
  for (const path of req.inputs) {
    const format = await peekFormat(inputPath(path), maxLineBytes);
    if (format !== null && format !== 'tsv') throw graphFormatError(path, format);
  }
}

export function graphFormatError(path: string, format: string): DrumError {
  return new DrumError('DRUM_BAD_OPTION', `--graph reads TSV rows (source<TAB>target); ${path} reads as ${format}`, { file: path });
}
