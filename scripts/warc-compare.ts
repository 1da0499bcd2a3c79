// Compares drum's HTML link extraction with Heritrix's own, on the bundled
// Heritrix 1.14 WARC: for each page, Heritrix's `L` hops in a/@href context
// (from the file's metadata records) against drum's a/@href links from the
// HTML of the same response, both canonicalized with the default policy.
// Prints counts, examples of each difference, and WARC throughput (MB/s).
// Usage: node dist/scripts/warc-compare.js [path/to/example.warc.gz] [--examples N]
// Does not write anything. Precondition: the WARC exists (default ../shared/...).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createGunzip, gunzipSync } from 'node:zlib';
import { canonicalizeString, isRejected, resolvePolicy } from '../src/canonicalize/index.js';
import { type LinkSink, extractRecord, wantsRecord } from '../src/input/warc/extract.js';
import { classify, readWarcChunks } from '../src/input/warc/index.js';
import { type WarcEvent, WarcRecordReader } from '../src/input/warc/records.js';

const args = process.argv.slice(2);
const exIdx = args.indexOf('--examples');
const EXAMPLES = exIdx >= 0 ? Number(args[exIdx + 1]) : 8;
const file = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--examples') ??
  path.resolve(process.cwd(), '../shared/datasets/heritrix-archive-org-2008/example.warc.gz');
const policy = resolvePolicy();

interface Found {
  raw: string;
  base: string;
}

/** page -> canonical url -> how drum / Heritrix wrote it. */
const ours = new Map<string, Map<string, Found>>();
const theirs = new Map<string, Map<string, string>>();
const oursRejected = new Map<string, number>();
const readerRejects = new Map<string, number>();
/** All outlink: rows per page, any hop (Heritrix 1.14 stops at 6,000 per page). */
const theirAll = new Map<string, number>();
let ourRows = 0;
let theirRows = 0;
let htmlPages = 0;

function canon(u: string, base: string | null): string | null {
  const r = canonicalizeString(u, base, policy);
  return isRejected(r) ? null : r.url;
}

function add<V>(m: Map<string, Map<string, V>>, page: string, key: string, v: V): void {
  let s = m.get(page);
  if (s === undefined) m.set(page, (s = new Map()));
  if (!s.has(key)) s.set(key, v);
}

const gz = readFileSync(file);
const warc = gunzipSync(gz);
const xo = { html: true, metadata: true, maxBodyBytes: 16 << 20 };
const reader = new WarcRecordReader({ want: (t, c) => wantsRecord(t, c, xo), maxRecordBytes: 16 << 20, headBytes: 65536 });
const events: WarcEvent[] = [];
reader.push(warc, events);
reader.end(events);

for (const ev of events) {
  if (ev.kind !== 'record' || ev.block === null) continue;
  const page = ev.targetUri;
  let base = page;
  let sawHtmlLink = false;
  const sink: LinkSink = {
    base: (u) => (base = u),
    link: (hop, context, b, s, e) => {
      const text = b.toString('utf8', s, e);
      if (ev.type === 'metadata') {
        theirAll.set(page, (theirAll.get(page) ?? 0) + 1);
        if (hop !== 'L' || context.toLowerCase() !== 'a/@href') return;
        theirRows++;
        add(theirs, page, canon(text, null) ?? text, text);
        return;
      }
      if (context !== 'a/@href') return;
      sawHtmlLink = true;
      ourRows++;
      const why = classify(b, s, e, 2048);
      if (why !== null) {
        readerRejects.set(why, (readerRejects.get(why) ?? 0) + 1);
        return;
      }
      const c = canon(text, base);
      if (c === null) oursRejected.set(page, (oursRejected.get(page) ?? 0) + 1);
      else add(ours, page, c, { raw: text, base });
    },
    fail: () => {},
  };
  extractRecord(ev, xo, sink);
  if (ev.type === 'response' && sawHtmlLink) htmlPages++;
}

let both = 0;
let theirOnly = 0;
let ourOnly = 0;
const missed: string[] = [];
const extra: string[] = [];
for (const [page, set] of theirs) {
  const mine = ours.get(page);
  for (const [u, raw] of set) {
    if (mine?.has(u)) both++;
    else {
      theirOnly++;
      missed.push(`${page}\t${raw}${mine === undefined ? '\t(no HTML links from this page)' : ''}`);
    }
  }
}
for (const [page, set] of ours) {
  const t = theirs.get(page);
  for (const [u, f] of set) {
    if (t?.has(u)) continue;
    ourOnly++;
    extra.push(`${page}\t${f.raw}\t-> ${u}${t === undefined ? '\t(Heritrix has no a/@href for this page)' : ''}`);
  }
}

const theirPairs = both + theirOnly;
console.log(`file: ${file} (${gz.length} bytes gzip, ${warc.length} bytes WARC)`);
console.log(`HTML pages with a/@href links (drum): ${htmlPages}; pages with Heritrix a/@href L hops: ${theirs.size}`);
console.log(`Heritrix a/@href L rows: ${theirRows}; distinct (page, canonical url) pairs: ${theirPairs}`);
console.log(`drum a/@href rows: ${ourRows}; rejected by the WARC reader: ${JSON.stringify(Object.fromEntries(readerRejects))}; by the canonicalizer: ${[...oursRejected.values()].reduce((a, b) => a + b, 0)}`);
console.log(`found by both: ${both} of ${theirPairs} (${((100 * both) / theirPairs).toFixed(2)}%)`);
console.log(`Heritrix only: ${theirOnly}; drum only: ${ourOnly}`);
const perPage = (lines: string[]): string =>
  [...lines.reduce((m, l) => m.set(l.split('\t')[0]!, (m.get(l.split('\t')[0]!) ?? 0) + 1), new Map<string, number>())]
    .sort((a, b) => b[1] - a[1])
    .map(([p, n]) => `${n} on ${p} (Heritrix outlink: rows for the page, all hops: ${theirAll.get(p) ?? 0})`)
    .join('\n  ');
console.log(`\nHeritrix only, by page:\n  ${perPage(missed)}`);
console.log(`drum only, by page:\n  ${perPage(extra)}`);
console.log(`\nHeritrix only (page, Heritrix url):`);
for (const m of missed.slice(0, EXAMPLES)) console.log(`  ${m}`);
console.log(`\ndrum only (page, raw href, canonical):`);
for (const m of extra.slice(0, EXAMPLES)) console.log(`  ${m}`);

// Throughput: the whole reader (gunzip stream + records + HTML + chunks), best of 5.
async function time(label: string, mk: () => AsyncIterable<Buffer>, bytes: number, opts: { links: 'nav' | 'all'; warcLinks: 'html' | 'metadata' | 'both' }): Promise<void> {
  let best = Infinity;
  let links = 0;
  for (let rep = 0; rep < 5; rep++) {
    const t0 = performance.now();
    links = 0;
    for await (const c of readWarcChunks(mk(), 0, { ...opts, maxLineBytes: 2048, chunkBytes: 1 << 20 })) links += c.count;
    best = Math.min(best, performance.now() - t0);
  }
  console.log(`${label}: ${links} links, ${best.toFixed(0)} ms, ${(bytes / 1e6 / (best / 1000)).toFixed(1)} MB/s of WARC (${(gz.length / 1e6 / (best / 1000)).toFixed(1)} MB/s of .gz)`);
}
async function* pieces(): AsyncGenerator<Buffer> {
  for (let i = 0; i < warc.length; i += 65536) yield warc.subarray(i, i + 65536);
}
console.log('\nthroughput (best of 5):');
await time('html nav, decompressed in memory', pieces, warc.length, { links: 'nav', warcLinks: 'html' });
await time('html all, decompressed in memory', pieces, warc.length, { links: 'all', warcLinks: 'html' });
await time('metadata all, decompressed in memory', pieces, warc.length, { links: 'all', warcLinks: 'metadata' });
await time('html nav, from .gz via zlib createGunzip', () => Readable.from([gz]).pipe(createGunzip()), warc.length, { links: 'nav', warcLinks: 'html' });
