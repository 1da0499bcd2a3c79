// What the forget tests share: small-store options, an ingest of a list of
// URLs that returns the ones found new, the catalog's host counts, and URLs
// of one host. Test-only; makes no assertion.
// REQUIRES: `dir` is a state directory the test owns (tempDir); ingestUrls
// writes its input and output beside it.

import * as fs from 'node:fs';
import { join } from 'node:path';
import { Catalog } from '../../../../src/catalog/catalog.js';
import type { Drum } from '../../../../src/engine/drum.js';
import type { DrumOptions } from '../../../../src/options.js';

/** Small chunks and sort areas, no worker, no fsync: many merges from few URLs. */
export const OPTS: DrumOptions = { workers: 0, fsync: false, chunkBytes: 1024, tuning: { workerDispatchMin: 0, sortEntries: 40 } };

/** Ingests `urls` as a file; returns the URLs the run found new. */
export async function ingestUrls(d: Drum, dir: string, urls: string[], name = `in-${Math.random().toString(36).slice(2)}.txt`): Promise<string[]> {
  const file = join(dir, '..', name);
  fs.writeFileSync(file, urls.map((u) => `${u}\n`).join(''));
  const out: string[] = [];
  const r = await d.ingest({ inputs: [file], outDir: join(dir, '..', `out-${Math.random().toString(36).slice(2)}`) });
  for (const f of r.outputFiles) out.push(...fs.readFileSync(join(r.outDir, f), 'utf8').split('\n').filter((l) => l !== ''));
  return out;
}

/** The catalog's unique-URL count per host (up to 100 hosts). */
export async function hostCounts(dir: string): Promise<Map<string, number>> {
  const c = await Catalog.open(dir, { readOnly: true });
  try {
    return new Map((await c.topHosts(100)).map((h) => [h.host, h.uniqueUrls]));
  } finally {
    await c.close();
  }
}

/** `n` URLs of one host. */
export const urlsOf = (host: string, n: number): string[] => Array.from({ length: n }, (_, i) => `http://${host}/p${i}`);
