// Peer for the content benchmark: near-duplicate detection with the index
// in RAM, as datasketch's MinHashLSH keeps it: every document's MinHash
// signature (100 x u32) and 25 band tables (Map from band key to the first
// docID) live in the process; a document sharing a band with an earlier one
// whose estimated Jaccard is >= 0.5 is a near duplicate, an equal payload
// key an exact one. Reads the WARC with drum's own reader and fingerprints
// (src/content/), so only the index differs. Memory grows with the
// documents (that is the point of comparing). Usage:
//   node dist/scripts/peers/minhash-lsh-ram.js <warc>
// Prints one JSON line: documents, exact, near, timeMs, docsPerSecond, peakRssBytes.

import { pathToFileURL } from 'node:url';
import { DocFeaturer } from '../../src/content/document/features.js';
import { LSH_BANDS, MINHASH_K, bandKey, estimateJaccard, minhash } from '../../src/content/near/minhash.js';
import { newDocCounts, readDocs } from '../../src/content/document/read-docs.js';

export async function minhashLshRam(path: string): Promise<{ documents: number; exact: number; near: number; timeMs: number; docsPerSecond: number; peakRssBytes: number }> {
  const t0 = performance.now();
  const f = new DocFeaturer();
  const fp = new Uint32Array(4);
  const exact = new Map<string, number>();
  const bands: Map<string, number>[] = Array.from({ length: LSH_BANDS }, () => new Map());
  const sigs: Uint32Array[] = [];
  const key = new Uint32Array(2);
  let docs = 0;
  let nEx = 0;
  let nNear = 0;
  for await (const d of readDocs(path, newDocCounts())) {
    const usable = f.fingerprint(d, fp, 0);
    const sig = new Uint32Array(MINHASH_K);
    minhash(f.words.words, f.words.n, sig);
    sigs.push(sig);
    const ek = `${fp[0]}:${fp[1]}`;
    const doc = docs++;
    if (exact.has(ek)) {
      nEx++;
      continue;
    }
    exact.set(ek, doc);
    if (!usable) continue;
    let found = false;
    for (let b = 0; b < LSH_BANDS; b++) {
      bandKey(sig, b, key, 0);
      const bk = `${key[0]}:${key[1]}`;
      const other = bands[b]!.get(bk);
      if (other === undefined) bands[b]!.set(bk, doc);
      else if (!found && estimateJaccard(sig, sigs[other]!) >= 0.5) found = true;
    }
    if (found) nNear++;
  }
  const timeMs = performance.now() - t0;
  return { documents: docs, exact: nEx, near: nNear, timeMs: Math.round(timeMs), docsPerSecond: Math.round(docs / (timeMs / 1000)), peakRssBytes: process.resourceUsage().maxRSS * 1024 };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  minhashLshRam(process.argv[2]!).then((r) => process.stdout.write(JSON.stringify(r) + '\n'), (e: unknown) => {
    process.stderr.write(`minhash-lsh-ram: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
