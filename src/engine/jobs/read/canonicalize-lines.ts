// The job behind `drum canonicalize`: reads inputs like ingest does and
// prints, for every input line and in line order, the canonical URL or
// `!reject<TAB><reason>`; a blank, comment or TSV header line gets
// `!reject<TAB>not-a-link`, so the output lines up with the input (paste).
// WARC inputs print per extracted link. Needs no store, no tiers, no worker threads.

import { BatchScratch, canonicalizeBatch } from '../../../canonicalize/batch.js';
import { resolvePolicy } from '../../../canonicalize/policy.js';
import type { CanonicalPolicyOptions } from '../../../canonicalize/types.js';
import { readInputs } from '../../../input/read.js';
import type { ReadOptions } from '../../api.js';

/** What a line that holds no link (blank, comment, TSV header) prints. */
export const NOT_A_LINK = '!reject\tnot-a-link';

/**
 * For `drum canonicalize`: one output line per input line (lines and TSV), in line
 * order: the canonical URL, `!reject<TAB><reason>`, or NOT_A_LINK.
 */
export async function canonicalizeLines(
  inputs: string[],
  opts: { canonical: CanonicalPolicyOptions } & ReadOptions,
  onLine: (line: string) => void,
): Promise<void> {
  const policy = resolvePolicy(opts.canonical);
  const scratch = new BatchScratch();
  for (let i = 0; i < inputs.length; i++) {
    let warc = false;
    let next = 1; // the next input line to print
    /** Prints NOT_A_LINK for the lines before `line` that hold no link (not for WARC: its "lines" are records). */
    const upTo = (line: number): void => {
      if (warc) return;
      for (; next < line; next++) onLine(NOT_A_LINK);
      next = Math.max(next, line + 1);
    };
    for await (const chunk of readInputs([{ path: inputs[i]! }], {
      format: opts.format ?? 'auto', maxLineBytes: policy.maxLineBytes, chunkBytes: 1 << 20,
      links: opts.links, warcLinks: opts.warcLinks, reuseBuffers: true, // each chunk is done with in this loop body
      onInput: (info) => (warc = info.format === 'warc'),
    })) {
      const batch = canonicalizeBatch(chunk, policy, scratch);
      const rejects = chunk.rejects.concat(batch.rejects).sort((a, b) => a.line - b.line);
      let r = 0;
      let start = 0;
      for (let k = 0; k < batch.count; k++) {
        const line = batch.lines[k]!;
        while (r < rejects.length && rejects[r]!.line < line) {
          upTo(rejects[r]!.line);
          onLine(`!reject\t${rejects[r++]!.reason}`);
        }
        upTo(line);
        onLine(batch.bytes.toString('latin1', start, batch.ends[k]!));
        start = batch.ends[k]!;
      }
      while (r < rejects.length) {
        upTo(rejects[r]!.line);
        onLine(`!reject\t${rejects[r++]!.reason}`);
      }
      if (!warc) for (; next <= chunk.endLine; next++) onLine(NOT_A_LINK);
    }
  }
}
