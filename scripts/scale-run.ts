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
// Does not judge goals (bench-report.ts / the bench does).
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

import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, statfsSync, writeFileSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { join, resolve } from 'node:path';
import { spawn } from 'node:child_process';
import { tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { runMeasured, pathBytes, hasGnuTime, GNU_TIME } from './lib/measure.js';
import { fitSlices, formatFit, sliceLinks, type ScaleFit } from './scale-fit.js';
import { formatVerify, verifyState, type StoreVerify } from './lib/verify-state.js';

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
  /** The report's open stage (lock, manifest, catalog open and, every DELTAS_BEFORE_FOLD rounds, the host-table fold), ms. */
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

export async function scaleRun(o: { links: number; slice: number; seed: number; sliceGrowth?: number; work: string; json: string; keepOutputs: boolean; resume?: boolean; log: (s: string) => void }): Promise<ScaleRunResult> {
  const dist = resolve(fileURLToPath(import.meta.url), '..', '..');
  const repo = resolve(dist, '..');
  mkdirSync(o.work, { recursive: true });
  const state = join(o.work, 'state');
  const outs = join(o.work, 'outputs');
  const sliceFile = join(o.work, 'slice.txt');
  const earlier: SliceRow[] = o.resume === true && existsSync(o.json) ? (JSON.parse(readFileSync(o.json, 'utf8')) as ScaleRunResult).slices : [];
  if (o.resume !== true) rmSync(state, { recursive: true, force: true });
  rmSync(outs, { recursive: true, force: true });
  const genTime = join(o.work, 'gen-time.txt');
  const genArgs = [join(dist, 'scripts', 'gen-links.js'), '--links', String(o.links), '--seed', String(o.seed), '--out', '-', '--no-count'];
  const gen = hasGnuTime()
    ? spawn(GNU_TIME, ['-f', '%e %U %S %M', '-o', genTime, process.execPath, ...genArgs], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, genArgs, { stdio: ['ignore', 'pipe', 'inherit'] });
  const genClosed = once(gen, 'close');
  const slicer = new LineSlicer(gen.stdout!);
  const rows: SliceRow[] = [...earlier];
  let linksBefore = 0, storeUrls = 0, wallTotal = 0, outBytes = 0;
  for (const r of earlier) {
    // The generator is deterministic: these slices' lines are made again and dropped.
    await slicer.slice(r.links, createWriteStream('/dev/null'));
    linksBefore += r.links;
    storeUrls = r.storeUrlsBefore + r.newUrls;
    wallTotal += r.wallMs;
    outBytes = r.outputBytesTotal;
  }
  const resumedAt = earlier.length > 0 ? earlier.length + 1 : undefined;
  if (resumedAt !== undefined) o.log(`resumed after slice ${earlier.length} (${linksBefore.toLocaleString('en-US')} links)`);
  const t0 = performance.now();
  const result = (generator: ScaleRunResult['generator']): ScaleRunResult =>
    ({ params: { links: o.links, slice: o.slice, seed: o.seed, ...(o.sliceGrowth ? { sliceGrowth: o.sliceGrowth } : {}) }, elapsedMs: Math.round(performance.now() - t0), generator, ...(resumedAt !== undefined ? { resumedAt } : {}), slices: rows });
  const write = (generator: ScaleRunResult['generator']): void => writeFileSync(o.json, JSON.stringify({
    command: `node dist/scripts/scale-run.js ${process.argv.slice(2).join(' ')}`.trim(), finishedAt: new Date().toISOString(), ...result(generator),
  }, null, 2) + '\n');
  for (let k = earlier.length + 1; !slicer.done; k++) {
    const n = await slicer.slice(sliceLinks(o.slice, o.sliceGrowth ?? 0, storeUrls), createWriteStream(sliceFile));
    if (n === 0) break;
    const out = join(outs, `slice-${String(k).padStart(4, '0')}`);
    const m = await runMeasured(process.execPath, [join(repo, 'bin', 'drum'), 'ingest', '--state', state, '--out', out, '--json', '--no-progress', sliceFile],
      { env: { ...process.env, DRUM_DIST_DIR: dist } });
    if (m.exitCode !== 0) throw new Error(`slice ${k}: drum exited ${m.exitCode}: ${m.stderr.slice(-800)}`);
    const rep = JSON.parse(m.stdout.trim()) as { uniqueUrls: number; storeUrls: number; stages?: Record<string, { ms: number }>; io?: { bytesWritten?: number } };
    outBytes += pathBytes(out);
    if (!o.keepOutputs) rmSync(out, { recursive: true, force: true });
    wallTotal += m.wallMs;
    const row: SliceRow = {
      slice: k, links: n, linksBefore, storeUrlsBefore: storeUrls, wallMs: Math.round(m.wallMs), cpuMs: m.cpuMs, peakRssBytes: m.peakRssBytes,
      newUrls: rep.uniqueUrls, stateBytes: pathBytes(state), sliceFileBytes: pathBytes(sliceFile), workBytes: pathBytes(join(state, 'work')),
      ioBytesWritten: rep.io?.bytesWritten, mergeMs: rep.stages?.merge?.ms, openMs: rep.stages?.open?.ms, outputBytesTotal: outBytes,
      cumulativeNsPerLink: Math.round((wallTotal * 1e6) / (linksBefore + n)),
    };
    rows.push(row);
    linksBefore += n;
    storeUrls = rep.storeUrls;
    o.log(`slice ${k}: ${n} links, store ${storeUrls.toLocaleString('en-US')} URLs, ${(m.wallMs / 1000).toFixed(2)} s, ` +
      `RSS ${m.peakRssBytes ? (m.peakRssBytes / 2 ** 20).toFixed(0) : '?'} MiB, state ${(row.stateBytes / 2 ** 30).toFixed(2)} GiB, ` +
      `free ${(statfsSync(o.work).bavail * statfsSync(o.work).bsize / 2 ** 30).toFixed(0)} GiB`);
    write(null);
  }
  await genClosed;
  let generator: ScaleRunResult['generator'] = null;
  if (existsSync(genTime)) {
    const [e, u, s, mx] = readFileSync(genTime, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
    const cpuS = (u ?? 0) + (s ?? 0);
    const drumCpuS = rows.reduce((a, r) => a + (r.cpuMs ?? 0), 0) / 1000;
    generator = {
      wallS: e ?? 0, cpuS, peakRssBytes: (mx ?? 0) * 1024, cpuShare: cpuS + drumCpuS > 0 ? cpuS / (cpuS + drumCpuS) : 0,
      note: 'the generator ran while drum was idle (blocked on its pipe while drum ran); cpuShare = its CPU / (its + drum\'s)',
    };
    o.log(`generator: ${cpuS.toFixed(0)} CPU-s, ${(generator.cpuShare * 100).toFixed(0)} % of all CPU; peak RSS ${(generator.peakRssBytes / 2 ** 20).toFixed(0)} MiB`);
  }
  const st = statfsSync(o.work);
  const fit = fitSlices(rows, st.bavail * st.bsize + (rows.at(-1)?.stateBytes ?? 0), o.sliceGrowth ?? 0);
  o.log(formatFit(fit).split('\n').join('\n[scale] '));
  const verify = verifyState(repo, state);
  o.log(formatVerify('the store', verify));
  const res = { ...result(generator), fit, verify };
  writeFileSync(o.json, JSON.stringify({ command: `node dist/scripts/scale-run.js ${process.argv.slice(2).join(' ')}`.trim(), finishedAt: new Date().toISOString(), ...res }, null, 2) + '\n');
  rmSync(sliceFile, { force: true });
  return res;
}

if (process.argv[1]?.endsWith('scale-run.js')) {
  const { values } = parseArgs({ options: {
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
