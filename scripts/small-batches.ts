// Bench-only: what a small batch costs a long-running crawler process that
// keeps one Drum open on a big store. Opens the store once (not timed), then
// ingests `--batches` files of `--batch` links each (cut from the front of
// `--input`, written before the clock starts) one after another through
// Drum.ingest, and prints one JSON line: every batch's wall in ms, the
// median, and the process's peak RSS. Drum's own fixed costs of a process
// (module load, workers, cache files) are paid once, at open, as a crawler
// pays them. Writes to the store it is given: pass a copy.
// `--journal-keys N` opens with that key journal (0: every batch merges).
// `--whole` ingests the same batch files in one Drum.ingest (one run): the
// baseline the batches are weighed against. `--no-values` opens a keys-only
// store and `--no-fsync` skips fsync (what values and durability add).
// Usage (after `tsc -p .`):
//   node dist/scripts/small-batches.js --state DIR --input FILE [--batch 10000] [--batches 10] [--journal-keys N] [--whole] [--no-values] [--no-fsync]

import { closeSync, mkdirSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { scriptArgs } from './lib/script-args.js';
import { median } from './lib/bench/measure.js';
import { Drum } from '../src/engine/drum.js';
import type { DrumOptions } from '../src/options.js';

export interface SmallBatchResult {
  batchLinks: number;
  batches: number;
  /** Wall of each Drum.ingest call, ms, in order. */
  runsMs: number[];
  medianMs: number;
  /** Wall of Drum.open, ms (paid once per process). */
  openMs: number;
  newUrls: number[];
  peakRssBytes: number;
  /** CPU time of the process (every thread) over the ingests, ms. */
  cpuMs: number;
}

/** Store options a measurement varies. */
export type BatchStoreOptions = Pick<DrumOptions, 'journalKeys' | 'values' | 'fsync'>;

/** Writes `batches` files of `batch` lines each from the start of `input`, reading it `readBytes` at a time. */
export function cutBatches(input: string, dir: string, batch: number, batches: number, readBytes = 8 << 20): string[] {
  const fd = openSync(input, 'r');
  const buf = Buffer.allocUnsafe(readBytes);
  const files: string[] = [];
  let out = -1;
  let lines = 0;
  try {
    for (let n = readSync(fd, buf, 0, buf.length, null); n > 0 && files.length <= batches; n = readSync(fd, buf, 0, buf.length, null)) {
      let pos = 0;
      while (pos < n) {
        if (out < 0) {
          if (files.length === batches) break;
          files.push(join(dir, `batch-${files.length}.txt`));
          out = openSync(files[files.length - 1]!, 'w');
          lines = 0;
        }
        let end = pos;
        while (end < n && lines < batch) {
          const nl = buf.indexOf(10, end);
          if (nl < 0 || nl >= n) { end = n; break; }
          end = nl + 1;
          lines++;
        }
        writeSync(out, buf, pos, end - pos);
        pos = end;
        if (lines === batch) {
          closeSync(out);
          out = -1;
        }
      }
      if (files.length === batches && out < 0) break;
    }
  } finally {
    if (out >= 0) closeSync(out);
    closeSync(fd);
  }
  return files;
}

export async function smallBatches(state: string, input: string, batch: number, batches: number, store: BatchStoreOptions = {}, whole = false): Promise<SmallBatchResult> {
  const dir = `${state}.batches`;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = cutBatches(input, dir, batch, batches);
  const t0 = performance.now();
  const drum = await Drum.open(state, store);
  const openMs = performance.now() - t0;
  const cpu0 = process.cpuUsage();
  const runsMs: number[] = [];
  const newUrls: number[] = [];
  let cpu = { user: 0, system: 0 };
  try {
    for (const [i, inputs] of (whole ? [files] : files.map((f) => [f])).entries()) {
      const t = performance.now();
      const r = await drum.ingest({ inputs, outDir: join(dir, `out-${i}`) });
      runsMs.push(Math.round(performance.now() - t));
      newUrls.push(r.uniqueUrls);
    }
  } finally {
    cpu = process.cpuUsage(cpu0);
    await drum.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const medianMs = median(runsMs);
  return { batchLinks: batch, batches: files.length, runsMs, medianMs, openMs: Math.round(openMs), newUrls, peakRssBytes: process.resourceUsage().maxRSS * 1024, cpuMs: Math.round((cpu.user + cpu.system) / 1000) };
}

if (process.argv[1]?.endsWith('small-batches.js')) {
  const { values } = scriptArgs(import.meta.url, {
    options: {
      state: { type: 'string' }, input: { type: 'string' }, batch: { type: 'string', default: '10000' }, batches: { type: 'string', default: '10' },
      'journal-keys': { type: 'string' }, whole: { type: 'boolean', default: false },
      'no-values': { type: 'boolean', default: false }, 'no-fsync': { type: 'boolean', default: false },
    },
  });
  if (!values.state || !values.input) {
    process.stderr.write('usage: small-batches.js --state DIR --input FILE [--batch 10000] [--batches 10]\n');
    process.exit(2);
  }
  const jk = values['journal-keys'];
  const store: BatchStoreOptions = {
    ...(jk === undefined ? {} : { journalKeys: Number(jk) }),
    ...(values['no-values'] ? { values: false } : {}),
    ...(values['no-fsync'] ? { fsync: false } : {}),
  };
  smallBatches(values.state, values.input, Number(values.batch), Number(values.batches), store, values.whole)
    .then((r) => process.stdout.write(JSON.stringify(r) + '\n'))
    .catch((e: unknown) => { process.stderr.write(`small-batches: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`); process.exit(1); });
}
