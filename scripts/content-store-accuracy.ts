// Precision and recall of `drum content` itself, through the store: runs
// the real binary (bin/drum content, a fresh state directory) on the
// generator's WARC and on a real WARC, reads content-duplicates.tsv and
// scores it against the same references as scripts/content-accuracy.ts
// (generator: its duplicate groups; real WARC: equal payloads or word
// 3-shingle Jaccard >= --jaccard). Two ways: pairs (each output line links
// a document to its earliest copy; the documents linked directly or through
// others form clusters, and every pair inside a cluster is flagged) and
// lines (an output line is right when its document and the copy it names
// are a true pair; recall is the share of documents with an earlier true
// copy that have a line). Not part of drum.
// Usage: node dist/scripts/content-store-accuracy.js [--docs 3000] [--seed 1] [--real PATH] [--near minhash|simhash]
//   [--min-jaccard 0.5] [--jaccard 0.9] [--json]

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { scriptArgs } from './lib/script-args.js';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { jaccard, sampleOf } from './content-accuracy.js';
import { generateWarc, parseTruth } from './gen-warc.js';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '..', '..');

export interface StoreScore {
  docs: number;
  truePairs: number;
  flaggedPairs: number;
  pairPrecision: number;
  pairRecall: number;
  lines: number;
  linePrecision: number;
  docRecall: number;
  exactLines: number;
  nearLines: number;
}

/** Runs drum content on warc in a fresh state directory; the output lines as [url, kind, rep]. */
export function drumContentLines(warc: string, dir: string, extra: string[]): string[][] {
  const state = join(dir, `state-${Math.random().toString(36).slice(2)}`);
  execFileSync(process.execPath, [join(ROOT, 'bin', 'drum'), 'content', '--quiet', '--no-fsync', '--state', state, '--out', join(state, 'out'), ...extra, warc], { stdio: 'inherit' });
  const text = readFileSync(join(state, 'out', 'content-duplicates.tsv'), 'utf8');
  rmSync(state, { recursive: true, force: true });
  return text.split('\n').filter((l) => l !== '').map((l) => l.split('\t'));
}

/** Scores output lines over documents 0..n-1 (urls in record order) against isTrue(i, j). */
export function score(urls: readonly string[], lines: readonly string[][], isTrue: (i: number, j: number) => boolean): StoreScore {
  const n = urls.length;
  const at = new Map<string, number[]>();
  urls.forEach((u, i) => at.set(u, [...(at.get(u) ?? []), i]));
  const parent = Int32Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) x = parent[x] = parent[parent[x]!]!;
    return x;
  };
  let right = 0;
  let exactLines = 0;
  let last = -1;
  const hasLine = new Uint8Array(n);
  for (const [url, kind, rep] of lines) {
    // Lines come in record order: a line's document is the first record with its URL after the previous line's that has a
    // record with rep's URL before it (a URL may occur twice); its copy is the first record with rep's URL.
    const reps = at.get(rep!) ?? [];
    const i = (at.get(url!) ?? []).find((x) => x > last && reps.length > 0 && reps[0]! < x) ?? -1;
    const j = i < 0 ? -1 : reps[0]!;
    if (i >= 0) last = i;
    if (kind === 'exact') exactLines++;
    if (i < 0 || j < 0) continue;
    hasLine[i] = 1;
    if (i !== j && isTrue(Math.min(i, j), Math.max(i, j))) right++;
    parent[find(i)] = find(j);
  }
  let truePairs = 0;
  let flagged = 0;
  let hits = 0;
  let withCopy = 0;
  let found = 0;
  for (let i = 0; i < n; i++) {
    let earlier = false;
    for (let j = 0; j < i; j++) {
      const t = isTrue(j, i);
      const f = find(i) === find(j);
      if (t) truePairs++;
      if (f) flagged++;
      if (t && f) hits++;
      earlier ||= t;
    }
    if (earlier) {
      withCopy++;
      if (hasLine[i]) found++;
    }
  }
  return {
    docs: n, truePairs, flaggedPairs: flagged, pairPrecision: flagged === 0 ? 1 : hits / flagged, pairRecall: truePairs === 0 ? 1 : hits / truePairs,
    lines: lines.length, linePrecision: lines.length === 0 ? 1 : right / lines.length, docRecall: withCopy === 0 ? 1 : found / withCopy,
    exactLines, nearLines: lines.length - exactLines,
  };
}

function row(name: string, s: StoreScore): string {
  const f = (x: number): string => x.toFixed(3);
  return `| ${name} | ${s.docs} | ${s.exactLines} | ${s.nearLines} | ${s.truePairs} | ${s.flaggedPairs} | ${f(s.pairPrecision)} | ${f(s.pairRecall)} | ${f(s.linePrecision)} | ${f(s.docRecall)} |`;
}

async function main(argv: string[]): Promise<void> {
  const { values } = scriptArgs(import.meta.url, {
    args: argv,
    options: {
      docs: { type: 'string', default: '3000' }, seed: { type: 'string', default: '1' }, jaccard: { type: 'string', default: '0.9' },
      real: { type: 'string', default: '../shared/datasets/heritrix-archive-org-2008/example.warc.gz' }, near: { type: 'string', default: 'minhash' },
      'min-jaccard': { type: 'string' }, json: { type: 'boolean', default: false },
    },
  });
  const extra = ['--near', values.near, ...(values['min-jaccard'] !== undefined ? ['--min-jaccard', values['min-jaccard']] : [])];
  const dir = mkdtempSync(join(tmpdir(), 'drum-store-acc-'));
  const out: Record<string, StoreScore> = {};
  try {
    const warc = join(dir, 'gen.warc.gz');
    generateWarc({ docs: Number(values.docs), seed: Number(values.seed), out: warc });
    const truth = parseTruth(readFileSync(`${warc}.truth.tsv`, 'utf8'));
    const same = (i: number, j: number): boolean => truth[i]!.group === truth[j]!.group && truth[i]!.role !== 'unique';
    out.generator = score(truth.map((t) => t.url), drumContentLines(warc, dir, extra), same);
    const real = resolve(values.real);
    if (existsSync(real)) {
      const r = await sampleOf(real, 1 << 30);
      const jt = Number(values.jaccard);
      const ref = (i: number, j: number): boolean =>
        (r.fps[i * 4] === r.fps[j * 4] && r.fps[i * 4 + 1] === r.fps[j * 4 + 1]) || (r.usable[i] === 1 && r.usable[j] === 1 && jaccard(r.shingles[i]!, r.shingles[j]!) >= jt);
      out.real = score(r.urls, drumContentLines(real, dir, extra), ref);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  if (values.json) process.stdout.write(JSON.stringify(out) + '\n');
  else {
    process.stdout.write(`drum content ${extra.join(' ')}\n\n| input | documents | exact lines | near lines | true pairs | flagged pairs | pair precision | pair recall | line precision | document recall |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n`);
    for (const [k, s] of Object.entries(out)) process.stdout.write(row(k, s) + '\n');
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`content-store-accuracy: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
