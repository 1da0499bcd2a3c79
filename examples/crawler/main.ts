// Runs the example crawler: starts the synthetic site on 127.0.0.1 (or,
// with --start, crawls a site already running), crawls it into a drum
// store and a frontier, prints what was fetched and what the site saw, and
// stops the site. Usage:
//   node dist/examples/crawler/main.js [--pages N] [--state DIR] [--frontier DIR] [--port P | --start URL]
// A crawl killed part-way resumes when run again with the same --state (and
// --frontier, default DIR.frontier) and the same site: it fetches what it
// had queued and not fetched, then goes on. A run after a complete crawl
// fetches nothing: drum remembers (without --port or --start the site takes
// a free port, so each run is a new site). Does not obey robots.txt or
// throttle: point --start only at a server of your own.

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { crawl } from './crawl.js';
import { startSite } from './site.js';

const { values } = parseArgs({
  options: {
    pages: { type: 'string', default: '2000' }, state: { type: 'string' }, frontier: { type: 'string' },
    port: { type: 'string', default: '0' }, start: { type: 'string' },
  },
});
const site = values.start === undefined ? await startSite({ pages: Number(values.pages), port: Number(values.port) }) : null;
const start = values.start ?? site!.url;
const stateDir = values.state ?? join(mkdtempSync(join(tmpdir(), 'drum-crawl-')), 'state');
try {
  const t0 = performance.now();
  const r = await crawl({ start, stateDir, frontierDir: values.frontier });
  const s = (performance.now() - t0) / 1000;
  if (site !== null) console.log(`site ${site.url}: ${site.articles.length} article pages and an endless calendar`);
  if (r.resumed > 0 || r.fetchedBefore > 0) console.log(`resumed: ${r.resumed} URLs queued and not fetched by earlier crawls (which fetched ${r.fetchedBefore} pages)`);
  console.log(`fetched ${r.fetched.length} pages in ${s.toFixed(1)} s (${r.failed.length} failed)`);
  if (site !== null) console.log(`the site saw ${site.log.length} requests, ${new Set(site.log).size} distinct`);
  console.log(`links: ${r.duplicates} already seen, ${r.rejected} rejected, ${r.offSite} new off-site (recorded, not fetched), ${r.overBudget} over a path's query budget`);
  console.log(`drum store: ${stateDir}; frontier: ${r.frontierDir}`);
} finally {
  await site?.close();
}
