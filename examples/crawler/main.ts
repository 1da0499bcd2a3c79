// Runs the example crawler against the synthetic site: starts the site on
// 127.0.0.1, crawls it into a drum store, prints what was fetched and what
// the site saw, and stops the site. Usage:
//   node dist/examples/crawler/main.js [--pages N] [--state DIR] [--port P]
// A second run with the same --state and --port fetches nothing: drum
// remembers (without --port the site takes a free port, so each run is a new site).

import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { crawl } from './crawl.js';
import { startSite } from './site.js';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '2000' }, state: { type: 'string' }, port: { type: 'string', default: '0' } } });
const site = await startSite({ pages: Number(values.pages), port: Number(values.port) });
const stateDir = values.state ?? join(mkdtempSync(join(tmpdir(), 'drum-crawl-')), 'state');
try {
  const t0 = performance.now();
  const r = await crawl({ start: site.url, stateDir });
  const s = (performance.now() - t0) / 1000;
  const distinct = new Set(site.log).size;
  console.log(`site ${site.url}: ${site.articles.length} article pages and an endless calendar`);
  console.log(`fetched ${r.fetched.length} pages in ${s.toFixed(1)} s (${r.failed.length} failed); the site saw ${site.log.length} requests, ${distinct} distinct`);
  console.log(`links: ${r.duplicates} already seen, ${r.rejected} rejected, ${r.offSite} new off-site (recorded, not fetched), ${r.overBudget} over a path's query budget`);
  console.log(`drum store: ${stateDir}`);
} finally {
  await site.close();
}
