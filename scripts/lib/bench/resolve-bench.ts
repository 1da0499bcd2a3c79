// The bench's resolve row: `drum resolve` of Q URLs (half stored, half not,
// shuffled) against a store of S distinct URLs, by one batch merge. Builds
// the store once from a generated list of S distinct URLs (`drum ingest`,
// not measured), then measures the resolve (wall, CPU, peak RSS) and reads
// its --verbose line: the bytes the merge read against the bytes of the
// store's key and values files (goal: one sequential pass, ≤ 1.1×). Checks
// the answers: every stored URL got a docID, every other one `-`.
// Deterministic files under the bench's work directory.

import { createWriteStream, existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRow, Goal } from './bench-report.js';
import type { BenchContext } from './bench-runners.js';
import { runMeasured } from './measure.js';

export interface ResolveBench {
  row: BenchRow;
  bytesRead: number | null;
  storeBytes: number | null;
  storeUrls: number;
  /** The store it built (kept for the 10 k-batch runs, store-batches.ts) and its query file. */
  state: string;
  queryFile: string;
}

/** URL i of the synthetic store: 100,003 hosts, so buckets and hosts spread as a crawl's do. */
const urlOf = (i: number): string => `http://h${i % 100_003}.example/p/${i}`;

async function writeLines(file: string, n: number, line: (k: number) => string): Promise<void> {
  const w = createWriteStream(file);
  let buf = '';
  for (let k = 0; k < n; k++) {
    buf += line(k) + '\n';
    if (buf.length > 1 << 20) {
      if (!w.write(buf)) await new Promise<void>((r) => w.once('drain', () => r()));
      buf = '';
    }
  }
  w.write(buf);
  await new Promise<void>((r, j) => w.end((e?: Error | null) => (e ? j(e) : r())));
}

export async function runResolveBench(ctx: BenchContext, storeUrls: number, queries: number): Promise<ResolveBench> {
  const label = `drum resolve ${queries.toLocaleString('en-US')} URLs vs a ${storeUrls.toLocaleString('en-US')}-URL store`;
  const row: BenchRow = {
    id: 'drum-resolve', dataset: 'main', label, links: queries, wallMs: null, linksPerSec: null, cpuMs: null, cpuPct: null,
    peakRssBytes: null, bytesWritten: null, unique: null, ratioToSort: null, extrapolated: false, status: 'ok', note: '',
  };
  const env = { ...process.env, DRUM_DIST_DIR: ctx.distDir };
  const drum = join(ctx.repoRoot, 'bin', 'drum');
  const storeFile = join(ctx.work, `resolve-store-${storeUrls}.txt`);
  const queryFile = join(ctx.work, `resolve-query-${storeUrls}-${queries}.txt`);
  const state = join(ctx.work, `drum-resolve-state-${storeUrls}`);
  if (!existsSync(storeFile)) await writeLines(storeFile, storeUrls, urlOf);
  // Even k: a stored URL (spread over the whole store); odd k: one past the store's end.
  const stride = Math.max(1, Math.floor(storeUrls / Math.ceil(queries / 2)));
  const queryOf = (k: number): number => (k % 2 === 0 ? ((k >>> 1) * stride + 7) % storeUrls : storeUrls + k);
  if (!existsSync(queryFile)) await writeLines(queryFile, queries, (k) => urlOf(queryOf(k)));
  if (!existsSync(join(state, 'MANIFEST'))) {
    ctx.log(`building a ${storeUrls.toLocaleString('en-US')}-URL store for the resolve row`);
    const b = await runMeasured(process.execPath, [drum, 'ingest', '--state', state, '--no-fsync', '--no-progress', '--quiet', '--out', join(state, 'out'), storeFile], { env, timeoutMs: ctx.timeoutMs });
    if (b.exitCode !== 0) return { row: { ...row, status: 'failed', note: `building the store: ${b.stderr.slice(-160)}` }, bytesRead: null, storeBytes: null, storeUrls, state, queryFile };
    rmSync(join(state, 'out'), { recursive: true, force: true });
  }
  const out = join(ctx.work, 'resolve-out.tsv');
  const m = await runMeasured('/bin/sh', ['-c', `exec "${process.execPath}" "${drum}" resolve --verbose --state "${state}" "${queryFile}" > "${out}"`], { env, timeoutMs: ctx.timeoutMs });
  row.wallMs = m.wallMs;
  row.linksPerSec = m.wallMs > 0 ? Math.round(queries / (m.wallMs / 1000)) : null;
  row.cpuMs = m.cpuMs;
  row.cpuPct = m.cpuMs !== null && m.wallMs > 0 ? Math.round((100 * m.cpuMs) / m.wallMs) : null;
  row.peakRssBytes = m.peakRssBytes;
  if (m.exitCode !== 0) return { row: { ...row, status: m.timedOut ? 'timeout' : 'failed', note: m.stderr.slice(-160) }, bytesRead: null, storeBytes: null, storeUrls, state, queryFile };
  const num = (s: string | undefined): number | null => (s === undefined ? null : Number(s.replace(/,/g, '')));
  const v = /(\d[\d,]*) merges read (\d[\d,]*) bytes; the store's key and values files hold (\d[\d,]*) bytes/.exec(m.stderr);
  const bytesRead = num(v?.[2]);
  const storeBytes = num(v?.[3]);
  // The answers: a docID for every stored URL, '-' for the others, in input order.
  const lines = readFileSync(out, 'utf8').split('\n');
  let wrong = 0;
  for (let k = 0; k < queries; k++) {
    const [doc, url] = (lines[k] ?? '').split('\t');
    if (url !== urlOf(queryOf(k)) || (k % 2 === 0) === (doc === '-')) wrong++;
  }
  row.unique = queries - wrong;
  row.note = `${v?.[1] ?? '?'} merge(s); read ${bytesRead ?? '?'} of ${storeBytes ?? '?'} store bytes${wrong > 0 ? `; ${wrong} WRONG answers` : ''}`;
  if (wrong > 0) row.status = 'failed';
  if (!ctx.keep) rmSync(out, { force: true });
  return { row, bytesRead, storeBytes, storeUrls, state, queryFile };
}

/** The resolve goals: one sequential pass (bytes read ≤ 1.1× the key and values files) in one merge, peak RSS ≤ 256 MiB. */
export function resolveGoals(r: ResolveBench | null): Goal[] {
  const MiB = 1024 * 1024;
  if (r === null || r.row.status !== 'ok') {
    const why = r === null ? 'not run' : `row ${r.row.status}`;
    return [{ id: 'resolve-pass', text: 'drum resolve: bytes read / store key+value bytes', target: '≤ 1.1×', measured: why, verdict: 'SKIP' }];
  }
  const ratio = r.bytesRead !== null && r.storeBytes ? r.bytesRead / r.storeBytes : null;
  return [
    {
      id: 'resolve-pass', text: `drum resolve ${r.row.links.toLocaleString('en-US')} URLs vs ${r.storeUrls.toLocaleString('en-US')}: bytes read / store key+value bytes`, target: '≤ 1.1×',
      measured: ratio === null ? 'not measured' : `${ratio.toFixed(3)}×`, verdict: ratio === null ? 'SKIP' : ratio <= 1.1 ? 'PASS' : 'FAIL',
    },
    {
      id: 'resolve-rss', text: 'drum resolve peak RSS', target: '≤ 256 MiB',
      measured: r.row.peakRssBytes === null ? 'not measured' : `${(r.row.peakRssBytes / MiB).toFixed(1)} MiB`,
      verdict: r.row.peakRssBytes === null ? 'SKIP' : r.row.peakRssBytes <= 256 * MiB ? 'PASS' : 'FAIL',
    },
  ];
}
