// Measures the batch canonicalize step with the TypeScript fast path against
// the WebAssembly one (fast-canonical.wasm) on the first MiBs of a link file
// or a TSV outlink stream: CPU time (process.cpuUsage, so other load on the
// machine does not count) of canonicalizeBatch over every 1 MiB chunk,
// rounds interleaved A/B, median and range per path. Checks first that both
// paths give identical batches. Not a test; prints one Markdown row per path.
// Usage: `node dist/scripts/wasm-canon-bench.js FILE [--mib 128] [--rounds 9] [--tsv]`
// REQUIRES: a built dist/ (npm run build) so the .wasm is beside batch.js.

import { closeSync, openSync, readSync } from 'node:fs';
import { BatchScratch, canonicalizeBatch, resolvePolicy } from '../src/canonicalize/index.js';
import { fastPathKind } from '../src/canonicalize/wasm.js';
import { LineSplitter } from '../src/input/split.js';
import type { LineChunk } from '../src/input/types.js';

function arg(name: string, def: number): number {
  const j = process.argv.indexOf(name);
  return j < 0 ? def : Number(process.argv[j + 1]);
}

function head(file: string, bytes: number): Buffer {
  const b = Buffer.allocUnsafe(bytes);
  const fd = openSync(file, 'r');
  const n = readSync(fd, b, 0, bytes, 0);
  closeSync(fd);
  return b.subarray(0, b.lastIndexOf(10, n - 1) + 1);
}

function cpuMs(f: () => void): number {
  const t = process.cpuUsage();
  f();
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000;
}

/** Throws unless both paths give identical batches for every chunk. */
function sameBatches(chunks: LineChunk[], policy: ReturnType<typeof resolvePolicy>): void {
  const a = new BatchScratch();
  const b = new BatchScratch();
  for (const ch of chunks) {
    const x = canonicalizeBatch(ch, policy, a, { wasm: false });
    const y = canonicalizeBatch(ch, policy, b, { wasm: true });
    const same = x.count === y.count && Buffer.compare(x.bytes, y.bytes) === 0 && x.ends.every((v, i) => v === y.ends[i])
      && x.hostStarts.every((v, i) => v === y.hostStarts[i]) && x.hostEnds.every((v, i) => v === y.hostEnds[i]) && x.rejects.length === y.rejects.length;
    if (!same) throw new Error(`the two paths differ on a chunk ending at line ${ch.endLine}`);
  }
}

function main(): void {
  const file = process.argv[2]!;
  const buf = head(file, arg('--mib', 128) * 1024 * 1024);
  const tsv = process.argv.includes('--tsv');
  const s = new LineSplitter({ input: 0, format: tsv ? 'tsv' : 'lines', maxLineBytes: 8192, chunkBytes: 1 << 20 });
  const chunks = [...s.push(buf), ...s.end()];
  const links = chunks.reduce((n, c) => n + c.count, 0);
  const policy = resolvePolicy({});
  console.log(`fast path: ${JSON.stringify(fastPathKind())}; ${links} lines, ${buf.length} bytes, ${chunks.length} chunks`);
  sameBatches(chunks, policy);
  console.log('identical batches from both paths');
  const scratch = new BatchScratch();
  const times: Record<'ts' | 'wasm', number[]> = { ts: [], wasm: [] };
  const rounds = arg('--rounds', 9);
  for (let r = 0; r < rounds; r++) {
    for (const kind of r % 2 === 0 ? (['ts', 'wasm'] as const) : (['wasm', 'ts'] as const)) {
      times[kind].push(cpuMs(() => {
        for (const ch of chunks) canonicalizeBatch(ch, policy, scratch, { wasm: kind === 'wasm' });
      }));
    }
  }
  const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!;
  console.log('| path | CPU ms (median, range) | ns/line | ns/byte |');
  console.log('|---|--:|--:|--:|');
  for (const kind of ['ts', 'wasm'] as const) {
    const m = med(times[kind]);
    console.log(`| ${kind} | ${m.toFixed(0)} (${Math.min(...times[kind]).toFixed(0)}–${Math.max(...times[kind]).toFixed(0)}) | ${(m * 1e6 / links).toFixed(1)} | ${(m * 1e6 / buf.length).toFixed(2)} |`);
  }
  console.log(`ratio ts/wasm (medians): ${(med(times.ts) / med(times.wasm)).toFixed(2)}`);
}

main();
