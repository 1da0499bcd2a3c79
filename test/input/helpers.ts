// Test helpers for the input stage: flatten LineChunks into plain rows
// (line, url, base) and rejects (line, reason, excerpt) that assertions can
// compare, and an assertion on a DrumError's code. Test-only; no production
// logic.

import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDrumError } from '../../src/errors.js';
import type { LineChunk } from '../../src/input/types.js';

export interface Flat {
  links: [line: number, url: string, base: string][];
  rejects: [line: number, reason: string, excerpt: string][];
  chunks: LineChunk[];
}

export function flatten(chunks: LineChunk[]): Flat {
  const f: Flat = { links: [], rejects: [], chunks };
  for (const c of chunks) {
    // listed lines and rejects interleave by line number
    const rows: [number, 0 | 1, number][] = [];
    for (let i = 0; i < c.count; i++) rows.push([c.lines[i]!, 0, i]);
    c.rejects.forEach((r, i) => rows.push([r.line, 1, i]));
    rows.sort((a, b) => a[0] - b[0]);
    for (const [line, kind, i] of rows) {
      if (kind === 0) {
        f.links.push([
          line,
          c.buf.toString('latin1', c.urlStarts[i]!, c.urlEnds[i]!),
          c.buf.toString('latin1', c.baseStarts[i]!, c.baseEnds[i]!),
        ]);
      } else {
        const r = c.rejects[i]!;
        f.rejects.push([line, r.reason, r.excerpt.toString('latin1')]);
      }
    }
  }
  return f;
}

export async function collect(it: AsyncIterable<LineChunk>): Promise<LineChunk[]> {
  const out: LineChunk[] = [];
  for await (const c of it) out.push(c);
  return out;
}

/** The URLs of chunks, in order. */
export const urlsOf = (chunks: LineChunk[]): string[] => flatten(chunks).links.map((l) => l[1]);

/** Asserts that `p` rejects with a DrumError of `code`. */
export async function rejectsWith(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: unknown) => isDrumError(e) && e.code === code);
}

/** Writes `data` to `name` in `dir`; returns its path. */
export function fileIn(dir: string, name: string, data: string | Buffer): string {
  const p = join(dir, name);
  writeFileSync(p, data);
  return p;
}
