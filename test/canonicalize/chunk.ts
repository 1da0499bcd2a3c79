// Test helper: builds a LineChunk (as the input readers would) from URL
// fields, optionally with a TSV base per line. Not a test itself; no reading
// of files and no CR/BOM handling (the readers own that).

import type { LineChunk } from '../../src/input/types.js';

export type Field = string | Buffer;

/** One line: a URL field, or [base, target] for a TSV line. */
export type Line = Field | [Field, Field];

function bytes(f: Field): Buffer {
  return typeof f === 'string' ? Buffer.from(f, 'utf8') : f;
}

export function chunkOf(lines: Line[], input = 0): LineChunk {
  const parts: Buffer[] = [];
  const n = lines.length;
  const urlStarts = new Uint32Array(n);
  const urlEnds = new Uint32Array(n);
  const baseStarts = new Uint32Array(n);
  const baseEnds = new Uint32Array(n);
  const lineNos = new Float64Array(n);
  let off = 0;
  lines.forEach((l, i) => {
    const [base, url] = Array.isArray(l) ? [bytes(l[0]), bytes(l[1])] : [null, bytes(l)];
    if (base) {
      baseStarts[i] = off;
      parts.push(base, Buffer.from('\t'));
      off += base.length;
      baseEnds[i] = off;
      off += 1;
    } else {
      baseStarts[i] = baseEnds[i] = off;
    }
    urlStarts[i] = off;
    parts.push(url, Buffer.from('\n'));
    off += url.length;
    urlEnds[i] = off;
    off += 1;
    lineNos[i] = i + 1;
  });
  return {
    input, buf: Buffer.concat(parts), count: n, urlStarts, urlEnds, baseStarts, baseEnds,
    lines: lineNos, rejects: [], endOffset: off, endLine: n,
  };
}
