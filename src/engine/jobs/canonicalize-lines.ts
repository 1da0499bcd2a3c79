// The job behind `drum canonicalize`: reads inputs like ingest does and
// prints, per listed line and in line order, the canonical URL or
// `!reject<TAB><reason>`. Needs no store, no tiers, no worker threads.

import { BatchScratch, canonicalizeBatch } from '../../canonicalize/batch.js';
import { resolvePolicy } from '../../canonicalize/policy.js';
import type { CanonicalPolicyOptions } from '../../canonicalize/types.js';
import { readInputs } from '../../input/read.js';
import type { ReadOptions } from '../api.js';

/**
 * For `drum canonicalize`: one output line per listed input line, in line
 * order: the canonical URL, or `!reject<TAB><reason>`.
 */
export async function canonicalizeLines(
  inputs: string[],
  opts: { canonical: CanonicalPolicyOptions } & ReadOptions,
  onLine: (line: string) => void,
): Promise<void> {
  const policy = resolvePolicy(opts.canonical);
  const scratch = new BatchScratch();
  for (let i = 0; i < inputs.length; i++) {
    for await (const chunk of readInputs([{ path: inputs[i]! }], {
      format: opts.format ?? 'auto', maxLineBytes: policy.maxLineBytes, chunkBytes: 1 << 20,
      links: opts.links, warcLinks: opts.warcLinks, reuseBuffers: true, // each chunk is done with in this loop body
    })) {
      const batch = canonicalizeBatch(chunk, policy, scratch);
      const rejects = chunk.rejects.concat(batch.rejects).sort((a, b) => a.line - b.line);
      let r = 0;
      let start = 0;
      for (let k = 0; k < batch.count; k++) {
        const line = batch.lines[k]!;
        while (r < rejects.length && rejects[r]!.line < line) onLine(`!reject\t${rejects[r++]!.reason}`);
        onLine(batch.bytes.toString('latin1', start, batch.ends[k]!));
        start = batch.ends[k]!;
      }
      while (r < rejects.length) onLine(`!reject\t${rejects[r++]!.reason}`);
    }
  }
}
