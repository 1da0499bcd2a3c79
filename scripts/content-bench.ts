// Content dedup benchmark: documents per second and peak RSS of `drum
// content` (the disk-backed store, as a child process, no fsync) against a
// RAM-index peer (scripts/peers/minhash-lsh-ram.ts, the datasketch shape)
// on the same generated WARC files (scripts/gen-warc.ts), at each size
// given. Each process's peak RSS is its own getrusage maxRSS. Generated
// files are kept in --work and reused. --simhash adds a row for a store
// made with --near simhash; the peer is skipped above --peer-max-docs
// (default 100,000: it holds ~4 KiB a document in RAM and runs as long as
// drum). Above GEN_CHUNK_DOCS documents the WARC is generator files of
// GEN_CHUNK_DOCS documents each (seeds seed * 1000 + 0, 1, ...) one after
// another: the generator plans a file's pages in RAM, which does not fit
// at 10^6 (duplicates then fall within a chunk). Not part of drum.
// Usage: node dist/scripts/content-bench.js [--docs 10000,100000] [--work DIR] [--seed 1] [--simhash] [--peer-max-docs N] [--json]

import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { scriptArgs } from './lib/script-args.js';
import { pathToFileURL, fileURLToPath } from 'node:url';
import { generateWarc } from './gen-warc.js';

const HERE = fileURLToPath(new URL('.', import.meta.url));
const ROOT = resolve(HERE, '..', '..');

export interface ContentBenchRow {
  docs: number;
  tool: string;
  documents: number;
  exact: number;
  near: number;
  seconds: number;
  docsPerSecond: number;
  peakRssMiB: number;
}

function node(args: string[]): string {
  return execFileSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, DRUM_STATE: '' } });
}

export interface BenchChoices {
  /** Also a store made with --near simhash. */
  simhash?: boolean;
  /** Skip the RAM peer above this many documents. Default 100,000. */
  peerMaxDocs?: number;
}

/** Largest WARC made by one generateWarc call. */
export const GEN_CHUNK_DOCS = 100000;

export function makeWarc(docs: number, seed: number, out: string): void {
  if (docs <= GEN_CHUNK_DOCS) {
    generateWarc({ docs, seed, out });
    return;
  }
  const part = `${out}.part`;
  const chunk = `${out}.chunk.warc.gz`;
  rmSync(part, { force: true });
  for (let k = 0, left = docs; left > 0; k++, left -= GEN_CHUNK_DOCS) {
    generateWarc({ docs: Math.min(GEN_CHUNK_DOCS, left), seed: seed * 1000 + k, out: chunk });
    appendFileSync(part, readFileSync(chunk));
  }
  rmSync(chunk, { force: true });
  rmSync(`${chunk}.truth.tsv`, { force: true });
  renameSync(part, out);
}

const mib = (b: number): number => Math.round((b / 1048576) * 10) / 10;

function drumRow(docs: number, work: string, warc: string, near: 'minhash' | 'simhash'): ContentBenchRow {
  const state = join(work, `state-${docs}-${near}`);
  rmSync(state, { recursive: true, force: true });
  const t0 = performance.now();
  const rep = JSON.parse(node([join(ROOT, 'bin', 'drum'), 'content', '--near', near, '--state', state, '--out', join(state, 'out'), '--no-fsync', '--json', warc])) as {
    documents: number; exactDuplicates: number; nearDuplicates: number; peakRssBytes: number;
  };
  const s = (performance.now() - t0) / 1000;
  rmSync(state, { recursive: true, force: true });
  const tool = near === 'minhash' ? 'drum content (disk tables, MinHash-LSH J>=0.5)' : 'drum content --near simhash (disk tables, k=3)';
  return { docs, tool, documents: rep.documents, exact: rep.exactDuplicates, near: rep.nearDuplicates, seconds: Number(s.toFixed(1)), docsPerSecond: Math.round(rep.documents / s), peakRssMiB: mib(rep.peakRssBytes) };
}

export function benchOne(docs: number, work: string, seed: number, c: BenchChoices = {}): ContentBenchRow[] {
  mkdirSync(work, { recursive: true });
  const warc = join(work, `content-${docs}-s${seed}.warc.gz`);
  if (!existsSync(warc)) makeWarc(docs, seed, warc);
  const rows = [drumRow(docs, work, warc, 'minhash')];
  if (c.simhash) rows.push(drumRow(docs, work, warc, 'simhash'));
  if (docs > (c.peerMaxDocs ?? 100000)) {
    rows.push({ docs, tool: `MinHash-LSH in RAM (peer): skipped above ${c.peerMaxDocs ?? 100000} documents`, documents: 0, exact: 0, near: 0, seconds: 0, docsPerSecond: 0, peakRssMiB: 0 });
    return rows;
  }
  const t1 = performance.now();
  const peer = JSON.parse(node([join(ROOT, 'dist', 'scripts', 'peers', 'minhash-lsh-ram.js'), warc])) as { documents: number; exact: number; near: number; peakRssBytes: number };
  const peerS = (performance.now() - t1) / 1000;
  rows.push({ docs, tool: 'MinHash-LSH in RAM (peer)', documents: peer.documents, exact: peer.exact, near: peer.near, seconds: Number(peerS.toFixed(1)), docsPerSecond: Math.round(peer.documents / peerS), peakRssMiB: mib(peer.peakRssBytes) });
  return rows;
}

function main(argv: string[]): void {
  const { values } = scriptArgs(import.meta.url, {
    args: argv,
    options: {
      docs: { type: 'string', default: '10000,100000' }, work: { type: 'string', default: join(tmpdir(), 'drum-content-bench') }, seed: { type: 'string', default: '1' },
      simhash: { type: 'boolean', default: false }, 'peer-max-docs': { type: 'string', default: '100000' }, json: { type: 'boolean', default: false },
    },
  });
  const rows: ContentBenchRow[] = [];
  for (const n of values.docs.split(',').map(Number)) {
    const r = benchOne(n, resolve(values.work), Number(values.seed), { simhash: values.simhash, peerMaxDocs: Number(values['peer-max-docs']) });
    rows.push(...r);
    if (!values.json) for (const x of r) process.stdout.write(`| ${x.docs} | ${x.tool} | ${x.exact} | ${x.near} | ${x.seconds} | ${x.docsPerSecond} | ${x.peakRssMiB} |\n`);
  }
  if (values.json) process.stdout.write(JSON.stringify(rows) + '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));

/** The content-dedup rows (drum content vs a RAM MinHash-LSH peer) at each document count: the bench's --content. */
export function contentRows(sizes: string, work: string, seed: number, log: (s: string) => void): unknown[] {
  const rows = [];
  for (const n of sizes.split(',').map(Number)) {
    for (const r of benchOne(n, join(work, 'content'), seed)) {
      log(`content ${r.docs} docs, ${r.tool}: ${r.docsPerSecond} docs/s, peak RSS ${r.peakRssMiB} MiB`);
      rows.push(r);
    }
  }
  return rows;
}
