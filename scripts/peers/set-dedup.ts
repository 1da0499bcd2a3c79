// Peer for the benchmark: exact in-memory dedup with a JavaScript Set, the
// first thing a Node developer writes. Streams the input, keeps every distinct
// line in a Set<string>, writes first occurrences (in input order) to the
// output file. No canonicalization; memory grows with the unique count (that
// is the point of comparing). Usage:
//   node dist/scripts/peers/set-dedup.js <in> <out> [--max-links N]
// Prints one PeerSummary JSON line on stdout.

import { pathToFileURL } from 'node:url';
import { LineWriter, readLineBatches, type PeerSummary } from '../lib/peers/line-reader.js';
import { peerMain } from '../lib/peers/peer-cli.js';

export async function setDedup(input: string, output: string, maxLinks = Infinity): Promise<PeerSummary> {
  const t0 = performance.now();
  const seen = new Set<string>();
  const out = new LineWriter(output);
  let links = 0;
  let truncated = false;
  outer: for await (const lines of readLineBatches(input)) {
    for (const line of lines) {
      if (links >= maxLinks) { truncated = true; break outer; }
      links++;
      if (!seen.has(line)) {
        seen.add(line);
        if (out.push(line)) await out.flush();
      }
    }
  }
  await out.close();
  return {
    peer: 'set',
    links,
    unique: out.count,
    elapsedMs: Math.round(performance.now() - t0),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    truncated,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  void peerMain('set-dedup', setDedup, process.argv.slice(2));
}
