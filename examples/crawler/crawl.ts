// The example crawler: Crawlee's CheerioCrawler with drum as its URL-seen
// set. Each fetched page's links go to drum.add(links, { base: page URL });
// only the URLs drum calls new are enqueued, under drum's canonical URL as
// Crawlee's uniqueKey, so Crawlee's own dedup never has anything to decide
// and its request queue stays in memory (persistStorage false): the seen set
// lives in drum's store. Two crawl rules bound it: only URLs of the start
// URL's origin are fetched (every link is still recorded in drum), and at
// most `maxPagesPerPath` URLs that differ only in their query string are
// fetched per path (a calendar's ?month=… pages go on without end).
// REQUIRES: the devDependency @crawlee/cheerio (npm ci installs it).

import { CheerioCrawler, Configuration, log } from '@crawlee/cheerio';
import { Drum, type DrumOptions } from '../../src/index.js';

export interface CrawlOptions {
  /** Where the crawl starts; its origin is the site. */
  start: string;
  /** drum's state directory: the crawl's URL-seen set, kept across crawls. */
  stateDir: string;
  /** Pages fetched at most per path whose URLs differ only in the query string. Default 20. */
  maxPagesPerPath?: number;
  /** Pages in flight. Default 16. */
  maxConcurrency?: number;
  drum?: DrumOptions;
}

export interface CrawlResult {
  /** Every URL the crawler fetched, in the order the handler saw them. */
  fetched: string[];
  /** URLs whose fetch failed. */
  failed: string[];
  /** New URLs of other origins: recorded in drum, never fetched. */
  offSite: number;
  /** New URLs past their path's query-string budget: recorded in drum, never fetched. */
  overBudget: number;
  /** Links drum answered as already seen (duplicates). */
  duplicates: number;
  /** Links drum rejected (mailto:, javascript:, …). */
  rejected: number;
}

export async function crawl(o: CrawlOptions): Promise<CrawlResult> {
  log.setLevel(log.LEVELS.WARNING);
  const origin = new URL(o.start).origin;
  const max = o.maxPagesPerPath ?? 20;
  const perPath = new Map<string, number>();
  const res: CrawlResult = { fetched: [], failed: [], offSite: 0, overBudget: 0, duplicates: 0, rejected: 0 };
  /** The crawl rules, applied to drum's canonical URLs. */
  const admit = (url: string): boolean => {
    const u = new URL(url);
    if (u.origin !== origin) {
      res.offSite++;
      return false;
    }
    if (u.search === '') return true;
    const n = perPath.get(u.pathname) ?? 0;
    if (n >= max) {
      res.overBudget++;
      return false;
    }
    perPath.set(u.pathname, n + 1);
    return true;
  };
  const requests = (urls: string[]) => urls.filter(admit).map((url) => ({ url, uniqueKey: url }));
  const drum = await Drum.open(o.stateDir, o.drum);
  try {
    const crawler = new CheerioCrawler({
      // A fixed number of pages in flight: a local site needs no autoscaling (nor browser-like headers, below).
      maxConcurrency: o.maxConcurrency ?? 16,
      minConcurrency: o.maxConcurrency ?? 16,
      maxRequestRetries: 0,
      useSessionPool: false,
      preNavigationHooks: [(_ctx, gotOptions) => {
        gotOptions.useHeaderGenerator = false;
      }],
      async requestHandler({ request, $ }) {
        res.fetched.push(request.url);
        const hrefs = $('a[href]').map((_, a) => $(a).attr('href') ?? '').get();
        // One call per page: drum stores the page's new links together with other pages' in flight (group commit).
        const r = await drum.add(hrefs, { base: request.loadedUrl ?? request.url });
        res.duplicates += r.duplicates;
        res.rejected += r.rejects.length;
        await crawler.addRequests(requests(r.newUrls));
      },
      failedRequestHandler({ request }) {
        res.failed.push(request.url);
      },
    }, new Configuration({ persistStorage: false }));
    const first = await drum.add([o.start]);
    await crawler.run(requests(first.newUrls));
  } finally {
    await drum.close();
  }
  return res;
}
