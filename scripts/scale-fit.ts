// Bench-only: fits IRLbot's cost model to a streamed scale run's slices
// (scale-run.ts): a slice of L links into a store of S URLs costs
//   t(slice) = a + b·S
// (a: reading, canonicalizing and routing the slice's links, which does not
// depend on the store; b·S: the merge, which reads and rewrites every bucket
// file the slice touches, so it grows linearly with the store). Least squares
// over the slices, on wall time, CPU time and the report's merge stage alone,
// with R². Then says where one machine stops: the store size at which a
// slice's merge costs as much as the rest of the slice (S = a/b, after which
// the machine spends more time rewriting the store than reading links), the
// store at which the disk is full (8 B per stored URL, twice during a commit,
// plus the slice's work space and outputs), and the time per link at 10^9
// and 10^10 links the fit predicts. Reads JSON, prints text, never judges.
// Usage (after `tsc -p .`):
//   node dist/scripts/scale-fit.js FILE.json [--disk-bytes N]
// FILE is a scale-run JSON (slices) or a bench JSON (scaleSlices.slices).

import { readFileSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import type { SliceRow } from './scale-run.js';

export interface LinearFit {
  /** Seconds per slice with an empty store. */
  a: number;
  /** Seconds per stored URL per slice. */
  b: number;
  r2: number;
  n: number;
}

export interface ScaleFit {
  sliceLinks: number;
  wall: LinearFit | null;
  cpu: LinearFit | null;
  merge: LinearFit | null;
  /** Store size (URLs) where the slice's merge takes as long as the rest of it (wall fit): a / b. */
  mergeDominatesAtUrls: number | null;
  /** New URLs per link over the run (to turn store sizes into links). */
  newPerLink: number;
  /** Links at which the store reaches mergeDominatesAtUrls. */
  mergeDominatesAtLinks: number | null;
  /** Bytes of disk per stored URL while a commit rewrites the store (old + new key files). */
  diskBytesPerUrl: number;
  /** Store size at which the disk given (or the state directory's free space plus the state) is full. */
  diskFullAtUrls: number | null;
  /** Predicted wall ns per link, cumulative, at 10^8, 10^9 and 10^10 links (the fit summed over the slices). */
  predictedNsPerLink: Record<string, number>;
}

/** Least-squares fit of y = a + b·x; null with fewer than 2 distinct x. */
export function fitLine(xs: number[], ys: number[]): LinearFit | null {
  const n = xs.length;
  if (n < 2) return null;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxx = 0, sxy = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i]! - mx) ** 2;
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    syy += (ys[i]! - my) ** 2;
  }
  if (sxx === 0) return null;
  const b = sxy / sxx;
  const a = my - b * mx;
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { a, b, r2, n };
}

/** Cumulative wall per link after `links` links, summing the fitted slice times over a store growing at newPerLink. */
function predictNs(f: LinearFit, sliceLinks: number, newPerLink: number, links: number): number {
  let t = 0;
  for (let done = 0; done < links; done += sliceLinks) t += f.a + f.b * done * newPerLink;
  return (t * 1e9) / links;
}

export function fitSlices(slices: SliceRow[], diskBytes: number | null): ScaleFit {
  // The first slice also pays the store's creation; fit from the second on when there are enough.
  const rows = slices.length >= 4 ? slices.slice(1) : slices;
  const x = rows.map((r) => r.storeUrlsBefore);
  const sliceLinks = slices[0]?.links ?? 0;
  const wall = fitLine(x, rows.map((r) => r.wallMs / 1000));
  const cpuRows = rows.filter((r) => r.cpuMs !== null);
  const cpu = fitLine(cpuRows.map((r) => r.storeUrlsBefore), cpuRows.map((r) => r.cpuMs! / 1000));
  const mRows = rows.filter((r) => typeof r.mergeMs === 'number');
  const merge = fitLine(mRows.map((r) => r.storeUrlsBefore), mRows.map((r) => r.mergeMs! / 1000));
  const last = slices.at(-1);
  const links = last ? last.linksBefore + last.links : 0;
  const urls = last ? last.storeUrlsBefore + last.newUrls : 0;
  const newPerLink = links > 0 ? urls / links : 0;
  const dom = wall && wall.b > 0 && wall.a > 0 ? wall.a / wall.b : null;
  const diskBytesPerUrl = 2 * 8;
  // Per slice besides the store: the slice file (~62 B a link) and its outputs (~61 B a new URL) while it runs.
  const sliceBytes = sliceLinks * 62 + sliceLinks * newPerLink * 61;
  const diskFullAtUrls = diskBytes !== null ? Math.max(0, (diskBytes - sliceBytes) / diskBytesPerUrl) : null;
  const predictedNsPerLink: Record<string, number> = {};
  if (wall && sliceLinks > 0) for (const n of [1e8, 1e9, 1e10]) predictedNsPerLink[String(n)] = Math.round(predictNs(wall, sliceLinks, newPerLink, n));
  return {
    sliceLinks, wall, cpu, merge, mergeDominatesAtUrls: dom, newPerLink,
    mergeDominatesAtLinks: dom !== null && newPerLink > 0 ? dom / newPerLink : null,
    diskBytesPerUrl, diskFullAtUrls, predictedNsPerLink,
  };
}

const fmt = (v: number): string => (v >= 1e9 ? `${(v / 1e9).toFixed(2)} G` : v >= 1e6 ? `${(v / 1e6).toFixed(1)} M` : v.toFixed(0));
const line = (name: string, f: LinearFit | null): string => (f === null ? `${name}: not enough slices` :
  `${name}: t = ${f.a.toFixed(3)} s + ${(f.b * 1e9).toFixed(2)} ns × store URLs  (R² ${f.r2.toFixed(3)}, ${f.n} slices)`);

export function formatFit(f: ScaleFit): string {
  const out = [
    `IRLbot cost model per ${fmt(f.sliceLinks)}-link slice, t = a + b·S (S = URLs in the store before the slice):`,
    line('  wall ', f.wall), line('  CPU  ', f.cpu), line('  merge', f.merge),
    `  new URLs per link over the run: ${f.newPerLink.toFixed(3)}`,
  ];
  if (f.mergeDominatesAtUrls !== null) {
    out.push(`  the store term equals the per-slice term at S = ${fmt(f.mergeDominatesAtUrls)} URLs` +
      (f.mergeDominatesAtLinks !== null ? ` (~${fmt(f.mergeDominatesAtLinks)} links at this new-URL rate)` : '') +
      `: beyond it a ${fmt(f.sliceLinks)}-link slice spends more time rewriting the store than reading links`);
  }
  if (f.diskFullAtUrls !== null) out.push(`  disk: ${f.diskBytesPerUrl} B per stored URL during a commit; full at S = ${fmt(f.diskFullAtUrls)} URLs`);
  const p = Object.entries(f.predictedNsPerLink).map(([n, ns]) => `${fmt(Number(n))} links ${ns} ns`).join(', ');
  if (p) out.push(`  predicted cumulative wall per link: ${p}`);
  return out.join('\n');
}

if (process.argv[1]?.endsWith('scale-fit.js')) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { 'disk-bytes': { type: 'string' } } });
  const file = positionals[0];
  if (!file) {
    process.stderr.write('usage: scale-fit.js FILE.json [--disk-bytes N]\n');
    process.exit(2);
  }
  const j = JSON.parse(readFileSync(file, 'utf8')) as { slices?: SliceRow[]; scaleSlices?: { slices?: SliceRow[] } | null };
  const slices = j.slices ?? j.scaleSlices?.slices ?? [];
  let disk: number | null = values['disk-bytes'] ? Number(values['disk-bytes']) : null;
  if (disk === null) {
    const st = statfsSync(dirname(file));
    disk = st.bavail * st.bsize + (slices.at(-1)?.stateBytes ?? 0);
  }
  const f = fitSlices(slices, disk);
  process.stdout.write(formatFit(f) + '\n');
}
