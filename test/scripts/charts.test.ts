// Tests of the chart script (scripts/charts.ts, scripts/lib/svg-chart.ts) on
// a small bench JSON: each chart is drawn from the fields the bench writes,
// with one bar per contender, drum's bars highlighted and the values
// printed; missing data skips a chart instead of drawing an empty one; the
// command writes the SVG files.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { drawCharts, linksLabel, readChartData } from '../../scripts/charts.js';
import { esc, niceMax } from '../../scripts/lib/svg-chart.js';
import type { BenchRow } from '../../scripts/lib/bench/bench-report.js';
import { distRoot } from '../helpers/cli.js';

const MiB = 1024 * 1024;
function row(id: string, dataset: BenchRow['dataset'], links: number, wallS: number, rssMiB: number): BenchRow {
  return {
    id, dataset, label: id, links, wallMs: wallS * 1000, linksPerSec: links / wallS, cpuMs: wallS * 1500, cpuPct: 150,
    peakRssBytes: rssMiB * MiB, bytesWritten: null, unique: 1, ratioToSort: null, extrapolated: false, status: 'ok', note: '',
  };
}
const bench = {
  gitHead: 'abcdef0123456789',
  rows: [
    row('drum', 'main', 100_000, 0.5, 90),
    row('sort', 'main', 100_000, 0.4, 120),
    row('level', 'main', 100_000, 3, 200),
    { ...row('set', 'main', 100_000, 1, 100), status: 'failed', wallMs: null },
    row('drum', 'batch2', 100_000, 0.6, 95),
    row('drum', 'scale', 1_000_000, 5, 150),
    row('sort', 'scale', 1_000_000, 6, 900),
  ],
  scaleSlices: {
    slices: [0, 1, 2].map((k) => ({
      slice: k + 1, links: 10_000, linksBefore: k * 10_000, storeUrlsBefore: k * 3_000, wallMs: 400 + 10 * k, cpuMs: 300,
      peakRssBytes: 80 * MiB, newUrls: 3_000, stateBytes: 1, outputBytesTotal: 1, cumulativeNsPerLink: 40_000,
    })),
  },
};

const count = (s: string, sub: string): number => s.split(sub).length - 1;

describe('the benchmark charts', () => {
  const svgs = drawCharts(readChartData([JSON.stringify(bench)]));

  it('draws wall time and peak RSS with one bar per contender that finished, per size, and drum highlighted', () => {
    const wall = svgs.get('bench-wall.svg')!;
    assert.match(wall, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.ok(wall.trimEnd().endsWith('</svg>'));
    assert.ok(wall.includes('>100 k links<') && wall.includes('>1 M links<'));
    assert.equal(count(wall, 'height="16" rx="2"'), 6, 'drum, sort, level and the 2nd batch at 100 k; drum and sort at 1 M; not the failed Set run');
    assert.equal(count(wall, 'rx="2" fill="#0969da"'), 3, 'three drum bars');
    for (const v of ['0.50 s', '3.00 s', '0.60 s', '6.00 s']) assert.ok(wall.includes(`>${v}<`), v);
    assert.ok(wall.includes('commit abcdef0'));
    const rss = svgs.get('bench-rss.svg')!;
    assert.ok(rss.includes('>900 MiB<') && rss.includes('>90 MiB<'));
    assert.equal(count(rss, 'stroke-dasharray="4 3"'), 2, "drum's budget marked in each panel");
  });

  it('draws the wall and CPU time of each batch as the store grows, with the store size under each', () => {
    const b = svgs.get('batch-time.svg')!;
    assert.ok(b.includes('Time per batch of 10 k links into one growing store'));
    for (const s of ['>#1<', '>#3<', '>0.00 M<', '>0.01 M<', '>0.4<', '>0.3<']) assert.ok(b.includes(s), s);
    assert.ok(b.includes('>wall time<') && b.includes('>CPU time<'));
  });

  it('skips a chart whose data is absent instead of drawing it empty', () => {
    const only = drawCharts(readChartData([JSON.stringify({ rows: [row('drum', 'main', 10, 1, 50)] })]));
    assert.deepEqual([...only.keys()].sort(), ['bench-rss.svg', 'bench-wall.svg']);
    assert.ok(!only.get('bench-wall.svg')!.includes('1 M links'));
    const slicesOnly = drawCharts(readChartData([JSON.stringify({ command: 'node dist/scripts/scale-run.js --links 30000 --tmp /x', slices: bench.scaleSlices.slices })]));
    assert.deepEqual([...slicesOnly.keys()], ['batch-time.svg']);
    assert.ok(slicesOnly.get('batch-time.svg')!.includes('scale-run.js --links 30000.'));
  });

  it('draws time per link and peak RSS against the budget for slices that grow with the store', () => {
    const sl = (slice: number, links: number, before: number, wallMs: number, rssMiB: number) => ({
      slice, links, linksBefore: 0, storeUrlsBefore: before, wallMs, cpuMs: wallMs / 2, peakRssBytes: rssMiB * 2 ** 20, newUrls: 0, stateBytes: 0,
      outputBytesTotal: 0, cumulativeNsPerLink: 0,
    });
    const slices = [sl(1, 10_000_000, 0, 20_000, 200), sl(2, 10_000_000, 3e6, 22_000, 210), sl(3, 30_000_000, 9e7, 60_000, 240)];
    const svgs2 = drawCharts(readChartData([JSON.stringify({ command: 'node dist/scripts/scale-run.js --slice-growth 0.3', slices })]));
    assert.deepEqual([...svgs2.keys()].sort(), ['scale-rss.svg', 'scale-time.svg']);
    const t = svgs2.get('scale-time.svg')!;
    for (const v of ['>2<', '>2.2<', '>30M<', '>90 M<']) assert.ok(t.includes(v), v);
    const r = svgs2.get('scale-rss.svg')!;
    assert.ok(r.includes('>240<') && r.includes('budget (--memory 256 MiB)') && r.includes('stroke-dasharray="4 3"'));
  });

  it('escapes text, rounds axis tops and names sizes', () => {
    assert.equal(esc('a<b & "c"'), 'a&lt;b &amp; &quot;c&quot;');
    assert.deepEqual([niceMax(0.42), niceMax(7.6), niceMax(10.01), niceMax(12_088)], [0.5, 10, 20, 20_000]);
    assert.deepEqual([linksLabel(10_000_000), linksLabel(100_000_000), linksLabel(200_000), linksLabel(7)], ['10 M links', '100 M links', '200 k links', '7 links']);
  });

  it('writes the SVG files with the command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'drum-charts-'));
    try {
      writeFileSync(join(dir, 'bench.json'), JSON.stringify(bench));
      const r = spawnSync(process.execPath, [join(distRoot, 'scripts', 'charts.js'), '--out', join(dir, 'img'), join(dir, 'bench.json')], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
      for (const f of ['bench-wall.svg', 'bench-rss.svg', 'batch-time.svg']) assert.ok(existsSync(join(dir, 'img', f)), f);
      assert.equal(readFileSync(join(dir, 'img', 'bench-wall.svg'), 'utf8'), svgs.get('bench-wall.svg'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
