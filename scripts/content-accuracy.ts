// Precision and recall of content dedup's verdicts per SimHash Hamming
// threshold (0..12), against a brute-force all-pairs reference on a sample:
// on the generator's WARC (scripts/gen-warc.ts) the reference is its known
// duplicate groups (exact and near copies of one article); on a real WARC
// (the bundled 2008 archive.org crawl; skipped when absent) it is the exact
// Jaccard similarity of the documents' word 3-shingle sets >= --jaccard
// (default 0.9) between documents with enough text for a near verdict
// (shorter ones get exact verdicts only, as in drum). A pair is flagged at threshold t when the exact keys are
// equal, or both documents have enough text and their SimHashes differ in
// at most t bits. Also recall of near copies by the fraction of words
// changed, and how declared payload digests compared. Not part of drum.
// Usage: node dist/scripts/content-accuracy.js [--docs 3000] [--seed 1] [--real PATH] [--json]

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scriptArgs } from './lib/script-args.js';
import { pathToFileURL } from 'node:url';
import { DocFeaturer } from '../src/content/document/features.js';
import { type DocCounts, newDocCounts, readDocs } from '../src/content/document/read-docs.js';
import { hamming64 } from '../src/content/near/simhash.js';
import { LSH_BANDS, LSH_ROWS, MINHASH_K, estimateJaccard, minhash } from '../src/content/near/minhash.js';
import { generateWarc, parseTruth } from './gen-warc.js';

export const MAX_THRESHOLD = 12;

export interface Sample {
  urls: string[];
  /** FP_WORDS per document: exact hi, lo, simhash hi, lo. */
  fps: Uint32Array;
  usable: Uint8Array;
  /** Word 3-shingle hash sets (real data reference). */
  shingles: Uint32Array[];
  /** MinHash signatures (MINHASH_K words each). */
  sigs: Uint32Array[];
  counts: DocCounts;
}

/** MinHash thresholds swept (estimated Jaccard at least this). */
export const JACCARD_LEVELS = [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3];

export async function sampleOf(path: string, max: number): Promise<Sample> {
  const f = new DocFeaturer();
  const counts = newDocCounts();
  const urls: string[] = [];
  const fps = new Uint32Array(max * 4);
  const usable = new Uint8Array(max);
  const shingles: Uint32Array[] = [];
  const sigs: Uint32Array[] = [];
  for await (const d of readDocs(path, counts)) {
    if (urls.length === max) continue;
    usable[urls.length] = f.fingerprint(d, fps, urls.length * 4) ? 1 : 0;
    const w = f.words.words;
    const s = new Set<number>();
    for (let i = 0; i + 2 < f.words.n; i++) s.add((Math.imul(w[i]!, 31) ^ Math.imul(w[i + 1]!, 0x9e3779b1) ^ w[i + 2]!) >>> 0);
    shingles.push(Uint32Array.from(s).sort());
    const sig = new Uint32Array(MINHASH_K);
    minhash(w, f.words.n, sig);
    sigs.push(sig);
    urls.push(d.url);
  }
  return { urls, fps: fps.subarray(0, urls.length * 4), usable, shingles, sigs, counts };
}

export function jaccard(a: Uint32Array, b: Uint32Array): number {
  if (a.length === 0 && b.length === 0) return 1;
  let i = 0;
  let j = 0;
  let inter = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      inter++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return inter / (a.length + b.length - inter);
}

export interface Row {
  threshold: number | string;
  flagged: number;
  truePairs: number;
  hits: number;
  precision: number;
  recall: number;
}

/** SimHash: the level a pair is flagged at = 0 for exact, else the Hamming distance (99 when a text is too short). */
export function simhashLevel(s: Sample): (i: number, j: number) => number {
  const fp = s.fps;
  return (i, j) => {
    if (fp[i * 4] === fp[j * 4] && fp[i * 4 + 1] === fp[j * 4 + 1]) return 0;
    return s.usable[i] && s.usable[j] ? hamming64(fp[i * 4 + 2]!, fp[i * 4 + 3]!, fp[j * 4 + 2]!, fp[j * 4 + 3]!) : 99;
  };
}

/** MinHash-LSH: exact = level 0; else a pair sharing an LSH band is flagged at the first JACCARD_LEVELS entry <= its estimated Jaccard. */
export function minhashLevel(s: Sample): (i: number, j: number) => number {
  const fp = s.fps;
  return (i, j) => {
    if (fp[i * 4] === fp[j * 4] && fp[i * 4 + 1] === fp[j * 4 + 1]) return 0;
    if (!s.usable[i] || !s.usable[j]) return 99;
    const a = s.sigs[i]!;
    const b = s.sigs[j]!;
    let band = false;
    for (let k = 0; k < LSH_BANDS && !band; k++) {
      let eq = true;
      for (let r = 0; r < LSH_ROWS && eq; r++) eq = a[k * LSH_ROWS + r] === b[k * LSH_ROWS + r];
      band = eq;
    }
    if (!band) return 99;
    const est = estimateJaccard(a, b);
    const l = JACCARD_LEVELS.findIndex((t) => est >= t);
    return l < 0 ? 99 : l;
  };
}

/** All pairs: flagged at levels >= level(i, j), against isTrue; recall per class of true pair. */
export function table(
  s: Sample, levels: readonly (number | string)[], level: (i: number, j: number) => number,
  isTrue: (i: number, j: number) => boolean, byClass?: (i: number, j: number) => string,
): { rows: Row[]; recallByClass: Record<string, number[]> } {
  const n = s.urls.length;
  const L = levels.length;
  const flagged = new Float64Array(L);
  const hits = new Float64Array(L);
  let truePairs = 0;
  const cls: Record<string, { total: number; hit: Float64Array }> = {};
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = level(i, j);
      const t = isTrue(i, j);
      if (t) truePairs++;
      const c = t && byClass ? byClass(i, j) : '';
      if (c !== '') (cls[c] ??= { total: 0, hit: new Float64Array(L) }).total++;
      for (let k = d; k < L; k++) {
        flagged[k]!++;
        if (t) hits[k]!++;
        if (c !== '') cls[c]!.hit[k]!++;
      }
    }
  }
  const rows: Row[] = [];
  for (let k = 0; k < L; k++) {
    rows.push({ threshold: levels[k]!, flagged: flagged[k]!, truePairs, hits: hits[k]!, precision: flagged[k]! === 0 ? 1 : hits[k]! / flagged[k]!, recall: truePairs === 0 ? 1 : hits[k]! / truePairs });
  }
  const recallByClass: Record<string, number[]> = {};
  for (const [c, v] of Object.entries(cls).sort()) recallByClass[`${c} (${v.total} pairs)`] = Array.from(v.hit, (h) => Number((h / v.total).toFixed(3)));
  return { rows, recallByClass };
}

const HAMMING_LEVELS = Array.from({ length: MAX_THRESHOLD + 1 }, (_, k) => k);

function markdown(title: string, rows: Row[]): string {
  const lines = [`### ${title}`, '', '| threshold | flagged pairs | true pairs | hits | precision | recall |', '|---:|---:|---:|---:|---:|---:|'];
  for (const r of rows) lines.push(`| ${r.threshold} | ${r.flagged} | ${r.truePairs} | ${r.hits} | ${r.precision.toFixed(3)} | ${r.recall.toFixed(3)} |`);
  return lines.join('\n');
}

async function main(argv: string[]): Promise<void> {
  const { values } = scriptArgs(import.meta.url, {
    args: argv,
    options: {
      docs: { type: 'string', default: '3000' }, seed: { type: 'string', default: '1' }, jaccard: { type: 'string', default: '0.9' },
      real: { type: 'string', default: '../shared/datasets/heritrix-archive-org-2008/example.warc.gz' }, json: { type: 'boolean', default: false },
    },
  });
  const docs = Number(values.docs);
  const dir = mkdtempSync(join(tmpdir(), 'drum-acc-'));
  const out: Record<string, unknown> = {};
  try {
    const warc = join(dir, 'gen.warc.gz');
    generateWarc({ docs, seed: Number(values.seed), out: warc });
    const truth = parseTruth(readFileSync(`${warc}.truth.tsv`, 'utf8'));
    const s = await sampleOf(warc, docs);
    const same = (i: number, j: number): boolean => truth[i]!.group === truth[j]!.group && truth[i]!.role !== 'unique';
    const cls = (i: number, j: number): string => {
      const a = truth[i]!;
      const b = truth[j]!;
      if (a.role === 'near' && b.role === 'near') return 'near-near';
      const near = a.role === 'near' ? a : b.role === 'near' ? b : null;
      return near === null ? 'exact' : `near ${near.detail}`;
    };
    const g = table(s, HAMMING_LEVELS, simhashLevel(s), same, cls);
    const m = table(s, JACCARD_LEVELS, minhashLevel(s), same, cls);
    out.generator = { docs: s.urls.length, counts: s.counts, simhash: g, minhash: m };
    if (!values.json) {
      for (const [name, t] of [['SimHash, Hamming threshold', g], [`MinHash-LSH (${LSH_BANDS} bands x ${LSH_ROWS} rows), estimated Jaccard at least`, m]] as const) {
        process.stdout.write(markdown(`generator: ${s.urls.length} documents, seed ${values.seed}; ${name}`, t.rows) + '\n\nrecall by pair class, per threshold:\n');
        for (const [c, v] of Object.entries(t.recallByClass)) process.stdout.write(`  ${c}: ${v.join(' ')}\n`);
        process.stdout.write('\n');
      }
      process.stdout.write(`digests: ${JSON.stringify(s.counts)}\n\n`);
    }
    if (existsSync(values.real)) {
      const r = await sampleOf(values.real, docs);
      const jt = Number(values.jaccard);
      const ref = (i: number, j: number): boolean =>
        (r.fps[i * 4] === r.fps[j * 4] && r.fps[i * 4 + 1] === r.fps[j * 4 + 1]) || (r.usable[i] === 1 && r.usable[j] === 1 && jaccard(r.shingles[i]!, r.shingles[j]!) >= jt);
      const t = table(r, HAMMING_LEVELS, simhashLevel(r), ref);
      const tm = table(r, JACCARD_LEVELS, minhashLevel(r), ref);
      out.real = { docs: r.urls.length, counts: r.counts, simhash: t, minhash: tm };
      if (!values.json) {
        process.stdout.write(markdown(`real: ${r.urls.length} documents, reference Jaccard >= ${jt}; SimHash`, t.rows) + '\n\n');
        process.stdout.write(markdown(`real: ${r.urls.length} documents, reference Jaccard >= ${jt}; MinHash-LSH`, tm.rows) + `\n\ndigests: ${JSON.stringify(r.counts)}\n`);
      }
    } else if (!values.json) process.stdout.write(`real WARC ${values.real} absent: skipped\n`);
    if (values.json) process.stdout.write(JSON.stringify(out) + '\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`content-accuracy: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exit(1);
  });
}
