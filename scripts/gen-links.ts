// Seeded, deterministic synthetic link stream for the benchmark, shaped by
// published crawl figures (docs/performance.md): ~60 links per parsed page,
// mostly intra-host, Zipf-like host and page popularity, a tunable share of
// links to never-seen pages, and low-rate surface variants that
// canonicalization folds. Writes lines or TSV (source<TAB>target) plus a
// FILE.meta.json with the measured unique fractions. Batch 2 continues the
// same crawl after batch 1 (same seed), so it links to batch 1's URLs too.
// Does not canonicalize anything itself. Same options + seed => same bytes.
// URL text: lib/models/link-model.ts; unique counts:
// lib/models/link-counts.ts.
// REQUIRES: RAM for the counts (~27 bytes per distinct URL) unless --no-count.

import { closeSync, openSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Sfc32, zipfIndex } from './lib/models/prng.js';
import { hashBytes64 } from './lib/models/hashset64.js';
import { HostTable, writeUrl, VARIANT_NAMES, VARIANT_RATES, ROOT_NO_SLASH_RATE, V_ROOTNOSLASH, V_WWW } from './lib/models/link-model.js';
import { LinkCounts, count, defaultPolicyBits, type UniqueCounts } from './lib/models/link-counts.js';
import { DoubleBuffer } from './lib/fd-writer.js';

export const GENERATOR_VERSION = 1;

export interface GenOptions {
  links: number;
  seed: number;
  format?: 'lines' | 'tsv';
  /** Output path; '-' writes to stdout (no meta file then). */
  out: string;
  /** 1 = first batch; 2 = the next N links of the same crawl (batch 1 is simulated, not written). */
  batch?: 1 | 2;
  /** Probability that a link targets a never-seen page. Default 0.2. */
  newFraction?: number;
  /** Probability that a link stays on its page's host. Default 0.8. */
  intraHost?: number;
  /** Mean links per parsed page (uniform in [lpp/3, 5lpp/3]). Default 60. */
  linksPerPage?: number;
  /** Host universe size. Default max(100, links / 100). */
  hosts?: number;
  /** Multiplies every surface-variant rate (0 = no variants). Default 1. */
  variantScale?: number;
  /**
   * Count the unique URLs (three hash sets, ~27 bytes per distinct URL: 10^9
   * links would need ~15 GB). Default true; false leaves the meta's counts 0.
   */
  count?: boolean;
}

export type { UniqueCounts };

export interface GenMeta {
  generator: 'drum-gen-links';
  version: number;
  params: Required<Omit<GenOptions, 'out'>>;
  links: number;
  bytes: number;
  avgUrlBytes: number;
  intraHostFraction: number;
  variants: Record<string, number>;
  /** Distinct within this batch's file. */
  unique: UniqueCounts;
  uniqueFraction: { exact: number; defaultPolicy: number; pages: number };
  /** Batch 2 only: links new to a store that already holds batch 1. */
  newVsPrevious: UniqueCounts | null;
  elapsedMs: number;
}

export function resolveGenOptions(o: Omit<GenOptions, 'out'>): Required<Omit<GenOptions, 'out'>> {
  const r = {
    links: o.links,
    seed: o.seed,
    format: o.format ?? 'lines',
    batch: o.batch ?? 1,
    newFraction: o.newFraction ?? 0.2,
    intraHost: o.intraHost ?? 0.8,
    linksPerPage: o.linksPerPage ?? 60,
    hosts: o.hosts ?? Math.max(100, Math.floor(o.links / 100)),
    variantScale: o.variantScale ?? 1,
    count: o.count ?? true,
  };
  if (!Number.isInteger(r.links) || r.links < 0) throw new Error(`--links must be a non-negative integer`);
  if (!Number.isInteger(r.seed)) throw new Error(`--seed must be an integer`);
  if (r.format !== 'lines' && r.format !== 'tsv') throw new Error(`--format must be lines|tsv`);
  if (r.batch !== 1 && r.batch !== 2) throw new Error(`--batch must be 1 or 2`);
  for (const k of ['newFraction', 'intraHost'] as const) if (!(r[k] >= 0 && r[k] <= 1)) throw new Error(`${k} must be in [0,1]`);
  if (!(r.linksPerPage >= 3)) throw new Error(`linksPerPage must be >= 3`);
  if (!Number.isInteger(r.hosts) || r.hosts < 1 || r.hosts > 2 ** 28) throw new Error(`hosts must be in [1, 2^28]`);
  if (!(r.variantScale >= 0 && r.variantScale * 0.125 <= 1)) throw new Error(`variantScale must be in [0, 8]`);
  return r;
}

const BUF_BYTES = 4 << 20;

/** A generation run as it goes: the options, the crawl model's state, the counts and the output. */
interface Gen {
  p: Required<Omit<GenOptions, 'out'>>;
  hosts: HostTable;
  /** Pages found so far, per host. */
  pages: Uint32Array;
  rng: Sfc32;
  odds: VariantOdds;
  counts: LinkCounts;
  out: DoubleBuffer;
  /** The written batch's links per variant, URL bytes, and links that stayed on their page's host. */
  variants: Float64Array;
  urlBytes: number;
  intra: number;
}

/** Generates the link file and returns (and writes) its meta. Writes overlap generation (two buffers). */
export async function generateLinks(opts: GenOptions): Promise<GenMeta> {
  const t0 = performance.now();
  const p = resolveGenOptions(opts);
  const toStdout = opts.out === '-';
  const fd = toStdout ? 1 : openSync(opts.out, 'w');
  const g: Gen = {
    p, hosts: new HostTable(p.hosts, p.seed), pages: new Uint32Array(p.hosts), rng: new Sfc32(p.seed), odds: variantOdds(p.variantScale),
    counts: new LinkCounts(), out: new DoubleBuffer(fd, BUF_BYTES), variants: new Float64Array(VARIANT_NAMES.length), urlBytes: 0, intra: 0,
  };
  for (let b = 1; b <= p.batch; b++) await generateBatch(g, b === p.batch, b === 1 ? 1 : 2);
  await g.out.done();
  if (!toStdout) closeSync(fd);
  const meta = genMeta(g, t0);
  if (!toStdout) writeFileSync(`${opts.out}.meta.json`, JSON.stringify(meta, null, 2) + '\n');
  return meta;
}

/**
 * One batch of p.links links, page by page: a source page on a popular host,
 * then its out-links. Only the last batch (`write`) goes to the output; an
 * earlier one is drawn and counted, so the last continues the same crawl.
 */
async function generateBatch(g: Gen, write: boolean, tag: number): Promise<void> {
  const { p, hosts, pages, rng, odds, counts, out, variants } = g;
  const lo = Math.max(1, Math.round(p.linksPerPage / 3));
  const span = Math.round(p.linksPerPage * 4 / 3) + 1;
  const tsv = p.format === 'tsv';
  const src = Buffer.allocUnsafe(1024);
  const h64 = new Uint32Array(2);
  let buf = out.buf;
  let pos = 0, urlBytes = 0, intra = 0;
  counts.startBatch();
  const { exact, canon, pageSet, uniq, fresh } = counts;
  let left = p.links;
  while (left > 0) {
    const sh = zipfIndex(rng.float(), p.hosts);
    if (pages[sh] === 0) pages[sh] = 1; // a seed page
    const sj = rng.int(pages[sh]!);
    const srcLen = tsv && write ? writeUrl(hosts, src, 0, sh, sj, 0, 0) : 0;
    const k = Math.min(left, lo + rng.int(span));
    left -= k;
    for (let i = 0; i < k; i++) {
      const isIntra = rng.float() < p.intraHost;
      const th = isIntra ? sh : zipfIndex(rng.float(), p.hosts);
      const tj = pickPage(rng, pages, th, p.newFraction);
      const v = pickVariant(rng, odds, hosts, th, tj);
      const rnd = rng.next();
      if (write && tsv) {
        for (let q = 0; q < srcLen; q++) buf[pos + q] = src[q]!;
        pos += srcLen;
        buf[pos++] = 9;
      }
      const us = pos;
      pos = writeUrl(hosts, buf, pos, th, tj, v, rnd);
      if (p.count) hashBytes64(buf, us, pos, h64);
      if (write) {
        urlBytes += pos - us;
        buf[pos++] = 10;
        variants[v]++;
        if (isIntra || th === sh) intra++;
        if (pos > BUF_BYTES - 4096) {
          buf = await out.flush(pos);
          pos = 0;
        }
      } else pos = 0;
      if (!p.count) continue;
      count(exact.addTag(h64[0]!, h64[1]!, tag), tag, uniq, fresh, 'exact');
      count(canon.addTag(th * 4 + defaultPolicyBits(v), tj, tag), tag, uniq, fresh, 'defaultPolicy');
      count(pageSet.addTag(th, tj, tag), tag, uniq, fresh, 'pages');
    }
  }
  if (write && pos > 0) await out.flush(pos);
  g.urlBytes += urlBytes;
  g.intra += intra;
}

/** The link's target page on host `th`: a new one (p.newFraction of links, or the host's first), else half popular (rank 0 = home page), half recently found. */
function pickPage(rng: Sfc32, pages: Uint32Array, th: number, newFraction: number): number {
  const c = pages[th]!;
  if (c === 0 || rng.float() < newFraction) {
    pages[th] = c + 1;
    return c;
  }
  const u = rng.float();
  return (rng.next() & 1) === 0 ? zipfIndex(u, c) : c - 1 - zipfIndex(u, c < 1000 ? c : 1000);
}

/** Cumulative rates of variants 1..9 (scaled), their sum, and the share of root links written without the slash. */
interface VariantOdds {
  cum: Float64Array;
  any: number;
  rootNoSlash: number;
}

/** The variant odds at `scale` times the base rates. */
function variantOdds(scale: number): VariantOdds {
  const cum = new Float64Array(VARIANT_RATES.length);
  for (let v = 1, acc = 0; v < VARIANT_RATES.length; v++) cum[v] = acc += VARIANT_RATES[v]! * scale;
  return { cum, any: cum[cum.length - 1]!, rootNoSlash: Math.min(1, ROOT_NO_SLASH_RATE * scale) };
}

/** The link's surface variant (0: none); no `www.` on a host with a subdomain, no slashless root but on page 0. */
function pickVariant(rng: Sfc32, odds: VariantOdds, hosts: HostTable, th: number, tj: number): number {
  let v = 0;
  const uv = rng.float();
  if (uv < odds.any) {
    v = 1;
    while (uv >= odds.cum[v]!) v++;
    if (v === V_WWW && (hosts.flags[th]! & 4) !== 0) v = 0;
  } else if (tj === 0 && uv - odds.any < odds.rootNoSlash * (1 - odds.any)) v = V_ROOTNOSLASH;
  return v;
}

/** The meta of the file just written (counts of the last batch; batch 2: also what is new to batch 1's store). */
function genMeta(g: Gen, t0: number): GenMeta {
  const { p, counts } = g;
  const uniq = counts.uniq;
  const n = p.links || 1;
  return {
    generator: 'drum-gen-links',
    version: GENERATOR_VERSION,
    params: p,
    links: p.links,
    bytes: g.out.bytes,
    avgUrlBytes: round(g.urlBytes / n),
    intraHostFraction: round(g.intra / n),
    variants: Object.fromEntries(VARIANT_NAMES.map((name, i) => [name, g.variants[i]!])),
    unique: uniq,
    uniqueFraction: { exact: round(uniq.exact / n), defaultPolicy: round(uniq.defaultPolicy / n), pages: round(uniq.pages / n) },
    newVsPrevious: p.batch === 2 ? counts.fresh : null,
    elapsedMs: Math.round(performance.now() - t0),
  };
}

const round = (x: number): number => Math.round(x * 1e6) / 1e6;

async function main(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      links: { type: 'string', default: '10000000' },
      seed: { type: 'string', default: '1' },
      format: { type: 'string', default: 'lines' },
      out: { type: 'string' },
      batch: { type: 'string', default: '1' },
      'new-fraction': { type: 'string' },
      'intra-host': { type: 'string' },
      'links-per-page': { type: 'string' },
      hosts: { type: 'string' },
      'variant-scale': { type: 'string' },
      'no-count': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || !values.out) {
    process.stderr.write('usage: node dist/scripts/gen-links.js --links N --seed S --format lines|tsv --out FILE [--batch 2]\n' +
      '       [--new-fraction 0.2] [--intra-host 0.8] [--links-per-page 60] [--hosts H] [--variant-scale 1] [--no-count]\n');
    process.exit(values.help ? 0 : 2);
  }
  const num = (s: string | undefined): number | undefined => (s === undefined ? undefined : Number(s));
  const meta = await generateLinks({
    links: Number(values.links), seed: Number(values.seed), format: values.format as 'lines' | 'tsv', out: values.out,
    batch: Number(values.batch) as 1 | 2, newFraction: num(values['new-fraction']), intraHost: num(values['intra-host']),
    linksPerPage: num(values['links-per-page']), hosts: num(values.hosts), variantScale: num(values['variant-scale']),
    count: !values['no-count'],
  });
  if (values.out !== '-') process.stderr.write(JSON.stringify({ ...meta, params: undefined }) + '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).catch((e: unknown) => {
    process.stderr.write(`gen-links: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
