// Bench-only: fits IRLbot's cost model to a streamed scale run's slices
// (scale-run.ts): a slice of L links into a store of S URLs costs
//   t(slice) = a + b·S
// or, when the slices differ in size (scale-run --slice-growth),
//   t(slice) = c + p·L + b·S
// (a: reading, canonicalizing and routing the slice's links, which does not
// depend on the store; b·S: the merge, which reads and rewrites every bucket
// file the slice touches, so it grows linearly with the store). Least squares
// over the slices, on wall time, CPU time and the report's merge stage alone,
// with R². Then says where one machine stops: the store size at which a
// slice's merge costs as much as the rest of the slice (S = a/b, after which
// the machine spends more time rewriting the store than reading links), the
// store at which the disk is full (the state's measured bytes per URL — key
// files, values, URL log, host table — plus what a commit rewrites beside
// the old files: keys, and values in a store with values; plus the last
// slice's file and outputs), and the time per link at 10^9
// and 10^10 links the fit predicts (with the run's own slice schedule), and
// the measured cumulative time per link at 10^8 links and at the end with
// their ratio. Reads JSON, prints text, never judges.
// Usage (after `tsc -p .`):
//   node dist/scripts/scale-fit.js FILE.json [--disk-bytes N]
// FILE is a scale-run JSON (slices) or a bench JSON (scaleSlices.slices).

import { readFileSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { scriptArgs } from './lib/script-args.js';
import type { SliceRow } from './scale-run.js';

export interface LinearFit {
  /** Seconds per slice with an empty store. */
  a: number;
  /** Seconds per stored URL per slice. */
  b: number;
  r2: number;
  n: number;
  /** Slices of several sizes: t = c + p·L + b·S (c seconds, p seconds per link); `a` is then c + p·sliceLinks. */
  c?: number;
  p?: number;
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
  /** Bytes of disk per stored URL while a commit rewrites the store: the state's own bytes per URL plus the new key (and values) files. */
  diskBytesPerUrl: number;
  /** Store size at which the disk given (or the state directory's free space plus the state) is full. */
  diskFullAtUrls: number | null;
  /** Predicted wall ns per link, cumulative, at 10^8, 10^9 and 10^10 links (the fit summed over the slices). */
  predictedNsPerLink: Record<string, number>;
  /** The run's slice growth (0: every slice sliceLinks). */
  sliceGrowth: number;
  /** Measured cumulative wall ns per link after the last slice ending at or before 10^8 links, and after the last slice. */
  measured: { at1e8: { links: number; ns: number } | null; atEnd: { links: number; ns: number } | null; ratio: number | null };
}

/** The next slice's links: `base`, or `growth` × the stored URLs rounded down to a multiple of `base` when that is more. */
export function sliceLinks(base: number, growth: number, storeUrls: number): number {
  return Math.max(base, Math.floor((growth * storeUrls) / base) * base);
}

/** Least-squares fit of y = c + p·l + b·s (normal equations); null when singular. */
export function fitPlane(ls: number[], ss: number[], ys: number[], l0: number): LinearFit | null {
  const n = ys.length;
  if (n < 4) return null;
  // Centre the columns so the 2×2 system for (p, b) is well conditioned.
  const mean = (v: number[]): number => v.reduce((a, x) => a + x, 0) / n;
  const ml = mean(ls), ms = mean(ss), my = mean(ys);
  let sll = 0, sss = 0, sls = 0, sly = 0, ssy = 0, syy = 0;
  for (let i = 0; i < n; i++) {
    const l = ls[i]! - ml, s = ss[i]! - ms, y = ys[i]! - my;
    sll += l * l; sss += s * s; sls += l * s; sly += l * y; ssy += s * y; syy += y * y;
  }
  const det = sll * sss - sls * sls;
  if (Math.abs(det) < 1e-9 * sll * sss || det === 0) return null;
  const p = (sly * sss - ssy * sls) / det;
  const b = (ssy * sll - sly * sls) / det;
  const c = my - p * ml - b * ms;
  let res = 0;
  for (let i = 0; i < n; i++) res += (ys[i]! - (c + p * ls[i]! + b * ss[i]!)) ** 2;
  return { a: c + p * l0, b, c, p, r2: syy === 0 ? 1 : 1 - res / syy, n };
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

/** Cumulative wall per link after `links` links, summing the fitted slice times over a store growing at newPerLink, slices as the run made them. */
function predictNs(f: LinearFit, base: number, growth: number, newPerLink: number, links: number): number {
  let t = 0;
  for (let done = 0; done < links;) {
    const stored = done * newPerLink;
    const l = Math.min(sliceLinks(base, growth, stored), links - done);
    t += f.p !== undefined && f.c !== undefined ? f.c + f.p * l + f.b * stored : (f.a * l) / base + f.b * stored;
    done += l;
  }
  return (t * 1e9) / links;
}

/** A fit on store size alone, or on store size and slice size when the slices differ. */
function fitRows(rows: SliceRow[], y: (r: SliceRow) => number, l0: number): LinearFit | null {
  const varied = new Set(rows.map((r) => r.links)).size > 1;
  if (varied) {
    const plane = fitPlane(rows.map((r) => r.links), rows.map((r) => r.storeUrlsBefore), rows.map(y), l0);
    if (plane !== null) return plane;
  }
  return fitLine(rows.map((r) => r.storeUrlsBefore), rows.map(y));
}

function measuredNs(slices: SliceRow[]): ScaleFit['measured'] {
  let wall = 0, at1e8: { links: number; ns: number } | null = null, atEnd: { links: number; ns: number } | null = null;
  for (const r of slices) {
    wall += r.wallMs;
    const links = r.linksBefore + r.links;
    const point = { links, ns: Math.round((wall * 1e6) / links) };
    if (links <= 1e8) at1e8 = point;
    atEnd = point;
  }
  return { at1e8, atEnd, ratio: at1e8 !== null && atEnd !== null && atEnd.links > at1e8.links ? atEnd.ns / at1e8.ns : null };
}

export function fitSlices(slices: SliceRow[], diskBytes: number | null, sliceGrowth = 0): ScaleFit {
  // The first slice also pays the store's creation; fit from the second on when there are enough.
  const rows = slices.length >= 4 ? slices.slice(1) : slices;
  const sliceLinks = slices[0]?.links ?? 0;
  const wall = fitRows(rows, (r) => r.wallMs / 1000, sliceLinks);
  const cpu = fitRows(rows.filter((r) => r.cpuMs !== null), (r) => r.cpuMs! / 1000, sliceLinks);
  const merge = fitRows(rows.filter((r) => typeof r.mergeMs === 'number'), (r) => r.mergeMs! / 1000, sliceLinks);
  const last = slices.at(-1);
  const links = last ? last.linksBefore + last.links : 0;
  const urls = last ? last.storeUrlsBefore + last.newUrls : 0;
  const newPerLink = links > 0 ? urls / links : 0;
  const dom = wall && wall.b > 0 && wall.a > 0 ? wall.a / wall.b : null;
  // The state as measured per URL, plus a commit's new key (8 B) and values (24 B: a state past 20 B a URL has them) files beside the old.
  const statePerUrl = last && urls > 0 ? last.stateBytes / urls : 8;
  const diskBytesPerUrl = Math.round(statePerUrl + (statePerUrl > 20 ? 8 + 24 : 8));
  // Per slice besides the store: the slice file (~62 B a link) and its outputs (~61 B a new URL) while it runs.
  const lastLinks = last?.links ?? sliceLinks;
  const sliceBytes = lastLinks * 62 + lastLinks * newPerLink * 61;
  const diskFullAtUrls = diskBytes !== null ? Math.max(0, (diskBytes - sliceBytes) / diskBytesPerUrl) : null;
  const predictedNsPerLink: Record<string, number> = {};
  if (wall && sliceLinks > 0) for (const n of [1e8, 1e9, 1e10]) predictedNsPerLink[String(n)] = Math.round(predictNs(wall, sliceLinks, sliceGrowth, newPerLink, n));
  return {
    sliceLinks, sliceGrowth, measured: measuredNs(slices), wall, cpu, merge, mergeDominatesAtUrls: dom, newPerLink,
    mergeDominatesAtLinks: dom !== null && newPerLink > 0 ? dom / newPerLink : null,
    diskBytesPerUrl, diskFullAtUrls, predictedNsPerLink,
  };
}

const fmt = (v: number): string => (v >= 1e9 ? `${(v / 1e9).toFixed(2)} G` : v >= 1e6 ? `${(v / 1e6).toFixed(1)} M` : v.toFixed(0));
const line = (name: string, f: LinearFit | null): string => (f === null ? `${name}: not enough slices` :
  f.p !== undefined && f.c !== undefined
    ? `${name}: t = ${f.c.toFixed(3)} s + ${(f.p * 1e9).toFixed(1)} ns × slice links + ${(f.b * 1e9).toFixed(2)} ns × store URLs  (R² ${f.r2.toFixed(3)}, ${f.n} slices)`
    : `${name}: t = ${f.a.toFixed(3)} s + ${(f.b * 1e9).toFixed(2)} ns × store URLs  (R² ${f.r2.toFixed(3)}, ${f.n} slices)`);

export function formatFit(f: ScaleFit): string {
  const sized = f.wall?.p !== undefined;
  const out = [
    sized
      ? `IRLbot cost model per slice of L links (${fmt(f.sliceLinks)} or ${f.sliceGrowth} × the store, whichever is more), t = c + p·L + b·S (S = URLs in the store before the slice):`
      : `IRLbot cost model per ${fmt(f.sliceLinks)}-link slice, t = a + b·S (S = URLs in the store before the slice):`,
    line('  wall ', f.wall), line('  CPU  ', f.cpu), line('  merge', f.merge),
    `  new URLs per link over the run: ${f.newPerLink.toFixed(3)}`,
  ];
  if (f.mergeDominatesAtUrls !== null && !sized) {
    out.push(`  the store term equals the per-slice term at S = ${fmt(f.mergeDominatesAtUrls)} URLs` +
      (f.mergeDominatesAtLinks !== null ? ` (~${fmt(f.mergeDominatesAtLinks)} links at this new-URL rate)` : '') +
      `: beyond it a ${fmt(f.sliceLinks)}-link slice spends more time rewriting the store than reading links`);
  }
  if (f.diskFullAtUrls !== null) out.push(`  disk: ${f.diskBytesPerUrl} B per stored URL during a commit (the state's own bytes a URL, plus the new key and values files); full at S = ${fmt(f.diskFullAtUrls)} URLs`);
  const p = Object.entries(f.predictedNsPerLink).map(([n, ns]) => `${fmt(Number(n))} links ${ns} ns`).join(', ');
  if (p) out.push(`  predicted cumulative wall per link: ${p}`);
  const m = f.measured;
  if (m.at1e8 !== null && m.atEnd !== null && m.ratio !== null) {
    out.push(`  measured cumulative wall per link: ${fmt(m.at1e8.links)} links ${m.at1e8.ns} ns, ${fmt(m.atEnd.links)} links ${m.atEnd.ns} ns (${m.ratio.toFixed(2)}×)`);
  }
  return out.join('\n');
}

if (process.argv[1]?.endsWith('scale-fit.js')) {
  const { values, positionals } = scriptArgs(import.meta.url, { allowPositionals: true, options: { 'disk-bytes': { type: 'string' } } });
  const file = positionals[0];
  if (!file) {
    process.stderr.write('usage: scale-fit.js FILE.json [--disk-bytes N]\n');
    process.exit(2);
  }
  const j = JSON.parse(readFileSync(file, 'utf8')) as { params?: { sliceGrowth?: number }; slices?: SliceRow[]; scaleSlices?: { slices?: SliceRow[] } | null };
  const slices = j.slices ?? j.scaleSlices?.slices ?? [];
  let disk: number | null = values['disk-bytes'] ? Number(values['disk-bytes']) : null;
  if (disk === null) {
    const st = statfsSync(dirname(file));
    disk = st.bavail * st.bsize + (slices.at(-1)?.stateBytes ?? 0);
  }
  const f = fitSlices(slices, disk, j.params?.sliceGrowth ?? 0);
  process.stdout.write(formatFit(f) + '\n');
}
