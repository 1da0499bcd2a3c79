// Measures the input stage: readInputs throughput (MB/s, lines/s) on a plain
// and a gzip file of ~70-byte lines, and inputIdentity (full vs sampled).
// Generates the synthetic input under /tmp when missing. Not a test; prints
// figures for docs/inputs.md. Usage:
//   npx tsc -p . --outDir /tmp/build-input && node /tmp/build-input/scripts/bench-input.js [MB] [dir]

import { createWriteStream, existsSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { createReadStream } from 'node:fs';
import { createGzip } from 'node:zlib';
import path from 'node:path';
import { readInputs } from '../src/input/read.js';
import { inputIdentity } from '../src/input/identity.js';

const mb = Number(process.argv[2] ?? 700);
const dir = process.argv[3] ?? '/tmp';
const plain = path.join(dir, `drum-bench-${mb}mb.txt`);
const gz = `${plain}.gz`;

async function generate(): Promise<void> {
  if (existsSync(plain) && statSync(plain).size >= mb * 1e6) return;
  const out = createWriteStream(plain);
  let bytes = 0;
  let i = 0;
  while (bytes < mb * 1e6) {
    const lines: string[] = [];
    for (let k = 0; k < 10000; k++, i++) {
      const h = (i * 2654435761) % 50000;
      lines.push(`http://www.host${h}.example.com/section/${i % 977}/item-${i}.html?id=${(i * 7) % 100000}`);
    }
    const s = lines.join('\n') + '\n';
    bytes += s.length;
    if (!out.write(s)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

async function bench(file: string, label: string): Promise<void> {
  const t0 = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  let lines = 0, chunks = 0, bytes = 0, raw = 0;
  let maxBuf = 0;
  for await (const c of readInputs([{ path: file }], {
    format: 'auto',
    maxLineBytes: 2048,
    chunkBytes: 1 << 20,
    onBytes: (n) => (raw += n),
  })) {
    lines += c.count;
    chunks++;
    bytes = c.endOffset;
    if (c.buf.length > maxBuf) maxBuf = c.buf.length;
  }
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(cpu0);
  const mainCpu = (cpu.user + cpu.system) / 1e6; // all threads of this process, incl. zlib's threadpool
  console.log(
    `${label}: ${(bytes / 1e6).toFixed(0)} MB (raw ${(raw / 1e6).toFixed(0)} MB), ${lines} lines, ${chunks} chunks, ` +
      `${s.toFixed(2)} s = ${(bytes / 1e6 / s).toFixed(0)} MB/s, ${(lines / 1e6 / s).toFixed(2)} M lines/s, ` +
      `cpu ${mainCpu.toFixed(2)} s (${(bytes / 1e6 / mainCpu).toFixed(0)} MB per cpu-s), ` +
      `max chunk ${maxBuf} B, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`,
  );
}

async function ident(method: 'full' | 'sampled'): Promise<void> {
  const t0 = process.hrtime.bigint();
  const id = await inputIdentity(plain, { method });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`inputIdentity ${method}: ${(id.bytes / 1e6).toFixed(0)} MB in ${s.toFixed(3)} s (${(id.bytes / 1e6 / s).toFixed(0)} MB/s)`);
}

await generate();
if (!existsSync(gz)) await pipeline(createReadStream(plain), createGzip({ level: 6 }), createWriteStream(gz));
await bench(plain, 'plain');
await bench(plain, 'plain (2nd run, page cache warm)');
await bench(gz, 'gzip');
await ident('full');
await ident('sampled');
