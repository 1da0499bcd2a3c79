// Seeded, deterministic WARC files with known duplicate groups, for content
// dedup's accuracy and speed figures (docs/content.md): articles on hosts
// that share a template (pages of one host that must NOT be flagged), exact
// copies under URL variants of the same host (ref=, sessionid=, index.html,
// trailing slash: what --suggest-rules should learn), near copies (1-10 % of
// the words changed, paragraphs reordered, another date and ad block), and
// records that are not documents (request records, images, 404 pages).
// 1 % of the responses declare a wrong WARC-Payload-Digest, 1 % none.
// Writes OUT (WARC/1.0; gzip member per record when OUT ends in .gz) and
// OUT.truth.tsv: url<TAB>group<TAB>role<TAB>detail (role original | exact |
// near | unique; detail the URL variant or the fraction changed).
// Same options + seed => same bytes. Not part of drum.

import { closeSync, openSync, writeSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Sfc32 } from './lib/models/prng.js';
import { type Article, type Host, PageModel, URL_VARIANTS, articleUrl, renderPage, urlVariant } from './lib/models/page-model.js';

export interface GenWarcOptions {
  docs: number;
  seed: number;
  out: string;
  /** Share of articles with exact copies (1-2 each). Default 0.15. */
  exactShare?: number;
  /** Share of articles with near copies (1-2 each). Default 0.15. */
  nearShare?: number;
  /** Articles per host. Default 40. */
  perHost?: number;
}

export interface TruthRow {
  url: string;
  group: number;
  role: 'original' | 'exact' | 'near' | 'unique';
  detail: string;
}

export interface GenWarcMeta {
  docs: number;
  records: number;
  groups: number;
  exactCopies: number;
  nearCopies: number;
  wrongDigests: number;
  absentDigests: number;
}

interface Planned {
  row: TruthRow;
  html: string;
}

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function base32(b: Buffer): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const x of b) {
    acc = ((acc << 8) | x) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += B32[(acc >>> bits) & 31];
    }
  }
  return out;
}

/** The documents, in the order they go into the file (shuffled, so copies come before or after originals). */
export function planDocs(o: GenWarcOptions): Planned[] {
  const rng = new Sfc32(o.seed);
  const model = new PageModel(rng);
  const perHost = o.perHost ?? 40;
  const hosts: Host[] = [];
  const docs: Planned[] = [];
  let group = 0;
  let id = 0;
  const exactShare = o.exactShare ?? 0.15;
  const nearShare = o.nearShare ?? 0.15;
  while (docs.length < o.docs) {
    if (hosts.length === 0 || id % perHost === 0) hosts.push(model.host(hosts.length));
    const host = hosts[hosts.length - 1]!;
    const a: Article = model.article();
    const url = articleUrl(rng, host, id++, rng.float() < 0.5);
    const adInAside = rng.float() < 0.5;
    const html = renderPage(host, a, adInAside);
    const u = rng.float();
    const g = group++;
    if (u < exactShare) {
      docs.push({ row: { url, group: g, role: 'original', detail: '' }, html });
      const n = 1 + rng.int(2);
      for (let k = 0; k < n; k++) {
        const v = URL_VARIANTS[rng.int(URL_VARIANTS.length)]!;
        const vu = urlVariant(rng, url, v) ?? urlVariant(rng, url, 'ref')!;
        docs.push({ row: { url: vu, group: g, role: 'exact', detail: vu.includes('ref=') && v !== 'ref' ? 'ref' : v }, html });
      }
    } else if (u < exactShare + nearShare) {
      docs.push({ row: { url, group: g, role: 'original', detail: '' }, html });
      const n = 1 + rng.int(2);
      for (let k = 0; k < n; k++) {
        const frac = 0.01 + rng.int(10) / 100;
        const other = rng.float() < 0.5 ? host : hosts[rng.int(hosts.length)]!;
        const nu = articleUrl(rng, other, id++, rng.float() < 0.5);
        docs.push({ row: { url: nu, group: g, role: 'near', detail: frac.toFixed(2) }, html: renderPage(other, model.nearCopy(a, frac), rng.float() < 0.5) });
      }
    } else {
      docs.push({ row: { url, group: g, role: 'unique', detail: '' }, html });
    }
  }
  docs.length = o.docs;
  for (let i = docs.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [docs[i], docs[j]] = [docs[j]!, docs[i]!];
  }
  return docs;
}

function record(type: string, uri: string, contentType: string, block: Buffer, n: number, extra = ''): Buffer {
  const head =
    `WARC/1.0\r\nWARC-Type: ${type}\r\nWARC-Target-URI: ${uri}\r\nWARC-Date: 2008-06-01T00:00:00Z\r\n` +
    `WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-${String(n).padStart(12, '0')}>\r\n${extra}` +
    `Content-Type: ${contentType}\r\nContent-Length: ${block.length}\r\n\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), block, Buffer.from('\r\n\r\n')]);
}

export function generateWarc(o: GenWarcOptions): GenWarcMeta {
  const docs = planDocs(o);
  const rng = new Sfc32(o.seed ^ 0x5eed);
  const gz = o.out.endsWith('.gz');
  const fd = openSync(o.out, 'w');
  const meta: GenWarcMeta = { docs: docs.length, records: 0, groups: 0, exactCopies: 0, nearCopies: 0, wrongDigests: 0, absentDigests: 0 };
  const put = (b: Buffer): void => {
    writeSync(fd, gz ? gzipSync(b) : b);
    meta.records++;
  };
  try {
    put(record('warcinfo', '', 'application/warc-fields', Buffer.from('software: drum gen-warc\r\n'), 0));
    let n = 1;
    const groups = new Set<number>();
    for (const d of docs) {
      if (rng.float() < 0.3) put(record('request', d.row.url, 'application/http; msgtype=request', Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\n\r\n`), n++));
      const body = Buffer.from(d.html);
      const http = Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ${body.length}\r\n\r\n`), body]);
      let digest = `WARC-Payload-Digest: sha1:${base32(createHash('sha1').update(body).digest())}\r\n`;
      const u = rng.float();
      if (u < 0.01) {
        digest = `WARC-Payload-Digest: sha1:${base32(createHash('sha1').update(body).update('x').digest())}\r\n`;
        meta.wrongDigests++;
      } else if (u < 0.02) {
        digest = '';
        meta.absentDigests++;
      }
      put(record('response', d.row.url, 'application/http; msgtype=response', http, n++, digest));
      if (rng.float() < 0.05) {
        const img = Buffer.from(`HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n\r\n\x89PNG....`, 'latin1');
        put(record('response', d.row.url.replace(/\/?$/, '/logo.png'), 'application/http; msgtype=response', img, n++));
      }
      if (rng.float() < 0.02) {
        put(record('response', d.row.url + 'missing', 'application/http; msgtype=response', Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\n\r\n<html>Not found</html>'), n++));
      }
      if (d.row.role === 'exact') meta.exactCopies++;
      if (d.row.role === 'near') meta.nearCopies++;
      if (d.row.role !== 'unique') groups.add(d.row.group);
    }
    meta.groups = groups.size;
  } finally {
    closeSync(fd);
  }
  writeFileSync(`${o.out}.truth.tsv`, docs.map((d) => `${d.row.url}\t${d.row.group}\t${d.row.role}\t${d.row.detail}\n`).join(''));
  return meta;
}

/** OUT.truth.tsv as rows. */
export function parseTruth(text: string): TruthRow[] {
  return text.split('\n').filter((l) => l !== '').map((l) => {
    const [url, group, role, detail] = l.split('\t');
    return { url: url!, group: Number(group), role: role as TruthRow['role'], detail: detail ?? '' };
  });
}

function main(argv: string[]): void {
  const { values } = parseArgs({
    args: argv,
    options: { docs: { type: 'string' }, seed: { type: 'string', default: '1' }, out: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help || !values.out || !values.docs) {
    process.stderr.write('usage: node dist/scripts/gen-warc.js --docs N [--seed S] --out FILE.warc[.gz]\n');
    process.exit(values.help ? 0 : 2);
  }
  const meta = generateWarc({ docs: Number(values.docs), seed: Number(values.seed), out: values.out });
  process.stderr.write(JSON.stringify(meta) + '\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main(process.argv.slice(2));
