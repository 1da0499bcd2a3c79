// A synthetic web site for the example crawler, served by node:http on
// 127.0.0.1 (a free port): `pages` article pages /p/0 .. /p/<pages-1>, every
// one reachable from / through a binary tree of links, each also linking to
// a few random others written the ways real pages write links — relative
// (`../p/7`, `7`), absolute with the host in upper case, with the default
// port spelled out on off-site links, with a #fragment, with utm_* tracking
// parameters — and to a few off-site URLs the crawler must never request.
// /calendar?month=YYYY-MM is a trap: every month links to the next and the
// previous one, without end. Every request is logged (method, path and query
// as received). Deterministic for a given seed. Does not crawl anything.

import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Site {
  /** The site's root URL, `http://localhost:<port>/`. */
  url: string;
  port: number;
  /** Every request received, in order: path and query as sent. */
  log: string[];
  /** The paths of every page reachable from / without entering the calendar. */
  articles: string[];
  close(): Promise<void>;
}

export interface SiteOptions {
  pages?: number;
  seed?: number;
  /** Random links per page on top of the tree links. Default 6. */
  extraLinks?: number;
  /** The port to listen on; its URLs name it, so a second run on the same port is the same site. Default 0: a free port. */
  port?: number;
}

/** Off-site links, in the spellings pages use; the crawler records them and never requests them. */
export const OFF_SITE = ['http://Example.COM:80/about', 'https://example.com:443/about#team', 'http://example.com/about?utm_source=site', 'mailto:editor@example.com'];

export async function startSite(opts: SiteOptions = {}): Promise<Site> {
  const pages = opts.pages ?? 2000;
  const extra = opts.extraLinks ?? 6;
  const seed = opts.seed ?? 1;
  const log: string[] = [];
  let port = 0;
  const server = http.createServer((req, res) => {
    log.push(req.url ?? '');
    const u = new URL(req.url ?? '/', 'http://localhost');
    const body = render(u, pages, extra, seed, port);
    if (body === null) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${port}/`, port, log,
    articles: ['/', ...Array.from({ length: pages }, (_, i) => `/p/${i}`)],
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

function render(u: URL, pages: number, extra: number, seed: number, port: number): string | null {
  if (u.pathname === '/') return page('Home', ['p/0', 'p/1', '/calendar?month=2024-01', ...OFF_SITE]);
  if (u.pathname === '/calendar') {
    const m = /^(\d{4})-(\d\d)$/.exec(u.searchParams.get('month') ?? '');
    if (m === null) return null;
    const t = Number(m[1]) * 12 + Number(m[2]) - 1;
    const month = (k: number): string => `${Math.floor(k / 12)}-${String((k % 12) + 1).padStart(2, '0')}`;
    return page(`Calendar ${month(t)}`, [`?month=${month(t + 1)}`, `/calendar?month=${month(t - 1)}`, '/']);
  }
  const m = /^\/p\/(\d+)$/.exec(u.pathname);
  if (m === null || Number(m[1]) >= pages) return null;
  const i = Number(m[1]);
  const links: string[] = [];
  for (const c of [2 * i + 2, 2 * i + 3]) if (c < pages) links.push(`${c}`); // the tree: relative to /p/
  let r = (seed * 0x9e3779b1 + i * 0x85ebca6b) >>> 0;
  for (let k = 0; k < extra; k++) {
    r = (Math.imul(r ^ (r >>> 15), 0x2c1b3c6d) + 0x6d2b79f5) >>> 0;
    const j = r % pages;
    const spellings = [
      `../p/${j}`, `/p/${j}#comments`, `http://LOCALHOST:${port}/p/${j}`, `http://localhost:${port}/p/${j}?utm_source=feed&utm_medium=rss`,
      `HTTP://LocalHost:${port}/p/${j}?utm_campaign=x#top`, `${j}`,
    ];
    links.push(spellings[k % spellings.length]!);
  }
  links.push('/', OFF_SITE[i % OFF_SITE.length]!);
  return page(`Article ${i}`, links);
}

function page(title: string, links: string[]): string {
  const items = links.map((l) => `<li><a href="${l.replace(/&/g, '&amp;')}">${l.replace(/&/g, '&amp;')}</a></li>`).join('\n');
  return `<!doctype html>\n<html><head><title>${title}</title></head><body><h1>${title}</h1><ul>\n${items}\n</ul></body></html>\n`;
}
