// Seeded, deterministic synthetic link stream for the benchmark, shaped by
// published crawl figures (docs/performance.md): ~60 links per parsed page,
// mostly intra-host, Zipf-like host and page popularity, a tunable share of
// links to never-seen pages, and low-rate surface variants that
// canonicalization folds. Writes lines or TSV (source<TAB>target) plus a
// FILE.meta.json with the measured unique fractions. Batch 2 continues the
// same crawl after batch 1 (same seed), so it links to batch 1's URLs too.
// Does not canonicalize anything itself. Same options + seed => same bytes.

import { closeSync, openSync, write as fsWrite, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Sfc32, zipfIndex } from './lib/prng.js';
import { TaggedSet64, hashBytes64 } from './lib/hashset64.js';
import {
  HostTable, writeUrl, VARIANT_NAMES, VARIANT_RATES, ROOT_NO_SLASH_RATE, V_ROOTNOSLASH, V_SCHEME, V_WWW,
} from './lib/link-model.js';

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

export interface UniqueCounts {
  /** Distinct exact byte strings (what sort -u and --canonical none count). */
  exact: number;
  /** Distinct URLs under drum's default policy (folds case, port, fragment, tracking, session; keeps scheme and www). */
  defaultPolicy: number;
  /** Distinct pages (all variants folded, incl. the optional www and https rules). */
  pages: number;
}

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

/** Generates the link file and returns (and writes) its meta. Writes overlap generation (two buffers). */
export async function generateLinks(opts: GenOptions): Promise<GenMeta> {
  const t0 = performance.now();
  const p = resolveGenOptions(opts);
  const toStdout = opts.out === '-';
  const fd = toStdout ? 1 : openSync(opts.out, 'w');
  const hosts = new HostTable(p.hosts, p.seed);
  const pages = new Uint32Array(p.hosts);
  const rng = new Sfc32(p.seed);
  const exact = new TaggedSet64(), canon = new TaggedSet64(), pageSet = new TaggedSet64();
  const cum = new Float64Array(VARIANT_RATES.length);
  for (let v = 1, acc = 0; v < VARIANT_RATES.length; v++) cum[v] = acc += VARIANT_RATES[v]! * p.variantScale;
  const anyVariant = cum[cum.length - 1]!;
  const rootNoSlash = Math.min(1, ROOT_NO_SLASH_RATE * p.variantScale);
  const lo = Math.max(1, Math.round(p.linksPerPage / 3));
  const span = Math.round(p.linksPerPage * 4 / 3) + 1;
  const tsv = p.format === 'tsv';
  const bufs = [Buffer.allocUnsafe(BUF_BYTES), Buffer.allocUnsafe(BUF_BYTES)];
  let buf = bufs[0]!;
  let pending: Promise<void> = Promise.resolve();
  let flips = 0;
  const src = Buffer.allocUnsafe(1024);
  const h64 = new Uint32Array(2);
  const variants = new Float64Array(VARIANT_NAMES.length);
  let bytes = 0, urlBytes = 0, intra = 0;
  let uniq: UniqueCounts = { exact: 0, defaultPolicy: 0, pages: 0 };
  let fresh: UniqueCounts = { exact: 0, defaultPolicy: 0, pages: 0 };

  for (let b = 1; b <= p.batch; b++) {
    const write = b === p.batch;
    const tag = b === 1 ? 1 : 2;
    uniq = { exact: 0, defaultPolicy: 0, pages: 0 };
    fresh = { exact: 0, defaultPolicy: 0, pages: 0 };
    let pos = 0;
    let left = p.links;
    while (left > 0) {
      // One parsed page: a source on a popular host, then its out-links.
      const sh = zipfIndex(rng.float(), p.hosts);
      if (pages[sh] === 0) pages[sh] = 1; // a seed page
      const sj = rng.int(pages[sh]!);
      let srcLen = 0;
      if (tsv && write) srcLen = writeUrl(hosts, src, 0, sh, sj, 0, 0);
      const k = Math.min(left, lo + rng.int(span));
      left -= k;
      for (let i = 0; i < k; i++) {
        const isIntra = rng.float() < p.intraHost;
        const th = isIntra ? sh : zipfIndex(rng.float(), p.hosts);
        let tj: number;
        const c = pages[th]!;
        if (c === 0 || rng.float() < p.newFraction) {
          tj = c;
          pages[th] = c + 1;
        } else {
          const u = rng.float();
          // Half popular pages (rank 0 = home page), half recently found ones.
          tj = (rng.next() & 1) === 0 ? zipfIndex(u, c) : c - 1 - zipfIndex(u, c < 1000 ? c : 1000);
        }
        let v = 0;
        const uv = rng.float();
        if (uv < anyVariant) {
          v = 1;
          while (uv >= cum[v]!) v++;
          if (v === V_WWW && (hosts.flags[th]! & 4) !== 0) v = 0; // no www. on subdomain hosts
        } else if (tj === 0 && uv - anyVariant < rootNoSlash * (1 - anyVariant)) v = V_ROOTNOSLASH;
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
            await pending;
            pending = writeAll(fd, buf, pos);
            bytes += pos;
            buf = bufs[++flips & 1]!;
            pos = 0;
          }
        } else pos = 0;
        if (!p.count) continue;
        const flip = (v === V_SCHEME ? 1 : 0) | (v === V_WWW ? 2 : 0);
        count(exact.addTag(h64[0]!, h64[1]!, tag), tag, uniq, fresh, 'exact');
        count(canon.addTag(th * 4 + flip, tj, tag), tag, uniq, fresh, 'defaultPolicy');
        count(pageSet.addTag(th, tj, tag), tag, uniq, fresh, 'pages');
      }
    }
    if (write && pos > 0) {
      await pending;
      pending = writeAll(fd, buf, pos);
      bytes += pos;
    }
  }
  await pending;
  if (!toStdout) closeSync(fd);
  const n = p.links || 1;
  const meta: GenMeta = {
    generator: 'drum-gen-links',
    version: GENERATOR_VERSION,
    params: p,
    links: p.links,
    bytes,
    avgUrlBytes: round(urlBytes / n),
    intraHostFraction: round(intra / n),
    variants: Object.fromEntries(VARIANT_NAMES.map((name, i) => [name, variants[i]!])),
    unique: uniq,
    uniqueFraction: { exact: round(uniq.exact / n), defaultPolicy: round(uniq.defaultPolicy / n), pages: round(uniq.pages / n) },
    newVsPrevious: p.batch === 2 ? fresh : null,
    elapsedMs: Math.round(performance.now() - t0),
  };
  if (!toStdout) writeFileSync(`${opts.out}.meta.json`, JSON.stringify(meta, null, 2) + '\n');
  return meta;
}

/** Tallies one insert: unique within the written batch, and (batch 2) new to the store. */
function count(prev: number, tag: number, uniq: UniqueCounts, fresh: UniqueCounts, k: keyof UniqueCounts): void {
  if ((prev & tag) === 0) {
    uniq[k]++;
    if (prev === 0) fresh[k]++;
  }
}

/** Writes buf[0, len) fully (looping on short writes); resolves when done. */
function writeAll(fd: number, buf: Buffer, len: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const step = (off: number): void => {
      if (off >= len) return resolve();
      fsWrite(fd, buf, off, len - off, null, (err, n) => (err ? reject(err) : step(off + n)));
    };
    step(0);
  });
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
