// Renders the tier sweep's rows (tier-runs.ts beside it) as the Markdown
// tables of docs/tiers.md and as an SVG line chart of RAM-answered fraction
// and hot-cache hit rate by cache size. Formatting only; runs nothing.
// Preconditions: rows of one scenario share the same input.

import type { BloomRow, CacheRow } from './tier-runs.js';
import { pct } from './tier-runs.js';

export interface Scenario {
  id: string;
  title: string;
  /** Legend label in the chart. */
  short: string;
  rows: CacheRow[];
}

const int = (n: number): string => n.toLocaleString('en-US');

function size(n: number): string {
  if (n === 0) return 'off';
  const l = Math.log2(n);
  return Number.isInteger(l) ? `2^${l}` : int(n);
}

/** True when every row found the same number of new URLs (the tiers never change the answer). */
export function sameAnswer(rows: { uniqueUrls: number }[]): boolean {
  return rows.every((r) => r.uniqueUrls === rows[0]!.uniqueUrls);
}

export function cacheTable(s: Scenario): string {
  const out = [
    `#### ${s.title}`,
    '',
    '| hot cache | recent table | chunk dedup (of tests) | hot-cache hits (of tests) | recent hit rate (of its lookups) | recent hits (of tests) | answered in RAM | disk lookups | disk hits | merges | run ms |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of s.rows) {
    out.push(`| ${size(r.cacheEntries)} | ${size(r.recentEntries)} | ${pct((r.chunkHits ?? 0) / r.tests)} | ${pct(r.cacheHitRate)} | ${pct(r.recentHitRate)} | ${pct(r.recentOfAll)} | ` +
      `**${pct(r.answeredInRam)}** | ${int(r.diskLookups)} | ${int(r.diskHits)} | ${r.merges} | ${int(r.elapsedMs)} |`);
  }
  const r0 = s.rows[0];
  if (r0) {
    out.push('');
    out.push(`URL tests: ${int(r0.tests)}; new URLs: ${int(r0.uniqueUrls)} ` +
      `(${sameAnswer(s.rows) ? 'identical in every row' : '**DIFFERS between rows — tiers changed the answer**'}); ` +
      `best possible answered-in-RAM (every duplicate): ${pct(1 - r0.uniqueUrls / r0.tests)}.`);
  }
  return out.join('\n');
}

export function bloomTables(rows: BloomRow[]): string {
  const out: string[] = [];
  const sets = new Map<string, BloomRow[]>();
  for (const r of rows) sets.set(r.dataset, [...(sets.get(r.dataset) ?? []), r]);
  for (const [name, rs] of sets) {
    const r0 = rs[0]!;
    out.push(`#### Gate mode, ${name} (second batch against a store holding ${int(r0.keysAtStart)} keys)`, '');
    out.push('| bits/key | k | blocks | definitely new | maybe seen | false positives | observed FP | expected FP (over the fill) | observed / expected | nominal (exactly b bits/key) | report expectedFpRate | merges |');
    out.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rs) {
      const ratio = r.expectedFill > 0 ? (r.observedFpRate / r.expectedFill).toFixed(3) : '—';
      out.push(`| ${r.bitsPerKey} | ${r.k} | ${int(r.blocks)} | ${int(r.definitelyNew)} | ${int(r.maybeSeen)} | ${int(r.falsePositives)} | ` +
        `${pct(r.observedFpRate, 3)} | ${pct(r.expectedFill, 3)} | ${ratio} | ${pct(r.nominal, 3)} | ${pct(r.expectedReport, 3)} | ${r.merges} |`);
    }
    out.push('', `definitelyNew + falsePositives = new URLs in every row: ${rs.every((r) => r.definitelyNew + r.falsePositives === r.exactUnique) ? 'yes' : '**no**'}.`, '');
    out.push(`#### Lossy mode, ${name}`, '');
    out.push('| bits/key | new URLs (exact) | new URLs (lossy) | wrongly dropped | expected (new × FP over the fill) | report expectedWronglyDropped | answered in RAM gate → lossy |');
    out.push('|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of rs) {
      out.push(`| ${r.bitsPerKey} | ${int(r.exactUnique)} | ${int(r.lossyUnique)} | ${int(r.wronglyDropped)} | ` +
        `${Number.isFinite(r.expectedWronglyDroppedFill) ? int(Math.round(r.expectedWronglyDroppedFill)) : '—'} | ` +
        `${int(Math.round(r.expectedWronglyDroppedReport))} | ${pct(r.gateAnsweredInRam)} → ${pct(r.lossyAnsweredInRam)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

/**
 * Line chart, x = log2(cache entries), y = percent of URL tests. Per
 * scenario: answered in RAM with the default recent table (solid), hot-cache
 * hit rate with the default recent table (dotted) and with it off (dashed).
 */
export function chartSvg(scenarios: Scenario[], defaultRecent: number): string {
  const W = 760, H = 460, L = 60, R = 230, T = 30, B = 50;
  const pw = W - L - R, ph = H - T - B;
  const xs = scenarios.flatMap((s) => s.rows.filter((r) => r.cacheEntries > 0).map((r) => Math.log2(r.cacheEntries)));
  const x0 = Math.min(...xs), x1 = Math.max(...xs);
  const X = (v: number): number => L + ((v - x0) / Math.max(1, x1 - x0)) * pw;
  const Y = (f: number): number => T + (1 - f) * ph;
  const el: string[] = [];
  el.push(`<rect x="0" y="0" width="${W}" height="${H}" fill="white"/>`);
  for (let p = 0; p <= 100; p += 10) {
    el.push(`<line x1="${L}" x2="${L + pw}" y1="${Y(p / 100)}" y2="${Y(p / 100)}" stroke="#ddd"/>`);
    el.push(`<text x="${L - 6}" y="${Y(p / 100) + 4}" font-size="11" text-anchor="end">${p}%</text>`);
  }
  for (let v = Math.ceil(x0); v <= x1; v += 2) {
    el.push(`<line x1="${X(v)}" x2="${X(v)}" y1="${T}" y2="${T + ph}" stroke="#eee"/>`);
    el.push(`<text x="${X(v)}" y="${T + ph + 16}" font-size="11" text-anchor="middle">2^${v}</text>`);
  }
  el.push(`<text x="${L + pw / 2}" y="${H - 10}" font-size="12" text-anchor="middle">hot-cache entries</text>`);
  el.push(`<text x="${L}" y="${T - 10}" font-size="12">% of URL tests</text>`);
  el.push(`<line x1="${L}" x2="${L + pw}" y1="${Y(0.757)}" y2="${Y(0.757)}" stroke="#000" stroke-dasharray="2,4"/>`);
  el.push(`<text x="${L + 4}" y="${Y(0.757) - 4}" font-size="10">Mercator 75.7% (2^18 cache + recent table)</text>`);
  let ly = T + 8;
  scenarios.forEach((s, i) => {
    const c = COLORS[i % COLORS.length]!;
    const line = (rows: CacheRow[], f: (r: CacheRow) => number, dash: string): void => {
      const on = rows.filter((r) => r.cacheEntries > 0);
      if (on.every((r) => f(r) === 0)) return; // e.g. the cache with no feeder: a flat zero hides other lines
      const pts = on.map((r) => `${X(Math.log2(r.cacheEntries)).toFixed(1)},${Y(f(r)).toFixed(1)}`);
      if (pts.length > 0) el.push(`<polyline fill="none" stroke="${c}" stroke-width="2" ${dash} points="${pts.join(' ')}"/>`);
    };
    const withRecent = s.rows.filter((r) => r.recentEntries === defaultRecent);
    const noRecent = s.rows.filter((r) => r.recentEntries === 0);
    line(withRecent, (r) => r.answeredInRam, '');
    line(withRecent, (r) => r.cacheHitRate, 'stroke-dasharray="1,3"');
    line(noRecent, (r) => r.cacheHitRate, 'stroke-dasharray="6,4"');
    el.push(`<text x="${L + pw + 12}" y="${ly}" font-size="11" fill="${c}" font-weight="bold">${esc(s.short)}</text>`);
    ly += 16;
  });
  ly += 6;
  for (const [dash, label] of [['', 'answered in RAM (recent on)'], ['stroke-dasharray="1,3"', 'hot-cache hits (recent on)'], ['stroke-dasharray="6,4"', 'hot-cache hits (recent off)']] as const) {
    el.push(`<line x1="${L + pw + 12}" x2="${L + pw + 42}" y1="${ly - 4}" y2="${ly - 4}" stroke="#444" stroke-width="2" ${dash}/>`);
    el.push(`<text x="${L + pw + 48}" y="${ly}" font-size="11">${label}</text>`);
    ly += 16;
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">\n${el.join('\n')}\n</svg>\n`;
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
