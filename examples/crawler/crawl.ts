// The example crawler: Crawlee's CheerioCrawler with drum as its URL-seen
// set and a durable frontier (frontier.ts) as its queue. Each fetched page's
// links go to drum.add(links, { base: page URL, beforeCommit }): the hook
// gets the URLs drum calls new before drum commits them as seen, applies the
// crawl rules, and appends the admitted ones to the frontier's queued.log
// (fdatasync), so a URL is never seen without being queued. Only those are
// enqueued in Crawlee, under drum's canonical URL as its uniqueKey; Crawlee's
// own queue stays in memory (persistStorage false). Once drum has stored a
// page's links the page is recorded done. A crawl that starts with a
// frontier left by a killed one fetches first what it had queued and not
// done: every URL drum called new and admitted is fetched at least once
// across kill -9s and restarts; a page in flight at a kill is fetched again.
// Two crawl rules: only URLs of the start URL's origin are fetched (every
// link is still recorded in drum), and at most `maxPagesPerPath` URLs that
// differ only in their query string are fetched per path (a calendar's
// ?month=… pages go on without end), counted across restarts.
// REQUIRES: the devDependency @crawlee/cheerio (npm ci installs it).

import { CheerioCrawler, Configuration, log } from '@crawlee/cheerio';
import { resolve } from 'node:path';
import { Drum, type DrumOptions } from '../../src/index.js';
import { Frontier } from './frontier.js';

export interface CrawlOptions {
  /** Where the crawl starts; its origin is the site. */
  start: string;
  /** drum's state directory: the crawl's URL-seen set, kept across crawls. */
  stateDir: string;
  /** The crawl's frontier (queued.log, done.log), kept across crawls. Default `<stateDir>.frontier`. */
  frontierDir?: string;
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
  /** URLs an earlier crawl queued and did not fetch: this crawl fetched them first. */
  resumed: number;
  /** Pages earlier crawls into this frontier fetched. */
  fetchedBefore: number;
  frontierDir: string;
}

export async function crawl(o: CrawlOptions): Promise<CrawlResult> {
  log.setLevel(log.LEVELS.WARNING);
  const frontierDir = o.frontierDir ?? `${resolve(o.stateDir)}.frontier`;
  const res: CrawlResult = { fetched: [], failed: [], offSite: 0, overBudget: 0, duplicates: 0, rejected: 0, resumed: 0, fetchedBefore: 0, frontierDir };
  const drum = await Drum.open(o.stateDir, o.drum); // its lock keeps a second crawler off the frontier too
  let frontier: Frontier | null = null;
  try {
    frontier = Frontier.open(frontierDir);
    const f = frontier;
    const rules = new CrawlRules(o.start, o.maxPagesPerPath ?? 20, res, f.queuedUrls());
    /** A beforeCommit hook: the URLs drum calls new that the rules admit go to `into` and, durably, to the frontier. */
    const enqueue = (into: string[]) => async (urls: readonly string[]): Promise<void> => {
      const admitted = f.fresh(urls).filter((u) => rules.admit(u));
      into.push(...admitted);
      await f.queue(admitted);
    };
    const requests = (urls: readonly string[]) => urls.map((url) => ({ url, uniqueKey: url }));
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
        const found: string[] = [];
        // One call per page: drum stores the page's new links together with other pages' in flight (group commit),
        // and the frontier syncs their hooks' appends together.
        const added = drum.add(hrefs, { base: request.loadedUrl ?? request.url, beforeCommit: enqueue(found) });
        // What the hook queued is fetched even if the round then failed: the frontier has it, and will not queue it again.
        const r = await added.finally(() => crawler.addRequests(requests(found)));
        res.duplicates += r.duplicates;
        res.rejected += r.rejects.length;
        f.done(request.url); // its links are stored and queued: a restart need not fetch it again
      },
      failedRequestHandler({ request }) {
        res.failed.push(request.url); // not done: a restarted crawl tries it again
      },
    }, new Configuration({ persistStorage: false }));
    const first: string[] = [];
    await drum.add([o.start], { beforeCommit: enqueue(first) });
    res.resumed = f.pending.length;
    res.fetchedBefore = f.doneBefore;
    await crawler.run(requests([...f.pending, ...first]));
  } finally {
    await frontier?.close();
    await drum.close();
  }
  return res;
}

/** The crawl rules, applied to drum's canonical URLs; the query-string budget counts what earlier crawls queued. */
class CrawlRules {
  private readonly origin: string;
  private readonly perPath = new Map<string, number>();

  constructor(start: string, private readonly max: number, private readonly res: CrawlResult, queued: Iterable<string>) {
    this.origin = new URL(start).origin;
    for (const url of queued) {
      const u = new URL(url);
      if (u.search !== '') this.perPath.set(u.pathname, (this.perPath.get(u.pathname) ?? 0) + 1);
    }
  }

  admit(url: string): boolean {
    const u = new URL(url);
    if (u.origin !== this.origin) {
      this.res.offSite++;
      return false;
    }
    if (u.search === '') return true;
    const n = this.perPath.get(u.pathname) ?? 0;
    if (n >= this.max) {
      this.res.overBudget++;
      return false;
    }
    this.perPath.set(u.pathname, n + 1);
    return true;
  }
}
