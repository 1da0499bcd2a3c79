// Peer for the benchmark: the URL-seen test as a data engineer would write it
// in DuckDB. A persistent database file holds one table `seen(url)`; each
// input file is one batch: DuckDB reads it (its own CSV reader, one VARCHAR
// column, no quoting, a CR before the newline dropped) into a table whose rowid is
// the line's position, keeps each URL's first position, anti-joins the
// batch against `seen`, writes the new URLs in first-arrival order, and
// appends them to `seen`. No canonicalization (exact bytes, like sort -u).
// Run it again with the same --db for an incremental batch.
// Does not run without the prebuilt `@duckdb/node-api` binding: it exits 3
// with a message saying how to install it (the bench marks the row skipped).
// Usage:
//   node dist/scripts/peers/duckdb-dedup.js <in> <out> --db FILE [--memory-limit 256MB] [--fresh] [--order rowid|row_number]
// Prints one PeerSummary JSON line on stdout.
// REQUIRES: input lines hold no tab (the generator's and Heritrix's URLs do not).

import { rmSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { PeerSummary } from '../lib/peers/line-reader.js';

/** Exit status when the DuckDB binding cannot be loaded on this machine. */
export const DUCKDB_UNAVAILABLE_EXIT = 3;

export interface DuckDbDedupOptions {
  /** Database file; kept between batches. */
  db: string;
  /** DuckDB's memory_limit (e.g. '256MB'); undefined = DuckDB's default (80 % of RAM). */
  memoryLimit?: string;
  /** Delete the database file first (a first batch). */
  fresh?: boolean;
  /**
   * How a line's position is kept: 'rowid' (default) — the batch table's
   * rowid, which is insertion order (DuckDB keeps it, preserve_insertion_order);
   * 'row_number' — a row_number() OVER () column computed while reading.
   */
  order?: 'rowid' | 'row_number';
}

/** SQL string literal. */
const lit = (s: string): string => `'${s.replace(/'/g, "''")}'`;

export async function duckDbDedup(input: string, output: string, o: DuckDbDedupOptions): Promise<PeerSummary> {
  const t0 = performance.now();
  const { DuckDBInstance } = await import('@duckdb/node-api');
  if (o.fresh) { rmSync(o.db, { force: true }); rmSync(`${o.db}.wal`, { force: true }); }
  const config: Record<string, string> = { threads: '2' };
  if (o.memoryLimit) config.memory_limit = o.memoryLimit;
  const inst = await DuckDBInstance.create(o.db, config);
  const c = await inst.connect();
  await c.run('CREATE TABLE IF NOT EXISTS seen (url VARCHAR)');
  const read = `SELECT rtrim(line, chr(13)) AS url
      FROM read_csv(${lit(input)}, columns = {'line': 'VARCHAR'}, header = false, delim = '\t', quote = '', escape = '',
                    new_line = '\\n', strict_mode = false, auto_detect = false)`;
  const rowid = (o.order ?? 'rowid') === 'rowid';
  await c.run(rowid
    ? `CREATE TEMP TABLE batch AS SELECT url FROM (${read}) WHERE url IS NOT NULL AND url <> ''`
    : `CREATE TEMP TABLE batch AS SELECT url, row_number() OVER () AS ord FROM (${read}) WHERE url IS NOT NULL AND url <> ''`);
  const ord = rowid ? 'rowid' : 'ord';
  const links = Number((await c.runAndReadAll('SELECT count(*) FROM batch')).getRows()[0]![0]);
  await c.run(`CREATE TEMP TABLE fresh AS
    SELECT b.url, b.first FROM (SELECT url, min(${ord}) AS first FROM batch GROUP BY url) b
    WHERE NOT EXISTS (SELECT 1 FROM seen s WHERE s.url = b.url)`);
  await c.run(`COPY (SELECT url FROM fresh ORDER BY first) TO ${lit(output)} (FORMAT csv, HEADER false, QUOTE '', ESCAPE '', DELIMITER '\t')`);
  const unique = Number((await c.runAndReadAll('SELECT count(*) FROM fresh')).getRows()[0]![0]);
  await c.run('INSERT INTO seen SELECT url FROM fresh');
  await c.run('CHECKPOINT');
  c.closeSync();
  inst.closeSync();
  return {
    peer: 'duckdb',
    links,
    unique,
    elapsedMs: Math.round(performance.now() - t0),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    truncated: false,
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { db: { type: 'string' }, 'memory-limit': { type: 'string' }, fresh: { type: 'boolean', default: false }, order: { type: 'string', default: 'rowid' } },
  });
  if (positionals.length !== 2 || !values.db) {
    process.stderr.write('usage: duckdb-dedup.js <input> <output> --db FILE [--memory-limit 256MB] [--fresh]\n');
    process.exit(2);
  }
  try {
    await import('@duckdb/node-api');
  } catch (e) {
    process.stderr.write(`duckdb-dedup: DuckDB is not installed here (${e instanceof Error ? e.message.split('\n')[0] : String(e)}); npm install --save-dev @duckdb/node-api\n`);
    process.exit(DUCKDB_UNAVAILABLE_EXIT);
  }
  try {
    const s = await duckDbDedup(positionals[0]!, positionals[1]!, { db: values.db, memoryLimit: values['memory-limit'], fresh: values.fresh, order: values.order === 'row_number' ? 'row_number' : 'rowid' });
    process.stdout.write(JSON.stringify(s) + '\n');
  } catch (e) {
    process.stderr.write(`duckdb-dedup: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
