// Bench-only: streams a very large generated crawl (default 10^9 links) into
// ONE drum store, slice by slice, without a whole input file on disk. The
// generator runs once as a child process writing to a pipe; for each slice
// (default 10^7 links) this script copies the next slice's lines into one
// reused slice file while drum is idle, then runs `drum ingest` on it alone
// (the generator is blocked on its pipe meanwhile), so each slice's wall,
// CPU and peak RSS are drum's own. Per slice it records the store size before
// it, drum's figures, and the disk used by state, work and outputs; the JSON
// is rewritten after every slice, so a run cut short keeps what it measured.
// At the end: the generator's CPU and its share of all CPU, the cumulative
// time per link at every slice (the growth DRUM's merge cost shows as the
// store grows), and IRLbot's cost model fitted to the slices (scale-fit.ts).
// Does not judge goals (lib/bench/bench-report.ts / the bench does).
// --slice-growth R makes a slice max(--slice, R × the URLs already stored),
// rounded down to a multiple of --slice: the batch grows with the store, as
// IRLbot sizes DRUM's buckets, so the store's rewrite per link stays flat.
// --resume continues a run that was cut short: it keeps the state, reads the
// slices the JSON already holds, regenerates (and discards) their lines and
// goes on from the next slice; the JSON then says from which slice on the
// rows were measured by this build (resumedAt).
// Usage (after `tsc -p .`):
//   node dist/scripts/scale-run.js [--links 1e9] [--slice 1e7] [--seed 1] [--tmp DIR] [--json FILE] [--keep-outputs] [--resume] [--slice-growth R]
// REQUIRES: GNU time at /usr/bin/time for CPU and RSS figures (else wall only).

import { closeSync, createWriteStream, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, rmSync, statfsSync, writeFileSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { tmpdir } from 'node:os';
import { scriptArgs } from './lib/script-args.js';
import { fileURLToPath } from 'node:url';
import { runMeasured, pathBytes, hasGnuTime, GNU_TIME } from './lib/bench/measure.js';
import { fitSlices, formatFit, sliceLinks, type ScaleFit } from './scale-fit.js';
import { formatVerify, verifyState, type StoreVerify } from './lib/bench/verify-state.js';

export interface SliceRow {
  slice: number;
  links: number;
  /** Links ingested before this slice. */
  linksBefore: number;
  storeUrlsBefore: number;
  wallMs: number;
  cpuMs: number | null;
  peakRssBytes: number | null;
  newUrls: number;
  stateBytes: number;
  /** The slice's input file (the work space this script needs besides drum's). */
  sliceFileBytes?: number;
  /** drum's own work directory (state/work) after the slice: empty between runs unless a round is left. */
  workBytes?: number;
  /** Bytes drum wrote during the slice (its report's IO counter: store rewrite, aux log, outputs). */
  ioBytesWritten?: number;
  /** The report's merge stage (sort, merge with the store, dispatch), ms. */
  mergeMs?: number;
  /** The report's open stage (lock, manifest, catalog open and, when one is due (catalog/hosts/fold-policy.ts), the host-table fold), ms. */
  openMs?: number;
  outputBytesTotal: number;
  /** Cumulative drum wall / cumulative links up to and including this slice, ns. */
  cumulativeNsPerLink: number;
}

/** Reads a child's stdout and cuts it into slices of whole lines. */
class LineSlicer {
  private carry: Buffer | null = null;
  private readonly it: AsyncIterator<Buffer>;
  done = false;
  constructor(stream: NodeJS.ReadableStream) { this.it = (stream as AsyncIterable<Buffer>)[Symbol.asyncIterator](); }

  /** Writes the next `lines` lines to `out`; returns how many it wrote (fewer at the end of the stream). */
  async slice(lines: number, out: WriteStream): Promise<number> {
    let n = 0;
    const put = async (b: Buffer): Promise<void> => { if (!out.write(b)) await once(out, 'drain'); };
    while (n < lines) {
      let chunk = this.carry;
      this.carry = null;
      if (chunk === null) {
        const r = await this.it.next();
        if (r.done) { this.done = true; break; }
        chunk = r.value;
      }
      let pos = 0;
      while (n < lines) {
        const nl = chunk.indexOf(10, pos);
        if (nl < 0) break;
        pos = nl + 1;
        n++;
      }
      if (n === lines && pos < chunk.length) this.carry = chunk.subarray(pos);
      await put(n === lines ? chunk.subarray(0, pos) : chunk);
    }
    out.end();
    await once(out, 'finish');
    return n;
  }
}

export interface ScaleRunResult {
  params: { links: number; slice: number; seed: number; sliceGrowth?: number };
  elapsedMs: number;
  /** The generator's own wall, CPU and RSS (GNU time), or null without it. */
  generator: { wallS: number; cpuS: number; peakRssBytes: number; cpuShare: number; note: string } | null;
  /** IRLbot's cost model fitted to the slices (scale-fit.ts). */
  fit?: ScaleFit;
  /** `drum verify` of the store the run left (every key, value and URL-log block read back). */
  verify?: StoreVerify;
  /** Set on a resumed run: the first slice this run measured (earlier rows came from the JSON). */
  resumedAt?: number;
  slices: SliceRow[];
}

export interface ScaleRunOptions {
  links: number;
  slice: number;
  seed: number;
  sliceGrowth?: number;
  work: string;
  json: string;
  keepOutputs: boolean;
  resume?: boolean;
  log: (s: string) => void;
}

/** Where a run keeps its files, and the running totals over the slices so far. */
interface RunState {
  o: ScaleRunOptions;
  /** The compiled tree and the repository holding bin/drum. */
  dist: string;
  repo: string;
  state: string;
  outs: string;
  sliceFile: string;
  rows: SliceRow[];
  linksBefore: number;
  storeUrls: number;
  wallTotal: number;
  outBytes: number;
}

/** Streams o.links generated links into one store slice by slice; writes the JSON after every slice and at the end. */
export async function scaleRun(o: ScaleRunOptions): Promise<ScaleRunResult> {
  const dist = resolve(fileURLToPath(import.meta.url), '..', '..');
  mkdirSync(o.work, { recursive: true });
  const s: RunState = {
    o, dist, repo: resolve(dist, '..'), state: join(o.work, 'state'), outs: join(o.work, 'outputs'), sliceFile: join(o.work, 'slice.txt'),
    rows: [], linksBefore: 0, storeUrls: 0, wallTotal: 0, outBytes: 0,
  };
  const earlier: SliceRow[] = o.resume === true && existsSync(o.json) ? (JSON.parse(readFileSync(o.json, 'utf8')) as ScaleRunResult).slices : [];
  if (o.resume !== true) rmSync(s.state, { recursive: true, force: true });
  rmSync(s.outs, { recursive: true, force: true });
  const genTime = join(o.work, 'gen-time.txt');
  const gen = startGenerator(dist, o, genTime);
  const genClosed = once(gen, 'close');
  const slicer = new LineSlicer(gen.stdout!);
  await replayEarlier(s, slicer, earlier);
  const resumedAt = earlier.length > 0 ? earlier.length + 1 : undefined;
  const t0 = performance.now();
  const result = (generator: ScaleRunResult['generator']): ScaleRunResult =>
    ({ params: { links: o.links, slice: o.slice, seed: o.seed, ...(o.sliceGrowth ? { sliceGrowth: o.sliceGrowth } : {}) }, elapsedMs: Math.round(performance.now() - t0), generator, ...(resumedAt !== undefined ? { resumedAt } : {}), slices: s.rows });
  for (let k = earlier.length + 1; !slicer.done; k++) {
    const n = await slicer.slice(sliceLinks(o.slice, o.sliceGrowth ?? 0, s.storeUrls), createWriteStream(s.sliceFile));
    if (n === 0) break;
    // On disk before drum starts: else drum's first fsyncs (at its open) wait behind the slice file's writeback.
    syncFile(s.sliceFile);
    await ingestSlice(s, k, n);
    writeResult(o.json, result(null));
  }
  await genClosed;
  const generator = generatorFigures(genTime, s.rows, o.log);
  const st = statfsSync(o.work);
  const fit = fitSlices(s.rows, st.bavail * st.bsize + (s.rows.at(-1)?.stateBytes ?? 0), o.sliceGrowth ?? 0);
  o.log(formatFit(fit).split('\n').join('\n[scale] '));
  const verify = verifyState(s.repo, s.state);
  o.log(formatVerify('the store', verify));
  const res = { ...result(generator), fit, verify };
  writeResult(o.json, res);
  rmSync(s.sliceFile, { force: true });
  return res;
}

/** Starts the generator writing all o.links links to its stdout, under GNU time (figures to `genTime`) when installed. */
function startGenerator(dist: string, o: ScaleRunOptions, genTime: string): ChildProcess {
  const genArgs = [join(dist, 'scripts', 'gen-links.js'), '--links', String(o.links), '--seed', String(o.seed), '--out', '-', '--no-count'];
  return hasGnuTime()
    ? spawn(GNU_TIME, ['-f', '%e %U %S %M', '-o', genTime, process.execPath, ...genArgs], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, genArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
}

/** On --resume: takes the JSON's slices as measured and skips their lines (the generator is deterministic: they are made again and dropped). */
async function replayEarlier(s: RunState, slicer: LineSlicer, earlier: SliceRow[]): Promise<void> {
  s.rows.push(...earlier);
  for (const r of earlier) {
    await slicer.slice(r.links, createWriteStream('/dev/null'));
    s.linksBefore += r.links;
    s.storeUrls = r.storeUrlsBefore + r.newUrls;
    s.wallTotal += r.wallMs;
    s.outBytes = r.outputBytesTotal;
  }
  if (earlier.length > 0) s.o.log(`resumed after slice ${earlier.length} (${s.linksBefore.toLocaleString('en-US')} links)`);
}

/** Runs `drum ingest` on slice k (n links, in the slice file) under measurement; adds its row to the totals and logs it. */
async function ingestSlice(s: RunState, k: number, n: number): Promise<void> {
  const { o, state } = s;
  const out = join(s.outs, `slice-${String(k).padStart(4, '0')}`);
  const m = await runMeasured(process.execPath, [join(s.repo, 'bin', 'drum'), 'ingest', '--state', state, '--out', out, '--json', '--no-progress', s.sliceFile],
    { env: { ...process.env, DRUM_DIST_DIR: s.dist } });
  if (m.exitCode !== 0) throw new Error(`slice ${k}: drum exited ${m.exitCode}: ${m.stderr.slice(-800)}`);
  const rep = JSON.parse(m.stdout.trim()) as { uniqueUrls: number; storeUrls: number; stages?: Record<string, { ms: number }>; io?: { bytesWritten?: number } };
  s.outBytes += pathBytes(out);
  if (!o.keepOutputs) rmSync(out, { recursive: true, force: true });
  s.wallTotal += m.wallMs;
  const row: SliceRow = {
    slice: k, links: n, linksBefore: s.linksBefore, storeUrlsBefore: s.storeUrls, wallMs: Math.round(m.wallMs), cpuMs: m.cpuMs, peakRssBytes: m.peakRssBytes,
    newUrls: rep.uniqueUrls, stateBytes: pathBytes(state), sliceFileBytes: pathBytes(s.sliceFile), workBytes: pathBytes(join(state, 'work')),
    ioBytesWritten: rep.io?.bytesWritten, mergeMs: rep.stages?.merge?.ms, openMs: rep.stages?.open?.ms, outputBytesTotal: s.outBytes,
    cumulativeNsPerLink: Math.round((s.wallTotal * 1e6) / (s.linksBefore + n)),
  };
  s.rows.push(row);
  s.linksBefore += n;
  s.storeUrls = rep.storeUrls;
  o.log(`slice ${k}: ${n} links, store ${s.storeUrls.toLocaleString('en-US')} URLs, ${(m.wallMs / 1000).toFixed(2)} s, ` +
    `RSS ${m.peakRssBytes ? (m.peakRssBytes / 2 ** 20).toFixed(0) : '?'} MiB, state ${(row.stateBytes / 2 ** 30).toFixed(2)} GiB, ` +
    `free ${(statfsSync(o.work).bavail * statfsSync(o.work).bsize / 2 ** 30).toFixed(0)} GiB`);
}

/** The generator's wall, CPU and peak RSS from GNU time's file, and its share of all CPU; null without GNU time. */
function generatorFigures(genTime: string, rows: SliceRow[], log: (s: string) => void): ScaleRunResult['generator'] {
  if (!existsSync(genTime)) return null;
  const [e, u, s, mx] = readFileSync(genTime, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  const cpuS = (u ?? 0) + (s ?? 0);
  const drumCpuS = rows.reduce((a, r) => a + (r.cpuMs ?? 0), 0) / 1000;
  const generator = {
    wallS: e ?? 0, cpuS, peakRssBytes: (mx ?? 0) * 1024, cpuShare: cpuS + drumCpuS > 0 ? cpuS / (cpuS + drumCpuS) : 0,
    note: 'the generator ran while drum was idle (blocked on its pipe while drum ran); cpuShare = its CPU / (its + drum\'s)',
  };
  log(`generator: ${cpuS.toFixed(0)} CPU-s, ${(generator.cpuShare * 100).toFixed(0)} % of all CPU; peak RSS ${(generator.peakRssBytes / 2 ** 20).toFixed(0)} MiB`);
  return generator;
}

/** fsyncs a file the harness wrote, so that its writeback is not timed as drum's. */
function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Writes the run's JSON: the command line, the time, then the result. */
function writeResult(json: string, r: ScaleRunResult): void {
  writeFileSync(json, JSON.stringify({ command: `node dist/scripts/scale-run.js ${process.argv.slice(2).join(' ')}`.trim(), finishedAt: new Date().toISOString(), ...r }, null, 2) + '\n');
}

if (process.argv[1]?.endsWith('scale-run.js')) {
  const { values } = scriptArgs(import.meta.url, { options: {
    links: { type: 'string', default: '1e9' }, slice: { type: 'string', default: '1e7' }, seed: { type: 'string', default: '1' },
    tmp: { type: 'string', default: tmpdir() }, json: { type: 'string' }, 'keep-outputs': { type: 'boolean', default: false },
    resume: { type: 'boolean', default: false }, 'slice-growth': { type: 'string', default: '0' },
  } });
  const work = resolve(values.tmp!, 'drum-scale-run');
  scaleRun({
    links: Number(values.links), slice: Number(values.slice), seed: Number(values.seed), work,
    json: resolve(values.json ?? join(work, 'scale-run.json')), keepOutputs: values['keep-outputs']!, resume: values.resume!,
    sliceGrowth: Number(values['slice-growth']),
    log: (s) => void process.stderr.write(`[scale] ${s}\n`),
  }).catch((e: unknown) => { process.stderr.write(`scale-run: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`); process.exit(1); });
}
