// Measures the canonicalization stage and prints the two Markdown tables of
// docs/canonicalization.md: canonical uniques of outlinks.tsv under each
// policy, and throughput (links/s) of the fast path vs the full path on
// outlinks.tsv and on ~1M synthetic plain links. Not a test: no assertions.
// Run from the repo root: `npx tsc -p . && node dist/scripts/canon-stats.js [outlinks.tsv]`.
// Preconditions: ../shared/datasets/ beside the repo (or a path argument).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BatchScratch, canonicalizeBatch, resolvePolicy, type CanonicalPolicyOptions } from '../src/canonicalize/index.js';
import { compile } from '../src/canonicalize/compiled.js';
import { fastCanonical } from '../src/canonicalize/fast.js';
import type { CanonicalPolicy } from '../src/canonicalize/types.js';
import { LineSplitter } from '../src/input/split.js';
import type { LineChunk } from '../src/input/types.js';

const OUTLINKS = process.argv[2] ?? path.resolve(process.cwd(), '../shared/datasets/heritrix-archive-org-2008/outlinks.tsv');

function split(buf: Buffer, format: 'lines' | 'tsv'): LineChunk[] {
  const s = new LineSplitter({ input: 0, format, maxLineBytes: 2048, chunkBytes: 1 << 20 });
  return [...s.push(buf), ...s.end()];
}

function lineCount(chunks: LineChunk[]): number {
  return chunks.reduce((n, c) => n + c.count, 0);
}

function uniques(chunks: LineChunk[], policy: CanonicalPolicy): { uniques: number; rejects: number } {
  const seen = new Set<string>();
  let rejects = 0;
  for (const chunk of chunks) {
    const b = canonicalizeBatch(chunk, policy);
    rejects += b.rejects.length;
    for (let i = 0; i < b.count; i++) seen.add(b.bytes.toString('latin1', i === 0 ? 0 : b.ends[i - 1], b.ends[i]));
  }
  return { uniques: seen.size, rejects };
}

/** Share of URL fields the fast path takes on its own. */
function fastShare(chunks: LineChunk[], policy: CanonicalPolicy): number {
  const c = compile(policy);
  const out = Buffer.alloc(1 << 16);
  const h = new Uint32Array(1);
  let taken = 0;
  for (const ch of chunks) {
    for (let i = 0; i < ch.count; i++) {
      const s = ch.urlStarts[i]!;
      const e = ch.urlEnds[i]!;
      if (e - s < out.length - 2 && fastCanonical(ch.buf, s, e, out, 0, c, h, h, 0) >= 0) taken++;
    }
  }
  return taken / lineCount(chunks);
}

/** Best-of-5 links/s of canonicalizeBatch over all chunks (each run repeated to >= 300 ms). */
function throughput(chunks: LineChunk[], policy: CanonicalPolicy, fast: boolean): number {
  const scratch = new BatchScratch();
  const links = lineCount(chunks);
  let best = 0;
  for (let run = 0; run < 5; run++) {
    let reps = 0;
    const t0 = process.hrtime.bigint();
    let ms = 0;
    do {
      for (const ch of chunks) canonicalizeBatch(ch, policy, scratch, { fast });
      reps++;
      ms = Number(process.hrtime.bigint() - t0) / 1e6;
    } while (ms < 300);
    best = Math.max(best, (links * reps) / (ms / 1000));
  }
  return best;
}

/** ~1M plain links: 5,000 hosts, 1-4 path segments, 40% with a sorted query, a few fragments and uppercase hosts. */
function synthetic(n: number): Buffer {
  let x = 12345;
  const rnd = (m: number) => {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    return (x >>> 8) % m;
  };
  const words = ['news', 'about', 'products', 'item', 'blog', '2024', 'docs', 'en', 'search', 'user', 'images', 'page'];
  const lines: string[] = [];
  for (let i = 0; i < n; i++) {
    const h = rnd(5000);
    let u = `${rnd(3) === 0 ? 'https' : 'http'}://${rnd(20) === 0 ? 'WWW' : 'www'}.site${h}.${['com', 'org', 'net', 'de'][h % 4]}`;
    const segs = 1 + rnd(4);
    for (let s = 0; s < segs; s++) u += '/' + words[rnd(words.length)] + (s === segs - 1 && rnd(2) === 0 ? `-${rnd(100000)}.html` : '');
    if (rnd(5) < 2) u += `?id=${rnd(1e6)}` + (rnd(2) === 0 ? `&page=${rnd(50)}` : '');
    if (rnd(20) === 0) u += '#top';
    lines.push(u);
  }
  return Buffer.from(lines.join('\n') + '\n');
}

function fmt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

function main(): void {
  if (!existsSync(OUTLINKS)) {
    console.error(`no ${OUTLINKS}; pass the path of outlinks.tsv`);
    process.exitCode = 1;
    return;
  }
  const outlinks = split(readFileSync(OUTLINKS), 'tsv');
  const policies: [string, CanonicalPolicyOptions][] = [
    ['raw (`--canonical none`)', { mode: 'none' }],
    ['default', {}],
    ['default + stripWww', { stripWww: true }],
    ['default + foldHttps', { foldHttps: true }],
    ['default + stripIndex', { stripIndex: true }],
    ['default + lowercasePath', { lowercasePath: true }],
    ['default + all four', { stripWww: true, foldHttps: true, stripIndex: true, lowercasePath: true }],
  ];
  console.log(`outlinks.tsv: ${fmt(lineCount(outlinks))} links\n`);
  console.log('| policy | id | canonical uniques | rejects |');
  console.log('| --- | --- | ---: | ---: |');
  for (const [name, o] of policies) {
    const p = resolvePolicy(o);
    const r = uniques(outlinks, p);
    console.log(`| ${name} | \`${p.id}\` | ${fmt(r.uniques)} | ${fmt(r.rejects)} |`);
  }

  const synth = split(synthetic(1_000_000), 'lines');
  const p = resolvePolicy();
  console.log(`\nnode ${process.version}, ${fmt(lineCount(synth))} synthetic links\n`);
  console.log('| input | fast path share | fast + fallback (links/s) | full path only (links/s) | speed-up |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const [name, chunks] of [['outlinks.tsv', outlinks], ['synthetic plain links', synth]] as const) {
    const share = fastShare(chunks, p);
    const f = throughput(chunks, p, true);
    const s = throughput(chunks, p, false);
    console.log(`| ${name} | ${(share * 100).toFixed(2)}% | ${fmt(f)} | ${fmt(s)} | ${(f / s).toFixed(1)}x |`);
  }
  const raw = resolvePolicy({ mode: 'none' });
  console.log(`| synthetic, raw mode | - | ${fmt(throughput(synth, raw, true))} | - | - |`);
}

main();
