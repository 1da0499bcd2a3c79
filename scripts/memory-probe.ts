// Where drum's memory goes during one ingest, by phase: runs Drum.ingest in
// this process and samples RSS from a second thread (the merge is one
// synchronous call, so a timer on the main thread would not fire during it),
// and V8 heap / external / ArrayBuffer bytes on the main thread at every
// progress event. Prints the peak RSS overall and per phase, and the heap at
// each mark (--json: every RSS sample too). A diagnostic for the "RSS flat at
// 100 M" target, not a test. Usage (after `tsc -p .`):
//   node dist/scripts/memory-probe.js --state DIR [--memory 256MiB] [--fsync] [--json FILE]
//     [--options '{"tuning":{"sortEntries":800000}}'] FILE...
// REQUIRES: Linux (/proc/self/status); --state is a directory it may delete
// (it starts from an empty store).

import { rmSync, writeFileSync } from 'node:fs';
import { scriptArgs } from './lib/script-args.js';
import { Worker } from 'node:worker_threads';
import { Drum, parseSize, type DrumOptions, type RunReport } from '../src/index.js';

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

/** The RSS sampler thread and the shared arrays it writes: (time, RSS) pairs and [stop flag, samples taken]. */
interface Sampler {
  worker: Worker;
  sab: SharedArrayBuffer;
  ctl: SharedArrayBuffer;
}

/** Ingests the inputs into a fresh store while a second thread samples RSS; prints the peaks per phase and the marks. */
async function main(): Promise<void> {
  const { values, positionals } = scriptArgs(import.meta.url, {
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
  const sampler = startSampler(1 << 20);
  const marks: Mark[] = [];
  const extra = JSON.parse(values.options!) as DrumOptions;
  const report = await ingestMarked(values.state, { memoryBytes: parseSize(values.memory!), fsync: values.fsync, ...extra }, positionals, marks);
  Atomics.store(new Int32Array(sampler.ctl), 0, 1);
  await sampler.worker.terminate();
  const n = Atomics.load(new Int32Array(sampler.ctl), 1);
  const s = new Float64Array(sampler.sab);
  printProbe(report, marks, s, n);
  if (values.json) {
    const samples = Array.from({ length: n }, (_, i) => [s[2 * i]!, s[2 * i + 1]!]);
    writeFileSync(values.json, JSON.stringify({ report, marks, samples }));
  }
}

/** Starts the sampler thread with room for `maxSamples` samples. */
function startSampler(maxSamples: number): Sampler {
  const sab = new SharedArrayBuffer(8 * 2 * maxSamples);
  const ctl = new SharedArrayBuffer(8);
  return { worker: new Worker(SAMPLER, { eval: true, workerData: { sab, ctl } }), sab, ctl };
}

/** Opens the store, ingests the inputs and closes it, marking the heap at the open, at every phase change (and every ~1 M links while reading) and at the end. */
async function ingestMarked(state: string, options: DrumOptions, inputs: string[], marks: Mark[]): Promise<RunReport> {
  const mark = (phase: string, links: number): void => {
    const m = process.memoryUsage();
    marks.push({ t: performance.timeOrigin + performance.now(), phase, links, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers });
  };
  const drum = await Drum.open(state, options);
  mark('open', 0);
  let last = '';
  const report = await drum.ingest({
    inputs,
    onProgress: (p) => {
      // Every phase change, and every ~1 M links while reading.
      if (p.phase !== last || p.links - (marks.at(-1)?.links ?? 0) >= 1_000_000) mark(p.phase, p.links);
      last = p.phase;
    },
  });
  mark('closed-run', report.linksRead);
  await drum.close();
  return report;
}

/** Prints the run, the peak RSS overall and per phase (each sample counts for the phase of the last mark before it), and the marks. */
function printProbe(report: RunReport, marks: Mark[], s: Float64Array, n: number): void {
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
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
