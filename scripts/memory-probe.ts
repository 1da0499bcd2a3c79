// Where drum's memory goes during one ingest, by phase: runs Drum.ingest in
// this process and samples RSS from a second thread (the merge is one
// synchronous call, so a timer on the main thread would not fire during it),
// and V8 heap / external / ArrayBuffer bytes on the main thread at every
// progress event. Prints the peak RSS per phase and the samples around the
// overall peak. A diagnostic for the "RSS flat at 100 M" target, not a
// test. Usage (after `tsc -p .`):
//   node dist/scripts/memory-probe.js --state DIR [--memory 256MiB] [--fsync] [--json FILE]
//     [--options '{"tuning":{"sortEntries":800000}}'] FILE...

import { rmSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { Drum, parseSize, type DrumOptions } from '../src/index.js';

const SAMPLE_MS = 25;

/** The sampler thread: reads VmRSS of this process into a shared array until told to stop. */
const SAMPLER = `
const { workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const shared = new Float64Array(workerData.sab);
const ctl = new Int32Array(workerData.ctl);
let i = 0;
while (Atomics.load(ctl, 0) === 0 && 2 * i < shared.length) {
  const m = /VmRSS:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'latin1'));
  shared[2 * i] = performance.timeOrigin + performance.now();
  shared[2 * i + 1] = m ? Number(m[1]) * 1024 : 0;
  Atomics.store(ctl, 1, ++i);
  Atomics.wait(ctl, 0, 0, ${SAMPLE_MS});
}
`;

interface Mark {
  t: number;
  phase: string;
  links: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      state: { type: 'string' },
      memory: { type: 'string', default: '256MiB' },
      fsync: { type: 'boolean', default: false },
      json: { type: 'string' },
      options: { type: 'string', default: '{}' },
    },
  });
  if (!values.state || positionals.length === 0) throw new Error('usage: memory-probe --state DIR [--memory SIZE] [--fsync] [--json FILE] FILE...');
  rmSync(values.state, { recursive: true, force: true });
  const maxSamples = 1 << 20;
  const sab = new SharedArrayBuffer(8 * 2 * maxSamples);
  const ctl = new SharedArrayBuffer(8);
  const sampler = new Worker(SAMPLER, { eval: true, workerData: { sab, ctl } });
  const marks: Mark[] = [];
  const mark = (phase: string, links: number): void => {
    const m = process.memoryUsage();
    marks.push({ t: performance.timeOrigin + performance.now(), phase, links, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers });
  };
  const extra = JSON.parse(values.options!) as DrumOptions;
  const drum = await Drum.open(values.state, { memoryBytes: parseSize(values.memory!), fsync: values.fsync, ...extra });
  mark('open', 0);
  let last = '';
  const report = await drum.ingest({
    inputs: positionals,
    onProgress: (p) => {
      // Every phase change, and every ~1 M links while reading.
      if (p.phase !== last || p.links - (marks.at(-1)?.links ?? 0) >= 1_000_000) mark(p.phase, p.links);
      last = p.phase;
    },
  });
  mark('closed-run', report.linksRead);
  await drum.close();
  Atomics.store(new Int32Array(ctl), 0, 1);
  await sampler.terminate();
  const n = Atomics.load(new Int32Array(ctl), 1);
  const s = new Float64Array(sab);
  // Attribute each RSS sample to the phase of the last mark before it.
  const peaks = new Map<string, number>();
  let peak = { t: 0, rss: 0, phase: '' };
  let k = 0;
  for (let i = 0; i < n; i++) {
    const t = s[2 * i]!;
    const rss = s[2 * i + 1]!;
    while (k + 1 < marks.length && marks[k + 1]!.t <= t) k++;
    const phase = marks[k]?.phase ?? 'start';
    peaks.set(phase, Math.max(peaks.get(phase) ?? 0, rss));
    if (rss > peak.rss) peak = { t, rss, phase };
  }
  const mib = (b: number): string => (b / 2 ** 20).toFixed(1);
  console.log(`links ${report.linksRead}, unique ${report.uniqueUrls}, merges ${report.io.merges}, elapsed ${(report.elapsedMs / 1000).toFixed(1)} s`);
  console.log(`peak RSS ${mib(peak.rss)} MiB in phase '${peak.phase}' (maxRSS ${mib(process.resourceUsage().maxRSS * 1024)} MiB)`);
  for (const [ph, v] of peaks) console.log(`  ${ph.padEnd(12)} peak RSS ${mib(v)} MiB`);
  console.log('marks (phase, links, heapUsed, external, arrayBuffers MiB):');
  let prev = '';
  for (const m of marks) {
    if (m.phase === prev && m.phase === 'reading' && m.links % 10_000_000 > 1_000_000) continue;
    prev = m.phase;
    console.log(`  ${m.phase.padEnd(12)} ${String(m.links).padStart(11)}  ${mib(m.heapUsed).padStart(7)} ${mib(m.external).padStart(7)} ${mib(m.arrayBuffers).padStart(7)}`);
  }
  if (values.json) {
    const samples = Array.from({ length: n }, (_, i) => [s[2 * i]!, s[2 * i + 1]!]);
    writeFileSync(values.json, JSON.stringify({ report, marks, samples }));
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
