// Peer for the benchmark: the per-URL "database check" crawler write-ups warn
// about, done as well as the `level` package allows. For each batch of 10k
// input lines: dedupe within the batch (Set), `getMany` the batch's distinct
// lines against LevelDB, `batch` a put for each one not found, and write the
// new lines (input order) to the output file. No canonicalization. The
// database directory must be fresh (the bench deletes it). Usage:
//   node dist/scripts/peers/level-dedup.js <in> <out> [--max-links N] [--db DIR]
// Prints one PeerSummary JSON line on stdout. Tuning (documented in
// docs/performance.md): 64 MiB block cache and 32 MiB write buffer instead of
// LevelDB's 8/4 MiB defaults, Snappy on (default), so it is not handicapped.

import { rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Level } from 'level';
import { LineWriter, readLineBatches, type PeerSummary } from '../lib/peers/line-reader.js';
import { peerMain } from '../lib/peers/peer-cli.js';

export const LEVEL_BATCH = 10_000;

export interface LevelDedupOptions {
  /** Database directory. Default `<output>.leveldb`. Deleted first. */
  dbDir?: string;
  batchSize?: number;
}

export async function levelDedup(input: string, output: string, maxLinks = Infinity, o: LevelDedupOptions = {}): Promise<PeerSummary> {
  const t0 = performance.now();
  const dbDir = o.dbDir ?? `${output}.leveldb`;
  const batchSize = o.batchSize ?? LEVEL_BATCH;
  rmSync(dbDir, { recursive: true, force: true });
  const db = new Level<string, string>(dbDir, {
    keyEncoding: 'utf8',
    valueEncoding: 'utf8',
    cacheSize: 64 << 20,
    writeBufferSize: 32 << 20,
  });
  await db.open();
  const out = new LineWriter(output);
  let links = 0;
  let truncated = false;
  let batch: string[] = [];

  const check = async (): Promise<void> => {
    // Within-batch dedup first: the DB cannot see keys not yet put.
    const distinct = [...new Set(batch)];
    batch = [];
    const found = await db.getMany(distinct);
    const ops: { type: 'put'; key: string; value: string }[] = [];
    for (let i = 0; i < distinct.length; i++) {
      if (found[i] !== undefined) continue;
      ops.push({ type: 'put', key: distinct[i]!, value: '' });
      if (out.push(distinct[i]!)) await out.flush();
    }
    if (ops.length > 0) await db.batch(ops);
  };

  outer: for await (const lines of readLineBatches(input)) {
    for (const line of lines) {
      if (links >= maxLinks) { truncated = true; break outer; }
      links++;
      batch.push(line);
      if (batch.length >= batchSize) await check();
    }
  }
  if (batch.length > 0) await check();
  await out.close();
  await db.close();
  return {
    peer: 'level',
    links,
    unique: out.count,
    elapsedMs: Math.round(performance.now() - t0),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    truncated,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const argv = process.argv.slice(2);
  const at = argv.indexOf('--db');
  const dbDir = at >= 0 ? argv.splice(at, 2)[1] : undefined;
  void peerMain('level-dedup', (i, out, max) => levelDedup(i, out, max, { dbDir }), argv);
}
